import { load } from '/dist/svc-chat.esm.js';

const chat = document.getElementById('esm-chat');
const log = document.getElementById('events');

// The site's backend mints the visitor's session; the page only ever sees the session token.
chat.tokenProvider = async () => {
  const res = await fetch('/demo/token', { method: 'POST' });
  if (!res.ok) throw new Error(`token endpoint answered ${res.status}`);
  return res.json();
};

for (const name of ['svc-ready', 'svc-message-sent', 'svc-turn-complete', 'svc-error']) {
  chat.addEventListener(name, (event) => {
    const detail = JSON.stringify(event.detail ?? {}, null, 0).slice(0, 160);
    log.textContent = `${name} ${detail}\n${log.textContent}`.slice(0, 4000);
  });
}

// The rest of the widget (the conversation, the clients) loads apart; `load()` asks for it now.
const { ChatClient } = await load();
console.info('ChatClient is available for direct use:', typeof ChatClient);
