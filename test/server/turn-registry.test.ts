import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { RecordLog } from '../../server/services/record-log.js';
import { type Db, openDb } from '../../server/store/db.js';
import { LOST_LIVENESS, type RunningTurnHandle, TurnRegistry } from '../../server/turns/registry.js';

/** A running turn that notes how it was ended. */
function runningTurn(conversationId: string) {
  const ends: [string, string | undefined][] = [];
  const turn: RunningTurnHandle = {
    conversationId,
    turnId: `t_${conversationId}`,
    interrupt: async () => {},
    end: async (subtype, error) => {
      ends.push([subtype, error]);
    },
  };
  return { turn, ends };
}

describe('TurnRegistry', () => {
  let db: Db;
  let registry: TurnRegistry;
  before(async () => {
    db = await openDb(':memory:');
    registry = new TurnRegistry(db, new RecordLog(db, () => {}));
    await registry.listen();
  });
  after(() => db.close());

  it('runs a turn stored as running on this instance', () => {
    const { turn, ends } = runningTurn('c_here');
    registry.add(turn, db.instanceId);
    assert.deepEqual(ends, []);
  });

  it('ends at once a turn stored as another instance (this one lost its connection while storing it)', () => {
    const { turn, ends } = runningTurn('c_lost');
    registry.add(turn, 'i_before_the_drop');
    assert.deepEqual(ends, [['error', LOST_LIVENESS]]);
  });
});
