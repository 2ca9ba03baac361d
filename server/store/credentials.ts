export const credentialsSchema = ``;
