export const filesSchema = ``;
