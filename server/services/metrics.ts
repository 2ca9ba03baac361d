import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { PoolUse } from '../store/db.js';

/** What the gauges read at each scrape. */
export interface MetricSources {
  openStreams(): number;
  runningTurns(): number;
  /** The database pool's connections (PostgreSQL); undefined for SQLite, which has none. */
  pool(): PoolUse | undefined;
}

/**
 * This instance's metrics in a registry of its own (several services may share a process, as in the tests),
 * served by `GET /metrics` in Prometheus's text format: counters and histograms are kept as things happen,
 * gauges are read when scraped, and prom-client's process metrics (event-loop lag, heap, CPU) come with them.
 */
export class Metrics {
  readonly registry = new Registry();

  readonly requests = new Histogram({
    name: 'svc_http_request_duration_seconds',
    help: 'HTTP requests by route pattern and status; a record stream counts when it closes.',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
  });

  readonly modelLatency = new Histogram({
    name: 'svc_model_request_duration_seconds',
    help: 'Model (chat-completions) requests: from the request until the answer starts streaming.',
    buckets: [0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60],
    registers: [this.registry],
  });

  readonly recordsWritten = this.counter('svc_records_written_total', 'Records stored by this instance.');
  readonly modelFailures = this.counter(
    'svc_model_failures_total',
    'Model requests that failed, by kind (each try of a retried request counts).',
    'kind',
  );
  readonly smsSent = this.counter('svc_sms_codes_sent_total', 'SMS sign-in codes sent.');
  readonly smsRefused = this.counter(
    'svc_sms_codes_refused_total',
    'SMS sign-in codes refused by a send limit, by limit.',
    'limit',
  );

  constructor(sources: MetricSources) {
    const registers = [this.registry];
    new Gauge({
      name: 'svc_record_streams_open',
      help: 'Record streams open on this instance.',
      registers,
      collect() {
        this.set(sources.openStreams());
      },
    });
    new Gauge({
      name: 'svc_turns_running',
      help: 'Turns (agent replies) running on this instance.',
      registers,
      collect() {
        this.set(sources.runningTurns());
      },
    });
    new Gauge({
      name: 'svc_db_pool_connections',
      help: 'PostgreSQL pool connections of this instance, by state (in_use, idle, waiting: queries queued for one).',
      labelNames: ['state'] as const,
      registers,
      collect() {
        const pool = sources.pool();
        if (!pool) return;
        this.set({ state: 'in_use' }, pool.inUse);
        this.set({ state: 'idle' }, pool.idle);
        this.set({ state: 'waiting' }, pool.waiting);
      },
    });
    collectDefaultMetrics({ register: this.registry });
  }

  private counter<Label extends string = never>(name: string, help: string, ...labelNames: Label[]): Counter<Label> {
    return new Counter({ name, help, labelNames, registers: [this.registry] });
  }
}
