import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { type RoundRobin, startRoundRobin } from '../helpers/round-robin.js';

/**
 * The balancer of SVC_TEST_INSTANCES (test/helpers/round-robin.ts) as its clients see it: a connection to it is
 * kept as long as the balancer keeps it, not as long as the instance behind it would (the suites' clients used the
 * instance's 72 s on a connection the balancer closes after 5 s, and a request sent as it closed failed).
 */
describe('the round-robin balancer of the suites', () => {
  const instance = createServer((_req, res) => {
    res.end('ok');
  });
  let balancer: RoundRobin;

  before(async () => {
    // Fastify's default: the instances of the suites say `Keep-Alive: timeout=72`.
    instance.keepAliveTimeout = 72_000;
    instance.listen(0, '127.0.0.1');
    await once(instance, 'listening');
    balancer = await startRoundRobin([`http://127.0.0.1:${(instance.address() as AddressInfo).port}`]);
  });
  after(async () => {
    await balancer.close();
    instance.close();
  });

  it("answers with its own keep-alive, not the instance's", async () => {
    const direct = await fetch(`http://127.0.0.1:${(instance.address() as AddressInfo).port}/`);
    await direct.text();
    assert.equal(direct.headers.get('keep-alive'), 'timeout=72');
    const balanced = await fetch(`${balancer.url}/`);
    assert.equal(await balanced.text(), 'ok');
    assert.equal(balanced.headers.get('keep-alive'), 'timeout=5');
  });
});
