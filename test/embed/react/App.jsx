import { ChatBox, Markdown, useInjectStyles, useSvcChat } from '@svc/agent-sdk/react';
import { useState } from 'react';

/** The widget as a component: its properties are props, its `svc-*` events `on…` callbacks. */
export function SupportChat() {
  const [replies, setReplies] = useState(0);
  const [rated, setRated] = useState('none');
  return (
    <section>
      <p>Replies: {replies}</p>
      <p>Rated: {rated}</p>
      <ChatBox
        tokenEndpoint="/svc-token"
        agentIds="agent_echo"
        style={{ height: 480 }}
        onTurnComplete={() => setReplies((n) => n + 1)}
        onFeedback={(event) => setRated(event.detail.rating)}
      />
    </section>
  );
}

/** A chat drawn by your own components, on the same state the widget uses. */
export function CustomChat() {
  useInjectStyles();
  const chat = useSvcChat({ tokenEndpoint: '/svc-token', agentIds: ['agent_echo'] });
  const [draft, setDraft] = useState('');
  const submit = (event) => {
    event.preventDefault();
    chat.send(draft);
    setDraft('');
  };
  return (
    <form aria-label="Custom chat" onSubmit={submit}>
      <ul>
        {chat.messages.map((message) => (
          <li key={message.key} className={message.role}>
            <Markdown text={message.text} />
          </li>
        ))}
      </ul>
      <input aria-label="Message" value={draft} onChange={(event) => setDraft(event.target.value)} />
      <button type="submit" disabled={chat.running}>
        Send
      </button>
      {chat.error && <p role="alert">{chat.error}</p>}
    </form>
  );
}

/** The page of Vite's React starter (`src/App.jsx`): the widget, and a chat drawn by your own components. */
export default function App() {
  return (
    <>
      <SupportChat />
      <CustomChat />
    </>
  );
}
