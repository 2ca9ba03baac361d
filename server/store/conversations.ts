export const conversationsSchema = ``;
