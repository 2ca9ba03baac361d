/** Texts and generated files of the demo runtime (kept apart so demo.ts reads as the command list). */

export const COMMANDS = `- \`/markdown\`: a long formatted reply
- \`/slow N\`: streams for about N seconds (try the stop button)
- \`/tool\`: an answer that calls tools
- \`/form\`: a form that collects your details
- \`/suggest\`: a reply that offers follow-up replies to tap
- \`/connect NAME\`: connects a service with your own key
- \`/pay AMOUNT [SECONDS]\`: a payment card, in CNY
- \`/cart add ITEM [N]\`: adds to the cart of the page you chat on (its shop gives the chat a tool)
- \`/file [NAME]\`: files the agent writes for you (the report named NAME)
- \`/image\`: a picture
- \`/delegate [TASK]\`: hands a task to another agent
- \`/human [REASON]\`: asks a person from the team to join (they answer from the demo inbox, \`/inbox\`)
- \`/think\`: a reply with its reasoning (shown where the chat has \`show-thinking\`)
- \`/error\`: a reply that fails
- \`/help\`: this list`;

/** What \`/suggest\` offers: commands, since this agent answers commands (each shows something else). */
export const SUGGESTIONS = ['/think', '/markdown', '/help'];

export const HELP = `**Demo commands**\n\n${COMMANDS}`;

/** The answer to free text: short, since a visitor may type many; \`/help\` has the list. */
export const introduction = (agentName: string) =>
  `Hi, I'm ${agentName}, a demo agent: I answer commands, not free text. Type \`/help\` to see them.`;

