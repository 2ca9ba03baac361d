/**
 * The time of every rule that counts or expires in the store (SMS codes and limits, upload quotas and expiry,
 * stored send results), in ms. Tests move it instead of sleeping.
 */
export const clock = { now: (): number => Date.now() };
