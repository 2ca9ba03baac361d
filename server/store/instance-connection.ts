import { setTimeout as sleep } from 'node:timers/promises';
import { backoff } from '@svc/agent-sdk/protocol';
import pg from 'pg';
import type { Liveness, LivenessWatcher } from './db.js';
import { randomId } from './ids.js';

/** The class of advisory session locks that say an instance is alive (`PostgresDb.instanceAlive`). */
export const INSTANCE_LOCKS = 7_190_003;

/**
 * This instance's own connection to PostgreSQL, apart from the pool: it LISTENs on every channel heard, and
 * holds the session lock that tells the other instances this one is alive (its `application_name` is
 * `svc-server <instance id>`). When it drops (the database restarted, a proxy or an administrator cut it), the
 * instance is not alive to the others: they end its running turns, so the watchers' `lost` must stop them.
 * It connects again, pausing longer after each failed try, as a new instance: a new id, whose lock it takes
 * before it LISTENs again. Then the watchers' `back` runs: notifications sent meanwhile were lost, so what
 * follows them reads the database again.
 */
export class InstanceConnection implements Liveness {
  #client!: pg.Client;
  #id = '';
  #alive = false;
  #closing: Promise<void> | undefined;
  readonly #channels = new Map<string, Set<(payload: string) => void>>();
  readonly #watchers = new Set<LivenessWatcher>();

  private constructor(private readonly config: pg.ClientConfig) {}

  /** Connects and takes this instance's lock; rejects when it cannot. */
  static async open(config: pg.ClientConfig): Promise<InstanceConnection> {
    const connection = new InstanceConnection(config);
    await connection.#connect();
    return connection;
  }

  /** The instance's id while alive; after the connection dropped, the id it had until it is back. */
  get id(): string {
    return this.#id;
  }

  get alive(): boolean {
    return this.#alive;
  }

  watch(watcher: LivenessWatcher): void {
    this.#watchers.add(watcher);
  }

  /** A query on this connection (migrating at start locks on it, so the lock goes if the process dies). */
  query(sql: string, params?: unknown[]): Promise<pg.QueryResult> {
    return this.#client.query(sql, params);
  }

  /** Hears `channel` from the other instances (this one's own notifications are told by `tell`). */
  async listen(channel: string, heard: (payload: string) => void): Promise<() => Promise<void>> {
    let set = this.#channels.get(channel);
    if (!set) {
      set = new Set();
      this.#channels.set(channel, set);
      // While the connection is down, connecting again LISTENs on every channel.
      if (this.#alive) await this.#client.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
    }
    set.add(heard);
    return async () => {
      set.delete(heard);
    };
  }

  /** Tells this instance's listeners of `channel`. */
  tell(channel: string, payload: string): void {
    for (const heard of this.#channels.get(channel) ?? []) heard(payload);
  }

  close(): Promise<void> {
    this.#closing ??= this.#client.end().catch(() => {});
    return this.#closing;
  }

  async #connect(): Promise<void> {
    const id = randomId('i');
    const client = new pg.Client({ ...this.config, application_name: `svc-server ${id}` });
    // A failed connect rejects `connect()`; the error event must not also end the process.
    client.on('error', () => {});
    this.#client = client;
    try {
      await client.connect();
      await client.query('SELECT pg_advisory_lock($1, hashtext($2))', [INSTANCE_LOCKS, id]);
      for (const channel of this.#channels.keys()) await client.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
    } catch (err) {
      await client.end().catch(() => {});
      throw err;
    }
    // A notification is `<instance id> <payload>`: this instance has told its own listeners already.
    client.on('notification', ({ channel, payload = '' }) => {
      const space = payload.indexOf(' ');
      if (payload.slice(0, space) !== this.#id) this.tell(channel, payload.slice(space + 1));
    });
    client.on('error', (err) => this.#dropped(client, err));
    client.on('end', () => this.#dropped(client, new Error('the connection ended')));
    this.#id = id;
    this.#alive = true;
  }

  #dropped(client: pg.Client, err: Error): void {
    // A drop says both `error` and `end`; closing ends the connection on purpose.
    if (client !== this.#client || !this.#alive || this.#closing) return;
    this.#alive = false;
    for (const watcher of this.#watchers) watcher.lost?.(err);
    void this.#reconnect();
  }

  async #reconnect(): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      await sleep(backoff(attempt), undefined, { ref: false });
      if (this.#closing) return;
      try {
        await this.#connect();
        break;
      } catch {
        if (this.#closing) return;
      }
    }
    for (const watcher of this.#watchers) watcher.back?.(this.#id);
  }
}
