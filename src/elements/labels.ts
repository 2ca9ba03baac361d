import { type ContentLabels, EN_CONTENT_LABELS, ZH_CONTENT_LABELS } from './content-labels.js';

/** Every string `<svc-chat>` shows, so a site can translate or reword any of them (`labels` property). */
export interface ChatLabels extends ContentLabels {
  title: string;
  placeholder: string;
  send: string;
  stop: string;
  open: string;
  close: string;
  newConversation: string;
  thinking: string;
  typing: string;
  usingTool: string;
  reconnecting: string;
  connecting: string;
  loadingOlder: string;
  retry: string;
  sendFailed: string;
  interrupted: string;
  replyFailed: string;
  empty: string;
  unread: (count: number) => string;
  you: string;
  agent: string;
  copy: string;
  copied: string;
  signInRequired: string;
  sessionExpired: string;
  messageList: string;
  replyFinished: (name: string) => string;
  // SMS sign-in
  phoneLabel: string;
  phonePlaceholder: string;
  sendCode: string;
  codeLabel: string;
  verify: string;
  changePhone: string;
  codeSent: (phone: string) => string;
  resendIn: (seconds: number) => string;
  resend: string;
  badPhone: string;
  wrongCode: string;
  tooManyTries: string;
  smsDisabled: string;
  networkError: string;
}

export const EN_LABELS: ChatLabels = {
  ...EN_CONTENT_LABELS,
  title: 'Chat',
  placeholder: 'Write a message…',
  send: 'Send',
  stop: 'Stop',
  open: 'Open chat',
  close: 'Close chat',
  newConversation: 'New conversation',
  thinking: 'Thinking…',
  typing: 'Typing…',
  usingTool: 'Working…',
  reconnecting: 'Reconnecting…',
  connecting: 'Connecting…',
  loadingOlder: 'Loading earlier messages…',
  retry: 'Retry',
  sendFailed: 'Not sent.',
  interrupted: 'Stopped.',
  replyFailed: 'The reply failed.',
  empty: 'Ask anything to start.',
  unread: (n) => `${n} unread`,
  you: 'You',
  agent: 'Assistant',
  copy: 'Copy',
  copied: 'Copied',
  signInRequired: 'Sign in to chat.',
  sessionExpired: 'Your session expired. Sign in again.',
  messageList: 'Conversation',
  replyFinished: (name) => `${name} replied.`,
  phoneLabel: 'Phone number',
  phonePlaceholder: '+86 138 0000 0000',
  sendCode: 'Send code',
  codeLabel: 'Code from the SMS',
  verify: 'Sign in',
  changePhone: 'Use another number',
  codeSent: (phone) => `We sent a 6-digit code to ${phone}.`,
  resendIn: (s) => `Send again in ${s}s`,
  resend: 'Send a new code',
  badPhone: 'Enter the number with its country code, like +8613800000000.',
  wrongCode: 'That code is wrong or has expired.',
  tooManyTries: 'Too many tries. Wait a moment, then ask for a new code.',
  smsDisabled: 'Sign-in by SMS is not available here.',
  networkError: 'Could not reach the service. Check your connection and try again.',
};

export const ZH_LABELS: ChatLabels = {
  ...ZH_CONTENT_LABELS,
  title: '对话',
  placeholder: '输入消息…',
  send: '发送',
  stop: '停止',
  open: '打开对话',
  close: '关闭对话',
  newConversation: '新对话',
  thinking: '思考中…',
  typing: '输入中…',
  usingTool: '处理中…',
  reconnecting: '正在重新连接…',
  connecting: '连接中…',
  loadingOlder: '正在加载更早的消息…',
  retry: '重试',
  sendFailed: '发送失败。',
  interrupted: '已停止。',
  replyFailed: '回复失败。',
  empty: '有什么可以帮您？',
  unread: (n) => `${n} 条未读`,
  you: '我',
  agent: '助手',
  copy: '复制',
  copied: '已复制',
  signInRequired: '请先登录。',
  sessionExpired: '登录已过期，请重新登录。',
  messageList: '对话内容',
  replyFinished: (name) => `${name} 已回复。`,
  phoneLabel: '手机号',
  phonePlaceholder: '+86 138 0000 0000',
  sendCode: '获取验证码',
  codeLabel: '短信验证码',
  verify: '登录',
  changePhone: '更换手机号',
  codeSent: (phone) => `验证码已发送至 ${phone}。`,
  resendIn: (s) => `${s} 秒后可重新发送`,
  resend: '重新获取验证码',
  badPhone: '请输入带国家码的手机号，例如 +8613800000000。',
  wrongCode: '验证码错误或已过期。',
  tooManyTries: '尝试次数过多，请稍后重新获取验证码。',
  smsDisabled: '此处不支持短信登录。',
  networkError: '无法连接服务，请检查网络后重试。',
};

/** Labels for a BCP 47 language tag: Chinese for `zh*`, English otherwise; `overrides` win. */
export function labelsFor(lang: string | undefined, overrides?: Partial<ChatLabels>): ChatLabels {
  const base = lang?.toLowerCase().startsWith('zh') ? ZH_LABELS : EN_LABELS;
  return overrides ? { ...base, ...overrides } : base;
}
