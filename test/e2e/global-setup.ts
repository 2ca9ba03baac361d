import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startService } from '../../server/boot/service.js';

/**
 * Starts the real service with the demo workspace (as `npm start` does, on a free port and a fresh
 * database) and hands its URL and SMS outbox to the tests through the environment.
 */
export default async function globalSetup() {
  const dir = mkdtempSync(join(tmpdir(), 'svc-e2e-'));
  const outbox = join(dir, 'sms-outbox.jsonl');
  const service = await startService({
    port: 0,
    db: join(dir, 'svc.db'),
    filesDir: join(dir, 'files'),
    smsOutbox: outbox,
    demo: true,
  });
  process.env.SVC_E2E_URL = service.url;
  process.env.SVC_E2E_OUTBOX = outbox;
  process.env.SVC_E2E_API_KEY = service.demoApiKey;
  return async () => {
    await service.close();
    rmSync(dir, { recursive: true, force: true });
  };
}
