import '@svc/agent-sdk/elements';
import { createApp, ref } from 'vue';

const app = createApp({
  setup() {
    const replies = ref(0);
    return { replies };
  },
  template: `
    <p>Replies: {{ replies }}</p>
    <svc-chat
      token-endpoint="/svc-token"
      agent-ids="agent_echo"
      style="height: 480px"
      @svc-turn-complete="replies++"
    ></svc-chat>
  `,
});
// Vue leaves tags it is told are custom elements to the browser instead of resolving them as components.
app.config.compilerOptions.isCustomElement = (tag) => tag.startsWith('svc-');
app.mount('#app');
