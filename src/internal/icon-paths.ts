/**
 * The drawings of the icons `<svc-chat>` shows before its panel has loaded (the launcher's, the close and send
 * buttons'): drawn as DOM by the launcher (`dom.ts`) and as Lit templates by the panel (`icons.ts`).
 */
export const CHAT_PATH = 'M21 12a8 8 0 0 1-11.6 7.1L4 20l1-4.6A8 8 0 1 1 21 12Z';
export const CLOSE_PATH = 'M6 6l12 12M18 6 6 18';
export const SEND_PATH = 'M5 12h13M13 6l6 6-6 6';
