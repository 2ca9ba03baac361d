// <svc-chat> and the cards straight in TSX with React 19: typed by `@svc/agent-sdk/react`'s JSX augmentation.
import '@svc/agent-sdk/react';
import { useState } from 'react';

export function Support() {
  const [reply, setReply] = useState('');
  return (
    <>
      <svc-chat
        mode="inline"
        base-url="https://agents.example.com"
        token-endpoint="/api/svc-token"
        agent-ids="agent_echo"
        show-thinking
        onsvc-turn-complete={(event) => setReply(event.detail.text)}
        style={{ height: 560 }}
      />
      <svc-markdown text={reply} throttle={30} />
    </>
  );
}

export function Wrong() {
  return (
    <>
      <svc-chat mode="sideways" />
      <svc-markdown throttle="fast" />
      <svc-chat onsvc-turn-complete={(event) => event.detail.missing} />
      <svc-chat colour="red" />
    </>
  );
}
