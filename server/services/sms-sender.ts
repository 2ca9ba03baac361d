import { appendFileSync } from 'node:fs';

export interface SmsMessage {
  phone: string;
  code: string;
  slug: string;
  at: string;
}

/** Delivers sign-in codes. A real carrier plugs in here; the reference service has two local senders. */
export interface SmsSender {
  send(message: SmsMessage): void;
}

/** `--sms-outbox FILE`: one JSON line per message, for tests and local development. */
export function outboxSender(file: string): SmsSender {
  return { send: (message) => appendFileSync(file, `${JSON.stringify(message)}\n`) };
}

/** Without an outbox the code is printed, so a developer can sign in from the terminal. */
export function logSender(log: (line: string) => void): SmsSender {
  return { send: (m) => log(`sms code for ${m.phone} in ${m.slug}: ${m.code}`) };
}
