/**
 * The cards: importing this registers `<svc-payment-gate>`, `<svc-info-collect>` and `<svc-connector-setup>`
 * (once, however often it is loaded). `<svc-chat>` imports them itself.
 */

export {
  DEFAULT_CONNECTOR_LABELS,
  DEFAULT_INFO_COLLECT_LABELS,
  DEFAULT_PAYMENT_LABELS,
} from '../elements/labels/en.js';
export type { ConnectorLabels, InfoCollectLabels, PaymentLabels } from '../elements/labels/types.js';
export { type CardClient, type CardHost, cardHostContext } from './context.js';
export { SvcAnswerCard, SvcCard } from './svc-card.js';
export { SvcConnectorSetup } from './svc-connector-setup.js';
export { SvcInfoCollect } from './svc-info-collect.js';
export { formatCny, SvcPaymentGate } from './svc-payment-gate.js';
