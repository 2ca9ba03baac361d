import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { attributeTable, MARK } from '../../scripts/attribute-table.mjs';
import { LONG_MARKDOWN } from '../../server/runtimes/demo-content.js';
import { SvcChat } from '../../src/elements/svc-chat/svc-chat.js';
import { CARD_EXPORTS, PANEL_EXPORTS } from '../../src/elements/svc-chat-panel/exported-parts.js';
import { SvcChatPanel } from '../../src/elements/svc-chat-panel/svc-chat-panel.js';

/**
 * What the docs and the demo agent tell a site owner about the elements is what the elements have: checked
 * against `custom-elements.json`, which `npm run test:manifest` keeps equal to the source.
 */

interface Named {
  name: string;
}
interface Field extends Named {
  kind: string;
  attribute?: string;
  description?: string;
  default?: string;
  inheritedFrom?: Named;
}
interface ElementDeclaration {
  tagName?: string;
  customElement?: boolean;
  members?: Field[];
  attributes?: (Named & { fieldName?: string })[];
  events?: Named[];
  slots?: Named[];
  cssParts?: Named[];
  cssProperties?: Named[];
}
const manifest = JSON.parse(readFileSync('custom-elements.json', 'utf8')) as {
  modules: { declarations?: ElementDeclaration[] }[];
};
const elements = manifest.modules
  .flatMap((m) => m.declarations ?? [])
  .filter((d): d is ElementDeclaration & { tagName: string } => Boolean(d.customElement && d.tagName));
const element = (tag: string) => elements.find((e) => e.tagName === tag)!;
const names = (list: Named[] | undefined) => new Set((list ?? []).map((x) => x.name));

const DOC = readFileSync('docs/elements.md', 'utf8');

