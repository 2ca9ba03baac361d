import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createElement } from 'react';
import { renderToString } from 'react-dom/server';
import { ChatBox, ChatWidget } from '../../src/react/components.js';

/** The `<svc-chat>` tag a server renders for these props. */
const served = (html: string) => /<svc-chat[^>]*>/.exec(html)?.[0] ?? '';

describe('ChatBox and ChatWidget rendered on a server (Next.js)', () => {
  it("write the chat's settings given as text or switched on as its attributes, by their attribute names", () => {
    const tag = served(
      renderToString(
        createElement(ChatBox, {
          baseUrl: 'http://127.0.0.1:8787',
          tokenEndpoint: '/api/svc-token',
          agentIds: 'agent_echo',
          showThinking: true,
          theme: 'dark',
          labels: { title: 'Help' },
          style: { height: 560 },
        }),
      ),
    );
    for (const attribute of [
      'base-url="http://127.0.0.1:8787"',
      'token-endpoint="/api/svc-token"',
      'agent-ids="agent_echo"',
      'show-thinking=""',
      'theme="dark"',
      'mode="inline"',
      'style="height:560px"',
    ]) {
      assert.ok(tag.includes(` ${attribute}`), `${attribute} in ${tag}`);
    }
    // A property with no attribute stays for the browser; the control: the tag was read at all.
    assert.ok(!tag.includes('labels') && !tag.includes('Help'), tag);
    assert.match(served(renderToString(createElement(ChatWidget, {}))), / mode="launcher"/);
  });
});
