import './src/elements.js';

const chat = document.getElementById('chat') as HTMLElementTagNameMap['svc-chat'];
const form = document.getElementById('settings') as HTMLFormElement;

/** Applies the form to the chat: each change restarts it with the new settings. */
function apply() {
  const data = new FormData(form);
  const baseUrl = String(data.get('base-url'));
  chat.baseUrl = baseUrl;
  chat.agentIds = String(data.get('agent-ids'));
  chat.mode = data.get('mode') === 'launcher' ? 'launcher' : 'inline';
  chat.theme = (data.get('theme') as 'auto' | 'light' | 'dark') ?? 'auto';
  chat.lang = String(data.get('lang'));
  if (data.get('auth') === 'sms') {
    chat.tokenEndpoint = undefined;
    chat.signIn = 'sms';
    chat.workspace = 'demo';
  } else {
    chat.signIn = undefined;
    chat.tokenEndpoint = `${baseUrl}/demo/token`;
  }
}

form.addEventListener('change', apply);
apply();
