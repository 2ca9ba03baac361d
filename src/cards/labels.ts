/** Strings of the cards. Each card takes overrides in its `labels` property and picks Chinese for `lang="zh*"`. */

export interface PaymentLabels {
  pay: (amount: string) => string;
  payAgain: string;
  opening: string;
  waiting: string;
  expiresIn: (time: string) => string;
  pending: string;
  paid: string;
  expired: string;
  canceled: string;
}

export interface InfoCollectLabels {
  submit: string;
  skip: string;
  sending: string;
  required: string;
  optional: string;
  invalidEmail: string;
  invalidPhone: string;
  invalidNumber: string;
  invalidDate: string;
  invalidOption: string;
  choose: string;
  submitted: string;
  skipped: string;
  sendFailed: string;
  noConversation: string;
}

export interface ConnectorLabels {
  save: string;
  saving: string;
  required: string;
  optional: string;
  show: (field: string) => string;
  hide: (field: string) => string;
  connected: (name: string) => string;
  saveFailed: (reason: string) => string;
  notifyFailed: string;
  noConversation: string;
}

export const DEFAULT_PAYMENT_LABELS: PaymentLabels = {
  pay: (amount) => `Pay ${amount}`,
  payAgain: 'Open the pay page again',
  opening: 'Opening the pay page…',
  waiting: 'Waiting for your payment…',
  expiresIn: (time) => `Expires in ${time}`,
  pending: 'Awaiting payment',
  paid: 'Paid',
  expired: 'Expired: this order can no longer be paid.',
  canceled: 'Canceled',
};

export const ZH_PAYMENT_LABELS: PaymentLabels = {
  pay: (amount) => `支付 ${amount}`,
  payAgain: '重新打开支付页面',
  opening: '正在打开支付页面…',
  waiting: '等待支付完成…',
  expiresIn: (time) => `${time} 后过期`,
  pending: '待支付',
  paid: '已支付',
  expired: '已过期：此订单无法再支付。',
  canceled: '已取消',
};

export const DEFAULT_INFO_COLLECT_LABELS: InfoCollectLabels = {
  submit: 'Submit',
  skip: 'Skip',
  sending: 'Sending…',
  required: 'This field is required.',
  optional: 'optional',
  invalidEmail: 'Enter an email address like name@example.com.',
  invalidPhone: 'Enter a phone number, like +8613800000000.',
  invalidNumber: 'Enter a number.',
  invalidDate: 'Enter a date.',
  invalidOption: 'Choose one of the options.',
  choose: 'Choose…',
  submitted: 'Sent',
  skipped: 'Skipped',
  sendFailed: 'Your answer could not be sent. Try again.',
  noConversation: 'This card is not part of a conversation, so it cannot be answered.',
};

export const ZH_INFO_COLLECT_LABELS: InfoCollectLabels = {
  submit: '提交',
  skip: '跳过',
  sending: '发送中…',
  required: '此项必填。',
  optional: '选填',
  invalidEmail: '请输入邮箱地址，例如 name@example.com。',
  invalidPhone: '请输入手机号，例如 +8613800000000。',
  invalidNumber: '请输入数字。',
  invalidDate: '请输入日期。',
  invalidOption: '请从选项中选择。',
  choose: '请选择…',
  submitted: '已提交',
  skipped: '已跳过',
  sendFailed: '提交失败，请重试。',
  noConversation: '此卡片不属于任何对话，无法提交。',
};

export const DEFAULT_CONNECTOR_LABELS: ConnectorLabels = {
  save: 'Save and connect',
  saving: 'Saving…',
  required: 'This field is required.',
  optional: 'optional',
  show: (field) => `Show ${field}`,
  hide: (field) => `Hide ${field}`,
  connected: (name) => `${name} is set up. Your credentials are stored encrypted.`,
  saveFailed: (reason) => `The credentials could not be saved: ${reason}`,
  notifyFailed: 'The credentials are saved, but the agent could not be told. Ask it to try again.',
  noConversation: 'This card is not part of a conversation, so the agent cannot be told.',
};

export const ZH_CONNECTOR_LABELS: ConnectorLabels = {
  save: '保存并连接',
  saving: '保存中…',
  required: '此项必填。',
  optional: '选填',
  show: (field) => `显示${field}`,
  hide: (field) => `隐藏${field}`,
  connected: (name) => `${name} 已设置，凭据已加密保存。`,
  saveFailed: (reason) => `凭据保存失败：${reason}`,
  notifyFailed: '凭据已保存，但未能通知助手，请让它重试。',
  noConversation: '此卡片不属于任何对话，无法通知助手。',
};

/** The labels for `lang`: Chinese for `zh*`, English otherwise; `overrides` win. */
export function cardLabels<L extends object>(lang: string, en: L, zh: L, overrides?: Partial<L>): L {
  const base = lang.toLowerCase().startsWith('zh') ? zh : en;
  return { ...base, ...overrides };
}
