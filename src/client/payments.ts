import type { PaymentStatusResult } from '../protocol/conversation-types.js';
import type { RequestOptions, SvcClientConfig } from './config.js';
import { type HttpClient, httpOf, path } from './http.js';

/** Status of the payment orders behind payment cards. */
export class PaymentsClient {
  readonly http: HttpClient;

  constructor(http: HttpClient | SvcClientConfig = {}) {
    this.http = httpOf(http);
  }

  /** `pending`, `paid`, `expired` or `canceled`, with the amount. */
  async status(orderId: string, opts: RequestOptions = {}): Promise<PaymentStatusResult> {
    return this.http.json({ ...opts, method: 'GET', path: path`/payments/${orderId}/status` });
  }
}
