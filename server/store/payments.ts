export const paymentsSchema = ``;
