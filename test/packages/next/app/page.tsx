import { ChatBox } from '@svc/agent-sdk/react';

/**
 * The chat on a page of its own, a server component. Next.js prerenders the page with the `<svc-chat>` tag in
 * it; `ChatBox` is a client component, so the element comes to life in the browser, and loads the rest of the
 * widget there.
 */
export default function SupportPage() {
  return (
    <main>
      <h1>Support</h1>
      <ChatBox
        baseUrl={process.env.NEXT_PUBLIC_SVC_URL}
        tokenEndpoint="/api/svc-token"
        agentIds="agent_echo"
        style={{ height: 560 }}
      />
    </main>
  );
}
