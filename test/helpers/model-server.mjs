import { once } from 'node:events';
import { createServer } from 'node:http';

/**
 * A scripted OpenAI-compatible chat-completions server on a free loopback port: the stand-in for a hosted
 * model. It speaks the real wire format (SSE `chat.completion.chunk`s, tool-call argument fragments across
 * chunks, `finish_reason`, `data: [DONE]`, `{ error }` bodies, `retry-after`), and can cut a stream or stall.
 *
 * Each request takes the next scripted response (`script(...)`), or, when none is queued, asks `respond`
 * (by default {@link conversationalReply}). Every request is kept in `requests` with its body and headers.
 */
export async function startModelServer({ respond = conversationalReply } = {}) {
  const queue = [];
  const requests = [];
  const waiters = [];
  const server = createServer(async (req, res) => {
    let raw = '';
    for await (const chunk of req) raw += chunk;
    if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
      return sendError(res, { status: 404, error: { message: `no route ${req.method} ${req.url}` } });
    }
    const body = JSON.parse(raw);
    const request = { body, headers: req.headers, at: Date.now(), closed: undefined };
    request.closed = new Promise((resolve) => res.once('close', () => resolve(!res.writableFinished)));
    requests.push(request);
    for (const waiter of waiters.splice(0)) waiter(request);
    const step = queue.shift() ?? respond(body);
    if (step.status) return sendError(res, step);
    await stream(res, step);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    /** Queues responses, used in order by the next requests. */
    script(...steps) {
      queue.push(...steps);
    },
    /** Resolves with the `n`th request (1-based) once it has arrived. */
    request(n) {
      if (requests.length >= n) return Promise.resolve(requests[n - 1]);
      return new Promise((resolve) => {
        const check = () => (requests.length >= n ? resolve(requests[n - 1]) : waiters.push(check));
        waiters.push(check);
      });
    },
    async close() {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

let ids = 0;

function sendError(res, { status, headers = {}, error = { message: 'scripted error', type: 'server_error' } }) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify({ error }));
}

/** Streams one scripted step: text pieces, then tool calls in argument fragments, then the finish. */
async function stream(res, step) {
  const id = `chatcmpl-${++ids}`;
  const chunk = (delta, finish_reason = null) => {
    const body = { id, object: 'chat.completion.chunk', created: 1_700_000_000, model: 'scripted' };
    return `data: ${JSON.stringify({ ...body, choices: [{ index: 0, delta, finish_reason }] })}\n\n`;
  };
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  res.write(chunk({ role: 'assistant', content: '' }));
  const pieces = typeof step.text === 'string' ? [step.text] : (step.text ?? []);
  for (const piece of pieces) res.write(chunk({ content: piece }));
  if (step.cut) {
    // Lets the pieces leave before the connection drops in the middle of the reply.
    await new Promise((resolve) => res.write('', resolve));
    res.socket?.destroy();
    return;
  }
  if (step.stall) return; // Sends nothing more until the client gives up.
  if (step.hugeLine) {
    // One event whose data line never ends: `hugeLine` bytes of text, 64 KB at a time as the client takes them.
    const piece = 'x'.repeat(64 * 1024);
    res.write(`data: {"id":"${id}","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"`);
    for (let sent = 0; sent < step.hugeLine && !res.destroyed; sent += piece.length) {
      if (!res.write(piece)) {
        await new Promise((resolve) => {
          const done = () => {
            res.off('drain', done).off('close', done);
            resolve();
          };
          res.on('drain', done).on('close', done);
        });
      }
      step.sent = sent + piece.length;
    }
    res.end();
    return;
  }
  for (const [index, call] of (step.toolCalls ?? []).entries()) {
    const args = typeof call.arguments === 'string' ? [call.arguments] : call.arguments;
    const head = { index, id: `call_${ids}_${index}`, type: 'function', function: { name: call.name, arguments: '' } };
    res.write(chunk({ tool_calls: [head] }));
    for (const fragment of args) res.write(chunk({ tool_calls: [{ index, function: { arguments: fragment } }] }));
  }
  res.write(chunk({}, step.toolCalls?.length ? 'tool_calls' : (step.finish ?? 'stop')));
  res.end('data: [DONE]\n\n');
}

/** Splits text into `n` near-equal pieces. */
export function pieces(text, n = 3) {
  const size = Math.ceil(text.length / n);
  return Array.from({ length: Math.ceil(text.length / size) }, (_, i) => text.slice(i * size, (i + 1) * size));
}

/** The form the conversational reply shows when asked for one. */
const DEMO_FORM = {
  title: 'Book a demo',
  submitLabel: 'Send',
  fields: [
    { name: 'name', label: 'Name', type: 'text', required: true },
    { name: 'email', label: 'Email', type: 'email', required: true },
  ],
};

/**
 * What the scripted model says when no response is queued: thanks for a tool result, a form card when the
 * visitor asks for a form, a call of tool NAME with the JSON input that follows when the visitor writes
 * `use NAME {…}` (a page's tool: the service offers those the page declared), and otherwise `You said: <text>`, in
 * a few pieces.
 */
export function conversationalReply(body) {
  const last = body.messages.at(-1);
  if (last?.role === 'tool') return { text: pieces(`Thanks! I got this: ${last.content}`) };
  const text =
    typeof last?.content === 'string' ? last.content : (last?.content?.find((p) => p.type === 'text')?.text ?? '');
  const use = /^use (\S+) (\{.*\})$/.exec(text);
  if (use) return { text: [`Using ${use[1]}.`], toolCalls: [{ name: use[1], arguments: pieces(use[2]) }] };
  if (/\bform\b/i.test(text)) {
    return {
      text: ['Please fill in ', 'this form.'],
      toolCalls: [{ name: 'collect_info', arguments: pieces(JSON.stringify(DEMO_FORM), 4) }],
    };
  }
  return { text: pieces(`You said: ${text}`) };
}
