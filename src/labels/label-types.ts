/**
 * The strings of every element, by kind. Each language is one file in this folder that fills a
 * {@link Language}; a site rewords any string with the `labels` property of the element that shows it.
 */

/**
 * Strings of the chat's rich content: attachments in the composer, files and images in replies, reading
 * aloud, tool calls, hand-overs and thoughts. Part of `ChatLabels`, so `<svc-chat>`'s `labels` overrides them.
 */
export interface ContentLabels {
  attach: string;
  removeFile: (name: string) => string;
  uploading: string;
  uploadFailed: (name: string, reason: string) => string;
  fileTooLarge: (name: string, limit: string) => string;
  fileTypeNotAccepted: (name: string) => string;
  fileEmpty: (name: string) => string;
  tooManyFiles: (max: number) => string;
  waitForUploads: string;
  dropFiles: string;
  download: (name: string) => string;
  downloading: string;
  downloadFailed: (name: string) => string;
  readAloud: string;
  pauseReading: string;
  resumeReading: string;
  preparingAudio: string;
  audioFailed: string;
  copyReply: string;
  copyMarkdown: string;
  replyCopied: string;
  goodReply: string;
  badReply: string;
  feedbackReason: string;
  sendFeedback: string;
  feedbackThanks: string;
  regenerate: string;
  editMessage: string;
  editField: string;
  sendEdit: string;
  cancelEdit: string;
  starterPrompts: string;
  /** The group of replies the last reply suggests. */
  suggestions: string;
  openImage: string;
  closeImage: string;
  image: string;
  thoughts: string;
  toolInput: (name: string) => string;
  /** A call of a page tool (docs/elements.md "Tools the page gives the chat"): its handler runs. */
  toolRunning: (name: string) => string;
  /** A page tool with `confirm` asks the visitor first (unless `confirm` is the sentence to ask with). */
  toolAsk: (name: string) => string;
  allowTool: string;
  denyTool: string;
  /** It was denied, threw, took too long or is not on this page: the agent was told why. */
  toolFailed: (name: string) => string;
  handover: (from: string, to: string, task: string) => string;
}

/** Strings of the chat's list of conversations, its outbox and its failed replies. Part of `ChatLabels`. */
export interface ConversationLabels {
  /** The header button that shows the list, and the list's heading. */
  conversations: string;
  /** The header button that goes back from the list to the conversation. */
  backToChat: string;
  loadingConversations: string;
  noConversations: string;
  conversationsFailed: string;
  moreConversations: string;
  /** The title of a conversation with no text yet. */
  untitled: string;
  /** A row's time, then the preview of its last message: what goes between them. */
  previewSeparator: string;
  /** The preview of a conversation's last message: who wrote it, and the start of what they wrote. */
  preview: (name: string, text: string) => string;
  rename: string;
  renameConversation: (title: string) => string;
  saveTitle: string;
  cancel: string;
  delete: string;
  deleteConversation: (title: string) => string;
  confirmDelete: (title: string) => string;
  deleteWhileRunning: string;
  /** A delete the service refused or never got: the confirmation stays, to try again. */
  deleteFailed: string;
  /** A reply that failed: the agent's name and the service's sentence. */
  replyFailedBy: (name: string, reason: string) => string;
  /** A message kept while the service cannot be reached: it goes by itself once it can. */
  waitingToSend: string;
  /** Under the composer while messages wait: the chat sends them by itself, and its button still sends. */
  messagesWaiting: string;
}

/** Every string `<svc-chat>` (and `<svc-sms-sign-in>`) shows. */
export interface ChatLabels extends ContentLabels, ConversationLabels {
  title: string;
  placeholder: string;
  send: string;
  stop: string;
  open: string;
  close: string;
  newConversation: string;
  /** Goes back to the conversation shown before the visitor started a new one. */
  previousConversation: string;
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
  /** The launcher's name while replies wait unread. */
  openUnread: (count: number) => string;
  you: string;
  agent: string;
  copy: string;
  copied: string;
  signInRequired: string;
  sessionExpired: string;
  messageList: string;
  /** What a screen reader hears once a reply has finished: "Aria: <the reply>". */
  replyFinished: (name: string, text: string) => string;
  /** Jumps to the newest message. */
  jumpToEnd: string;
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
  /** Shown beside the site's CAPTCHA while the service asks for it before sending a code. */
  challengePrompt: string;
  /** The service asks for a check before it sends a code, and this page offers none. */
  challengeUnavailable: string;
  /** The check was not accepted (or the visitor gave up on it). */
  challengeFailed: string;
  networkError: string;
  /** The service answered with an error: what the visitor reads (the detail goes to `svc-error`). */
  serviceError: string;
  /** The service answered 429. */
  tooManyRequests: string;
}

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
  connected: (name: string) => string;
  /** Which server asks: its host. */
  asks: (host: string) => string;
  saveFailed: (reason: string) => string;
  notifyFailed: string;
  noConversation: string;
}

/** One language: the strings of the chat and of each card. */
export interface Language {
  chat: ChatLabels;
  payment: PaymentLabels;
  infoCollect: InfoCollectLabels;
  connector: ConnectorLabels;
}
