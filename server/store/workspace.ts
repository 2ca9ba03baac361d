export const workspaceSchema = ``;
