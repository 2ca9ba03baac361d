import { parseArgs } from 'node:util';
import { parseQuota } from '../services/limits.js';
import { readFixture } from './fixture.js';
import { startService } from './service.js';

const USAGE = `usage: svc-server [--host 127.0.0.1] [--port 8787] [--db FILE|:memory:|postgres://…] [--fixture FILE]
                  [--sms-outbox FILE] [--files-dir DIR] [--demo] [--model-base-url URL --model NAME]
                  [--public-url URL] [--trust-proxy ADDRESSES] [--quota NAME=N]...
  The port is --port, else the PORT environment variable, else 8787.
  The database is --db, else the SVC_DATABASE_URL environment variable, else :memory: (SQLite).
  The model endpoint's key is read from the environment only (SVC_MODEL_API_KEY or OPENAI_API_KEY).`;

async function main() {
  const { values } = parseArgs({
    options: {
      host: { type: 'string', default: '127.0.0.1' },
      // PORT is how hosts (and `PORT=9000 npm start`) choose it; a flag given on the command line wins.
      port: { type: 'string', default: process.env.PORT || '8787' },
      db: { type: 'string', default: process.env.SVC_DATABASE_URL || ':memory:' },
      fixture: { type: 'string' },
      'sms-outbox': { type: 'string' },
      'files-dir': { type: 'string' },
      demo: { type: 'boolean', default: false },
      'model-base-url': { type: 'string', default: process.env.SVC_MODEL_BASE_URL || undefined },
      model: { type: 'string', default: process.env.SVC_MODEL || undefined },
      'public-url': { type: 'string' },
      'trust-proxy': { type: 'string' },
      quota: { type: 'string', multiple: true, default: [] },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return;
  }
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Error(`--port must be 0 to 65535, not "${values.port}"\n${USAGE}`);
  }
  const model = modelEndpoint(values['model-base-url'], values.model);
  const log = (line: string) => console.error(`[svc] ${line}`);
  const service = await startService({
    host: values.host,
    port,
    db: values.db,
    fixture: values.fixture ? readFixture(values.fixture) : undefined,
    smsOutbox: values['sms-outbox'],
    filesDir: values['files-dir'],
    demo: values.demo,
    publicUrl: values['public-url'],
    trustProxy: values['trust-proxy'],
    quotas: Object.fromEntries(values.quota.map(parseQuota)),
    log,
    model,
  });
  // Before the URL is printed: a script may signal the server as soon as it reads the URL.
  const stop = () => service.close().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  // The first stdout line is the contract with scripts and the conformance suite.
  console.log(`listening on ${service.url}`);
  if (service.demoApiKey) {
    console.log(`demo workspace API key: ${service.demoApiKey}`);
    console.log(`demo: ${service.url}/`);
    console.log(
      model
        ? `demo agent Aria answers with the model ${model.model} at ${model.base_url}`
        : 'demo agent Aria runs the demo runtime (give --model-base-url and --model for a real model)',
    );
  }
}

/** `--model-base-url` and `--model` (or SVC_MODEL_BASE_URL and SVC_MODEL) go together. */
function modelEndpoint(baseUrl: string | undefined, model: string | undefined) {
  if (!baseUrl && !model) return undefined;
  if (!baseUrl || !model) throw new Error(`--model-base-url and --model go together\n${USAGE}`);
  if (!URL.canParse(baseUrl)) throw new Error(`--model-base-url must be a URL such as http://127.0.0.1:11434/v1`);
  return { base_url: baseUrl, model };
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
