import { expect } from '@open-wc/testing';
import '../../src/elements/svc-chat/svc-chat.js';
import type { SvcChat } from '../../src/elements/svc-chat/svc-chat.js';
import { part } from '../cards/helpers.js';
import { mintVisitorSession, service } from '../helpers/browser-service.js';
import { inShadow, shadowRoots } from '../helpers/chat-parts.js';

/** A chat put on the page with `lang`, watched from before its first render: every placeholder it showed. */
async function placeholdersShown(lang: string): Promise<{ el: SvcChat; shown: string[] }> {
  const { url } = await service();
  const { token } = await mintVisitorSession();
  const el = document.createElement('svc-chat');
  Object.assign(el, { baseUrl: url, token, agentIds: 'agent_echo' });
  el.setAttribute('lang', lang);
  const shown: string[] = [];
  const watched = new Set<ShadowRoot>();
  // The chat's root, and its panel's once that has arrived.
  const watchRoots = () => {
    for (const root of shadowRoots(el)) {
      if (!watched.has(root)) watch.observe(root, { subtree: true, childList: true, attributes: true });
      watched.add(root);
    }
  };
  const watch = new MutationObserver(() => {
    watchRoots();
    const input = inShadow<HTMLTextAreaElement>(el, 'textarea');
    if (input && shown.at(-1) !== input.placeholder) shown.push(input.placeholder);
  });
  document.body.append(el);
  watchRoots();
  await el.updateComplete;
  watch.disconnect();
  return { el, shown };
}

describe('<svc-chat> languages', () => {
  // Each test file runs in a page of its own: here no language but English has loaded before this test.
  it('renders Chinese from its first frame: the labels load before the chat first renders', async () => {
    const { el, shown } = await placeholdersShown('zh-CN');
    try {
      expect(shown, 'every placeholder the field ever had').to.deep.equal(['输入消息…']);
      expect(part(el, 'panel')!.getAttribute('dir')).to.equal('ltr');
    } finally {
      el.remove();
    }
  });

  it('shows English for a language it does not have, laid out in that language’s direction', async () => {
    for (const [lang, dir] of [
      ['fr', 'ltr'],
      ['he', 'rtl'],
    ]) {
      const { el, shown } = await placeholdersShown(lang!);
      try {
        expect(shown).to.deep.equal(['Write a message…']);
        expect(part(el, 'panel')!.getAttribute('dir')).to.equal(dir);
      } finally {
        el.remove();
      }
    }
  });

  it('takes every label override over the language’s own', async () => {
    const { el } = await placeholdersShown('ar');
    try {
      el.labels = { send: 'أرسل الآن' };
      await el.updateComplete;
      expect(part(el, 'send-button')!.getAttribute('aria-label')).to.equal('أرسل الآن');
      expect(part<HTMLTextAreaElement>(el, 'input')!.placeholder).to.equal('اكتب رسالة…');
    } finally {
      el.remove();
    }
  });
});
