import { themeRules } from './tokens.js';

const TAGS = [
  'svc-chat',
  'svc-markdown',
  'svc-sms-sign-in',
  'svc-payment-gate',
  'svc-info-collect',
  'svc-connector-setup',
];
const withAttr = (attr: string) => TAGS.map((t) => `${t}${attr}`).join(',');

/** A page stylesheet with the tokens of both themes for every `svc-*` element. */
export const CHAT_CSS = themeRules(TAGS.join(','), withAttr('[theme=dark]'), withAttr('[theme=auto]'));
