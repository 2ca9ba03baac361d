import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { MCP_TOKENS } from '../helpers/secrets.js';

/*
 * `npm run test:node` runs the Node suites with SVC_TEST_LOGS set: every test service logs at `debug` (each
 * request's headers included) into that folder and leaves beside its log the secrets it saw
 * (test/helpers/server.ts). This file runs after them and reads what they left.
 */
const dir = process.env.SVC_TEST_LOGS;
const files = dir && existsSync(dir) ? readdirSync(dir) : [];
const read = (suffix: string) =>
  files.filter((f) => f.endsWith(suffix)).map((f) => readFileSync(join(dir!, f), 'utf8'));

/** Every token the service knows by its form: API keys, personal keys, login and session tokens, made-up ones. */
const TOKEN = /(?<![\w-])(?:sk|pk|lt|st)_[\w-]+/;
/**
 * Each secret a service saw, plus the `mcpTokens` the suites sent; found where it stands as a whole word. Values
 * under 6 characters (the fuzz suites save credentials such as `x`) would match any word: they are left out.
 */
const secrets = [
  ...new Set([
    ...read('.secrets.json').flatMap((text) => JSON.parse(text) as string[]),
    MCP_TOKENS.conversations,
    MCP_TOKENS.session,
    ...MCP_TOKENS.billing,
  ]),
].filter((secret) => secret.length >= 6);
const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const whole = secrets.map((secret) => new RegExp(`(?<![\\w.-])${literal(secret)}(?![\\w.-])`));

/** The lines that hold a secret, each with what it holds. */
const leaks = (lines: string[]) =>
  lines.flatMap((line) => {
    const found = [TOKEN.exec(line)?.[0], ...whole.map((re) => re.exec(line)?.[0])].filter(Boolean);
    return found.length ? [`${found.join(', ')} in ${line}`] : [];
  });

describe('the service logs of a run of the Node suites', {
  skip: !dir && 'runs in npm run test:node (SVC_TEST_LOGS)',
}, () => {
  const lines = read('.jsonl').flatMap((text) => text.split('\n').filter(Boolean));

  it('are many JSON lines with a level, a time and a message; a request line names its route by pattern', () => {
    assert.ok(lines.length > 6000, `the suites logged ${lines.length} lines`);
    const entries = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    for (const entry of entries) {
      assert.ok(typeof entry.level === 'string' && typeof entry.time === 'string' && typeof entry.msg === 'string');
    }
    const requests = entries.filter((e) => e.route !== undefined && e.status !== undefined);
    assert.ok(requests.length > 3000, `${requests.length} request lines`);
    for (const entry of requests) {
      assert.ok(typeof entry.reqId === 'string' && typeof entry.ms === 'number', JSON.stringify(entry));
      assert.match(String(entry.route), /^(\/[\w.:*-]*)+$|^\(no route\)$/, 'a pattern, never a query or an encoded id');
    }
    const arrivals = entries.filter((e) => e.msg === 'request received');
    assert.ok(arrivals.length > 3000, `${arrivals.length} debug lines of requests as they arrived`);
    assert.ok(
      arrivals.every((e) => typeof e.ip === 'string' && e.headers === undefined),
      'no header values',
    );
  });

  it('collected the secrets the suites used: keys and login tokens, SMS codes, connector credentials, mcpTokens', () => {
    for (const kind of [/^sk_/, /^pk_/, /^lt_/, /^\d{6}$/, /^tok-/]) {
      assert.ok(
        secrets.some((s) => kind.test(s)),
        `a secret like ${kind}`,
      );
    }
    assert.ok(secrets.includes(MCP_TOKENS.session), 'the connector credential saved in the session test');
  });

  it('finds a secret planted in a line, of every kind (the search works)', () => {
    const planted = [
      'sk_acme_1',
      'st_0123456789abcdef',
      'lt_acme_owner',
      MCP_TOKENS.conversations,
      MCP_TOKENS.billing[0]!,
    ];
    const code = secrets.find((s) => /^\d{6}$/.test(s))!;
    for (const secret of [...planted, code]) {
      assert.equal(leaks([`{"level":"info","msg":"leaked ${secret} here"}`]).length, 1, secret);
    }
    assert.deepEqual(
      leaks(['{"level":"info","time":"2026-01-02T03:04:05.678Z","msg":"GET /healthz 200","ms":1.5}']),
      [],
    );
  });

  it('hold none of them', () => {
    assert.deepEqual(leaks(lines), []);
  });
});
