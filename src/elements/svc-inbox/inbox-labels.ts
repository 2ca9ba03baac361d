/** Every string `<svc-inbox>` shows; a site rewords any with the element's `labels` property. */
export interface InboxLabels {
  queue: string;
  waiting: string;
  mine: string;
  missed: string;
  nobodyWaiting: string;
  pickConversation: string;
  visitor: string;
  agent: string;
  /** A person's name on their messages: "Alex, support", as the visitor sees it. */
  person: (name: string) => string;
  conversationWith: (visitor: string) => string;
  isWaiting: string;
  heldBy: (name: string) => string;
  withAgents: string;
  take: string;
  release: string;
  close: string;
  messages: string;
  reply: string;
  attach: string;
  attachment: string;
  send: string;
  /** What the visitor left in the contact card after nobody came. */
  contactLeft: (details: string) => string;
}

/** English: the inbox is the site's own staff's tool, reworded by the site where it needs another language. */
export const INBOX_LABELS: InboxLabels = {
  queue: 'Conversations',
  waiting: 'Waiting for a person',
  mine: 'Yours',
  missed: 'Missed',
  nobodyWaiting: 'Nobody is waiting.',
  pickConversation: 'Pick a conversation.',
  visitor: 'Visitor',
  agent: 'Assistant',
  person: (name) => `${name}, support`,
  conversationWith: (visitor) => `Conversation with ${visitor}`,
  isWaiting: 'Waiting for a person',
  heldBy: (name) => `${name} holds it`,
  withAgents: 'The assistant answers',
  take: 'Take',
  release: 'Release to the assistant',
  close: 'Close',
  messages: 'Messages',
  reply: 'Reply to the visitor',
  attach: 'Attach files',
  attachment: 'Attachment',
  send: 'Send',
  contactLeft: (details) => `Left their details: ${details}`,
};
