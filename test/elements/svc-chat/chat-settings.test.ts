import { expect, fixture, html } from '@open-wc/testing';
import type { ChatClient } from '../../../src/client/chat.js';
import { FakeChatApi } from '../../helpers/fake-chat-api.js';
import '../../../src/elements/svc-chat/svc-chat.js';

interface Field {
  kind: string;
  name: string;
  attribute?: string;
  type?: { text: string };
  inheritedFrom?: { name: string };
}

/** The chat's settings as custom-elements.json (what editors and the docs read) lists them on `<svc-chat>`. */
async function manifestSettings(): Promise<Field[]> {
  const manifest = (await (await fetch('/custom-elements.json')).json()) as {
    modules: { declarations?: { tagName?: string; members?: Field[] }[] }[];
  };
  const chat = manifest.modules.flatMap((m) => m.declarations ?? []).find((d) => d.tagName === 'svc-chat')!;
  return chat.members!.filter((m) => m.kind === 'field' && m.inheritedFrom?.name === 'ChatSettingsMixin');
}

/**
 * What a page writes in an attribute of this type, and the property's value from it: `true` from a boolean
 * attribute present, the last of a union of words (the first is the default where there is one), else a text.
 */
function attributeValue(attribute: string, type = ''): [string, unknown] {
  if (type === 'boolean') return ['', true];
  const word = [...type.matchAll(/'([^']+)'/g)].at(-1)?.[1];
  return word ? [word, word] : [`${attribute} value`, `${attribute} value`];
}

describe("<svc-chat>'s settings", () => {
  afterEach(() => {
    for (const storage of [localStorage, sessionStorage]) {
      for (const key of Object.keys(storage)) if (key.includes('persist value')) storage.removeItem(key);
    }
  });

  it('each attribute the manifest lists sets its property, and the panel gets every setting', async () => {
    const settings = await manifestSettings();
    expect(settings.map((s) => s.name)).to.include.members(['baseUrl', 'mode', 'persistSession', 'client', 'labels']);
    const el = document.createElement('svc-chat');
    const expected = new Map<string, unknown>();
    for (const { name, attribute, type } of settings) {
      if (attribute) {
        const [text, value] = attributeValue(attribute, type?.text);
        el.setAttribute(attribute, text);
        expected.set(name, value);
      } else {
        // A client with no network, so that the values above need no service; any other object as it is.
        const value = name === 'client' ? { chat: new FakeChatApi() as unknown as ChatClient } : {};
        (el as unknown as Record<string, unknown>)[name] = value;
        expected.set(name, value);
      }
    }
    expect(el.mode, 'a setting of words takes one other than its default').to.equal('launcher');
    const box = await fixture<HTMLDivElement>(html`<div style="height: 600px"></div>`);
    box.append(el);
    el.open();
    await el.updateComplete;
    const panel = el.shadowRoot!.querySelector('svc-chat-panel');
    expect(panel, 'the panel').to.exist;
    const chat = el as unknown as Record<string, unknown>;
    const got = panel as unknown as Record<string, unknown>;
    for (const [name, value] of expected) {
      expect(chat[name], `<svc-chat>'s ${name}`).to.equal(value);
      expect(got[name], `the panel's ${name}`).to.equal(value);
    }
    // What the visitor sees follows: the header's title is the `heading` handed to the panel.
    expect(panel!.shadowRoot!.querySelector('[part~=title]')?.textContent).to.equal('heading value');
  });
});
