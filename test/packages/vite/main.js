import '@svc/agent-sdk/elements';

const chat = document.querySelector('svc-chat');
chat.addEventListener('svc-turn-complete', () => {
  document.title = 'replied';
});