/** About 6 KB of markdown with every construct the renderer handles. */
export const LONG_MARKDOWN = `# Embedding the chat widget

This reply is long on purpose: it arrives in many small pieces so you can watch the renderer keep up.
It holds **headings**, *emphasis*, \`inline code\`, lists, a fenced code block, a table, a quote and
[links](https://developer.mozilla.org/en-US/docs/Web/API/Web_components).

## 1. Add the script

The widget ships as one classic script that registers every element. Put it anywhere on the page:

\`\`\`html
<script src="https://cdn.example.com/svc-chat.js"></script>
<svc-chat base-url="https://agents.example.com" token-endpoint="/your-backend/svc-token"
  agent-ids="agent_aria"></svc-chat>
\`\`\`

If your site already bundles modules, import the elements instead:

\`\`\`ts
import '@svc/agent-sdk/elements';
import { SvcClient } from '@svc/agent-sdk';

const client = new SvcClient({ baseUrl: 'https://agents.example.com', apiKey: sessionToken });
const chat = document.querySelector('svc-chat')!;
chat.client = client;
chat.addEventListener('svc-turn-complete', (event) => {
  console.log('the agent said', event.detail.text);
});
\`\`\`

## 2. Sign your visitors in

Never put a workspace key in a browser. Your backend mints a **session token** for each visitor and
hands it to the page:

1. The visitor opens your page.
2. Your backend calls \`POST /workspaces/{slug}/members\` once per visitor (it is idempotent).
3. It then calls \`POST /workspaces/{slug}/sessions\` and returns the token to the page.
4. The page passes the token to the client; it lives in memory only.

> Tokens travel in the \`Authorization\` header and never in a URL, so they do not leak into logs,
> browser history or the \`Referer\` header.

## 3. What a reply can contain

| Kind | Raw type | Shown as |
| --- | --- | --- |
| Text | \`assistant\` | rendered markdown |
| Streamed text | \`assistant_delta\` | text that grows as it arrives |
| Tool call | \`tool_use\` block | a compact line with the tool name |
| Form | \`collect_info\` | a card with fields and a submit button |
| Connector | \`setup_connector\` | a card asking for your own API key |
| Payment | \`payment_gate\` | a card with the amount and a pay button |
| File | \`attachment\` | a download chip |
| End of turn | \`result\` | nothing, or an error banner |

Each record carries an \`id\`. A client that loses its connection reconnects with the last id it
**dispatched** and receives every later record exactly once: no gap, no duplicate.

## 4. Styling

The elements expose CSS custom properties and parts, so the host page decides the look:

- Colours: \`--svc-color-primary\`, \`--svc-color-bg\`, \`--svc-color-text\`, \`--svc-color-user-bubble\`
- Shape: \`--svc-radius-m\`, \`--svc-chat-radius\`
- Type: \`--svc-font-family\`, \`--svc-font-size\`
- Regions: \`::part(header)\`, \`::part(messages)\`, \`::part(composer)\`

A dark theme is one attribute, \`theme="dark"\` (or \`theme="auto"\` to follow the system), which sets every
colour so that text stays readable. Your brand colour on top of it is four lines:

\`\`\`css
svc-chat {
  --svc-color-primary: #2dd4bf;
  --svc-color-on-primary: #042f2e;
  --svc-color-user-bubble: #115e59;
  --svc-color-focus: #2dd4bf;
}
\`\`\`

## 5. Performance notes

Long replies are the common case, not the exception. The renderer follows three rules:

- **Deltas, not snapshots.** The service sends only the new text of each piece, so a reply of *n*
  characters costs *n* bytes on the wire, not *n²*.
- **Settled blocks are parsed once.** Only the unfinished tail of the markdown is parsed again when
  a piece arrives; finished paragraphs, lists and code blocks stay as they are.
- **One render per frame.** Pieces that arrive between two frames are drawn together.

Nested lists work too:

- Streaming
  - resumable from any cursor
  - heartbeats every fifteen seconds
- Cards
  - information collection
  - connector setup
  - payments
- History
  - paged by turns
  - virtualized when long

## 6. Security checklist

1. Sanitize every rendered reply (the widget uses DOMPurify on the final HTML).
2. Allow only \`https:\`, \`http:\` and \`mailto:\` links; each opens in a new tab with \`rel="noopener"\`.
3. Consider an image-host allowlist: an image URL can carry data out of the page.
4. Serve the widget under a Content Security Policy without \`unsafe-eval\` or inline scripts.

## 7. Frequently asked questions

### Can one conversation talk to several agents?

Yes. Send with several \`targetAgentIds\` and a coordinator runs each agent in turn. Every record
names the agent that wrote it, and one final \`result\` ends the turn.

### What happens when I press stop?

The service aborts the running reply within a fraction of a second. The text streamed so far is
kept as a complete message, then the turn ends with \`interrupted\`, and you can send again at once.

### What if the connection drops in the middle of a reply?

Nothing is lost. Records are stored before they are sent, and the client resumes from the last
record it dispatched. A record cut in half is simply read again.

### How long is history kept?

As long as the database holds it. The widget loads it page by page, newest first:

| Option | Default | Range |
| --- | --- | --- |
| \`turns\` | 10 | 1 to 100 |
| \`maxEntries\` | 200 | 1 to 500 |
| \`includeThinking\` | false | true or false |

### Which browsers are supported?

Every browser with custom elements and streaming \`fetch\`: current Chrome, Edge, Firefox and
Safari, on desktop and mobile. No polyfills are needed.

### What does an error look like?

Every failure has a readable message. A request error carries the HTTP status and the service's
\`detail\`; a reply that fails ends with a \`result\` whose \`subtype\` is \`error\`:

\`\`\`json
{ "type": "result", "subtype": "error", "is_error": true, "error": "This reply failed on purpose, to show what a failed reply looks like." }
\`\`\`

## 8. Learn more

- [Custom elements on MDN](https://developer.mozilla.org/en-US/docs/Web/API/Web_components/Using_custom_elements)
- [Server-sent events](https://html.spec.whatwg.org/multipage/server-sent-events.html)
- [Lit](https://lit.dev/docs/)

That's the end of the long reply. Try \`/slow 10\` and press stop halfway, or \`/form\` for a card.
`;

/** A small bar chart as SVG (the bytes of `/image`). */
export function chartSvg(values: number[]): string {
  const width = 40 * values.length + 20;
  const max = Math.max(...values);
  const bars = values
    .map((v, i) => {
      const h = Math.round((v / max) * 120);
      return `<rect x="${20 + i * 40}" y="${140 - h}" width="28" height="${h}" rx="4" fill="#4f46e5"/>`;
    })
    .join('');
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="160" viewBox="0 0 ${width} 160"><rect width="100%" height="100%" fill="#f8fafc"/>${bars}</svg>`;
}

export const REPORT_MD = `# Weekly report

- Conversations: 128 (+12%)
- Median reply time: 1.8 s
- Payments completed: 9

See \`data.csv\` for the numbers per day.
`;

export const DATA_CSV = `day,conversations,payments
Mon,14,1
Tue,19,2
Wed,22,1
Thu,25,3
Fri,21,1
Sat,15,0
Sun,12,1
`;

/** Words `/slow` streams, one every tick. */
export const SLOW_WORDS =
  'Streaming steadily so you can try the stop button. Each word is one delta, stored and published the moment it is written. '.split(
    ' ',
  );
