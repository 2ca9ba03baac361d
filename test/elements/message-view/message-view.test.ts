import { expect } from '@open-wc/testing';
import { chat, idle, part, parts, typeAndSend } from '../../cards/helpers.js';
import { until } from '../../helpers/browser-service.js';

describe('message view', () => {
  it('renders the blocks of a reply in the order the agent produced them', async () => {
    const el = await chat({ showThinking: true });
    typeAndSend(el, '/tool');
    await until(() => parts(el, 'tool-call').length === 2, 'the tool calls');
    await idle(el);
    const [first] = parts(el, 'message-agent');
    const bubble = first!.querySelector('[part~=bubble]')!;
    expect(first!.querySelector('svc-markdown')!.shadowRoot!.textContent).to.contain('Let me check the weather');
    // "Let me check the weather…" introduces the tool calls: they come after it.
    for (const tool of first!.querySelectorAll('[part~=tool-call]')) {
      expect(bubble.compareDocumentPosition(tool) & Node.DOCUMENT_POSITION_FOLLOWING).to.not.equal(0);
    }
    typeAndSend(el, '/think');
    const thinking = await until(() => part(el, 'thinking'), 'the thoughts');
    await idle(el);
    const answer = thinking.closest('[part~=message-agent]')!.querySelector('[part~=bubble]')!;
    expect(thinking.compareDocumentPosition(answer) & Node.DOCUMENT_POSITION_FOLLOWING).to.not.equal(0);
  });

  it('names the agent in the status line, as its messages do', async () => {
    const el = await chat();
    typeAndSend(el, '/slow 3');
    const status = part(el, 'status')!;
    await until(() => status.textContent!.includes('Typing'), 'the agent typing');
    expect(status.textContent!.trim()).to.equal('Aria · Typing…');
    await idle(el);
  });

  it('lines up the download buttons of files one under the other', async () => {
    const el = await chat();
    typeAndSend(el, '/file');
    await until(() => parts(el, 'download-button').length === 2, 'the two files');
    const names = parts(el, 'file-name').map((n) => n.textContent);
    expect(names).to.deep.equal(['report.md', 'data.csv']);
    const [first, second] = parts(el, 'download-button').map((b) => b.getBoundingClientRect());
    expect(second!.right).to.equal(first!.right);
    expect(second!.left).to.equal(first!.left);
  });
});