/** The part of docs/elements.md under the heading that names `<tag>`, to the next heading of its level or above. */
function section(tag: string): string {
  const lines = DOC.split('\n');
  const start = lines.findIndex((l) => /^#{2,3} /.test(l) && l.includes(`\`<${tag}>\``));
  assert.ok(start >= 0, `docs/elements.md has a heading for <${tag}>`);
  const level = /^#+/.exec(lines[start]!)![0].length;
  const end = lines.findIndex((l, i) => i > start && (/^#+ /.exec(l)?.[0].length ?? 99) - 1 <= level);
  return lines.slice(start, end < 0 ? undefined : end).join('\n');
}

describe('docs/elements.md', () => {
  it('names every element of custom-elements.json', () => {
    assert.ok(elements.length >= 6, `${elements.length} elements in the manifest`);
    for (const { tagName } of elements) section(tagName);
  });

  it("lists every attribute and event of each element in that element's section", () => {
    const missing: string[] = [];
    for (const el of elements) {
      const text = section(el.tagName);
      for (const { name } of [...(el.attributes ?? []), ...(el.events ?? [])]) {
        if (!text.includes(`\`${name}\``)) missing.push(`<${el.tagName}> ${name}`);
      }
    }
    assert.deepEqual(missing, []);
  });

  it("has a row in <svc-chat>'s attribute table for each of its attributes", () => {
    const rows = new Set([...section('svc-chat').matchAll(/^\| `([a-z-]+)` +\|/gm)].map((m) => m[1]));
    const missing = [...names(element('svc-chat').attributes)].filter((name) => !rows.has(name));
    assert.deepEqual(missing, []);
    // Control: the rows are read at all.
    assert.ok(rows.has('base-url') && rows.has('token-endpoint'));
  });
});

describe("<svc-chat>'s settings: the elements, the manifest and the docs agree", () => {
  const chat = element('svc-chat');
  const settings = (chat.members ?? []).filter(
    (m) => m.kind === 'field' && m.inheritedFrom?.name === 'ChatSettingsMixin',
  );

  it('docs/elements.md has the table of attributes and properties the manifest makes', () => {
    const table = attributeTable(manifest);
    assert.ok(table.includes('| `base-url`') && table.includes('| `tokenProvider`'), 'the table has rows');
    assert.ok(DOC.includes(`${MARK}\n${table}\n`), 'run `npm run manifest`');
  });

  it('<svc-chat> observes exactly the attributes of the manifest', () => {
    assert.deepEqual([...SvcChat.observedAttributes].sort(), (chat.attributes ?? []).map((a) => a.name).sort());
  });

  it("the panel has each of the chat's settings as a property, with the launcher's attribute", () => {
    assert.ok(settings.length >= 20, `${settings.length} settings read`);
    const panel = SvcChatPanel.elementProperties;
    const differ = settings.filter(({ name, attribute }) => {
      const declared = panel.get(name);
      return !declared || (declared.attribute === false ? undefined : (declared.attribute ?? name)) !== attribute;
    });
    assert.deepEqual(
      differ.map((s) => s.name),
      [],
    );
  });

  it("src/element-props.ts types each setting in JSX by its attribute and its property, with the mixin's JSDoc", () => {
    const props = readFileSync('src/element-props.ts', 'utf8');
    const chatProps = props.slice(
      props.indexOf("'svc-chat': {"),
      props.indexOf('\n  };', props.indexOf("'svc-chat': {")),
    );
    const key = (name: string) => (name.includes('-') ? `'${name}'` : name);
    const missing = settings.flatMap(({ name, attribute, description, default: value }) => {
      const names = [...(attribute ? [attribute] : []), ...(attribute === name ? [] : [name])];
      const said = (description ?? '').split('\n')[0]!;
      return names.filter(
        (prop) =>
          !chatProps.includes(`${key(prop)}?: SvcChat['${name}'];`) ||
          !chatProps.includes(said) ||
          (value !== undefined && !chatProps.includes(`@default ${value}`)),
      );
    });
    assert.deepEqual(missing, []);
  });
});

describe("the demo agent's /markdown advice", () => {
  const chat = element('svc-chat');

  it('names only custom properties, parts, attributes and events <svc-chat> has', () => {
    const used = {
      'custom property': [...LONG_MARKDOWN.matchAll(/--svc-[a-z-]+/g)].map((m) => m[0]),
      part: [...LONG_MARKDOWN.matchAll(/::part\(([a-z-]+)\)/g)].map((m) => m[1]!),
      attribute: [...LONG_MARKDOWN.matchAll(/<svc-chat([^>]*)>/g)].flatMap((m) =>
        [...m[1]!.matchAll(/([a-z-]+)=/g)].map((a) => a[1]!),
      ),
      event: [...LONG_MARKDOWN.matchAll(/addEventListener\('([a-z-]+)'/g)].map((m) => m[1]!),
    };
    const known = {
      'custom property': names(chat.cssProperties),
      part: names(chat.cssParts),
      attribute: names(chat.attributes),
      event: names(chat.events),
    };
    const unknown: string[] = [];
    for (const [kind, list] of Object.entries(used) as [keyof typeof used, string[]][]) {
      assert.ok(list.length > 0, `the advice names at least one ${kind}`);
      for (const name of list) if (!known[kind].has(name)) unknown.push(`${kind} ${name}`);
    }
    assert.deepEqual(unknown, []);
  });
});

describe("<svc-chat>'s parts in its panel", () => {
  /** The parts `<svc-chat-panel>` exports to the chat, made from its templates (`exported-parts.ts`). */
  const exported = new Set(PANEL_EXPORTS.split(','));
  /** The cards' parts, as a card inside the chat exports them (`name:card-name`). */
  const CARD_PARTS = CARD_EXPORTS.split(',').map((name) => name.split(':')[0]!);
  /** Every part named in a template of the files the panel renders with: `part="…"` and `part=${… ? '…' : '…'}`. */
  const rendered = new Set(
    [
      'svc-chat-panel/svc-chat-panel.ts',
      'svc-chat-panel/panel-header.ts',
      'svc-chat-panel/composer.ts',
      'svc-chat-panel/sms-session.ts',
      'message-view/message-view.ts',
      'svc-chat-panel/attachments.ts',
      'svc-chat-panel/announcer.ts',
      'svc-chat-panel/read-aloud.ts',
      'svc-chat-panel/image-viewer.ts',
      'svc-chat-panel/rich-content.ts',
      'conversation-list/conversation-list.ts',
    ].flatMap((file) => {
      const source = readFileSync(`src/elements/${file}`, 'utf8');
      return [...source.matchAll(/\bpart=(?:"([^"$]+)"|\$\{[^}]*\? '([^']+)' : '([^']+)'\})/g)].flatMap((m) =>
        m.slice(1).flatMap((names) => names?.split(' ') ?? []),
      );
    }),
  );

  it('exports every part its templates draw, so that svc-chat::part() reaches each', () => {
    assert.ok(rendered.has('input') && rendered.has('stop-button') && rendered.has('lightbox'), 'templates read');
    assert.deepEqual(
      [...rendered].filter((name) => !exported.has(name)),
      [],
    );
  });

  it('exports only parts docs/elements.md documents for <svc-chat> (its section, and "Parts added to <svc-chat>")', () => {
    const text = `${section('svc-chat')}\n${/^Parts added to `<svc-chat>`:[\s\S]*?\n\n/m.exec(DOC)?.[0]}`;
    assert.ok(exported.size > 40, `${exported.size} parts read`);
    assert.deepEqual(
      [...exported].filter((name) => !text.includes(`\`${name}\``)),
      [],
    );
  });

  it("exports every part of the cards' templates as card-…, each in <svc-chat>'s manifest and docs", () => {
    const drawn = new Set(
      ['svc-payment-gate.ts', 'svc-info-collect.ts', 'svc-connector-setup.ts'].flatMap((file) =>
        [...readFileSync(`src/cards/${file}`, 'utf8').matchAll(/\bpart="([^"$]+)"/g)].flatMap((m) => m[1]!.split(' ')),
      ),
    );
    assert.ok(drawn.has('amount') && drawn.has('toggle') && drawn.has('summary'), 'templates read');
    assert.deepEqual(
      [...drawn].filter((name) => !CARD_PARTS.includes(name)),
      [],
    );
    const chatParts = names(element('svc-chat').cssParts);
    assert.deepEqual(
      CARD_PARTS.map((name) => `card-${name}`).filter((name) => !chatParts.has(name) || !DOC.includes(`\`${name}\``)),
      [],
    );
  });
});
