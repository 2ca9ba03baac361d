/**
 * A phone number as SMS sign-in takes it (docs/protocol.md "SMS sign-in"): E.164, `+` and 8 to 15 digits, the
 * first not 0. The widget checks it before asking for a code, the service refuses any other.
 */
export const E164 = /^\+[1-9]\d{7,14}$/;
