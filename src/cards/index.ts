/**
 * The cards: importing this registers `<svc-payment-gate>`, `<svc-info-collect>` and `<svc-connector-setup>`
 * (once, however often it is loaded). The chat's panel module (`src/panel.ts`) registers them with the chat.
 */

export { type CardClient, type CardHost, cardHostContext } from '../internal/context.js';
export {
  DEFAULT_CONNECTOR_LABELS,
  DEFAULT_INFO_COLLECT_LABELS,
  DEFAULT_PAYMENT_LABELS,
} from '../labels/en.js';
export type { ConnectorLabels, InfoCollectLabels, PaymentLabels } from '../labels/label-types.js';
export { SvcAnswerCard, SvcCard } from './svc-card.js';
export { SvcConnectorSetup } from './svc-connector-setup.js';
export { SvcInfoCollect } from './svc-info-collect.js';
export { formatCny, SvcPaymentGate } from './svc-payment-gate.js';
