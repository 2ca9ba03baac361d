import { expect, oneEvent } from '@open-wc/testing';
import { sendKeys } from '@web/test-runner-commands';
import type { SvcChat } from '../../src/elements/svc-chat/svc-chat.js';
import { until } from '../helpers/browser-service.js';
import { panelRoot } from '../helpers/chat-parts.js';
import { chat, idle, part, parts, typeAndSend, waitFor } from './helpers.js';

const transfer = (...files: File[]) => {
  const data = new DataTransfer();
  for (const file of files) data.items.add(file);
  return data;
};

/** Pastes files into `target`, as a visitor pasting an image from the clipboard. */
function paste(target: HTMLElement, clipboardData: DataTransfer): void {
  const event = new ClipboardEvent('paste', { clipboardData, bubbles: true, cancelable: true, composed: true });
  // Firefox's constructor keeps an empty DataTransfer of its own instead of the one given.
  Object.defineProperty(event, 'clipboardData', { value: clipboardData });
  target.dispatchEvent(event);
}

/** Drags files over the chat's panel and drops them, as a visitor would. */
function drop(el: SvcChat, ...files: File[]): void {
  const panel = part(el, 'panel')!;
  const dataTransfer = transfer(...files);
  panel.dispatchEvent(new DragEvent('dragover', { dataTransfer, bubbles: true, cancelable: true, composed: true }));
  panel.dispatchEvent(new DragEvent('drop', { dataTransfer, bubbles: true, cancelable: true, composed: true }));
}

/** A 1×1 PNG. */
const PNG = Uint8Array.from(
  atob('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=='),
  (c) => c.charCodeAt(0),
);

describe('<svc-chat> rich content', () => {
  it('uploads a dropped file, shows it above the input, and sends it as a part', async () => {
    const el = await chat({ agent: 'agent_echo' });
    drop(el, new File(['a,b\n1,2\n'], 'data.csv', { type: 'text/csv' }));
    const item = await waitFor<HTMLElement>(el, '[part~=attachment]', 'the attached file');
    expect(part(el, 'attachment-name')!.textContent).to.equal('data.csv');
    await until(() => item.classList.contains('ready'), 'the upload');
    expect(item.querySelector('[part~=upload-progress]')).to.equal(null);

    const complete = oneEvent(el, 'svc-turn-complete');
    typeAndSend(el, 'here is the data');
    expect((await complete).detail.text).to.equal('Echo: here is the data');
    expect(part(el, 'attachments')).to.equal(null);
    const chip = await waitFor<HTMLAnchorElement>(el, '[part~=message-user] [part~=file-chip]', 'the sent file');
    expect(chip.textContent!.trim()).to.equal('data.csv');
    expect(await (await fetch(chip.href)).text()).to.equal('a,b\n1,2\n');
  });

  it('attaches a pasted image with a thumbnail and can remove it again', async () => {
    const el = await chat({ agent: 'agent_echo' });
    const input = part(el, 'input')!;
    const clipboardData = transfer(new File([PNG], 'image.png', { type: 'image/png' }));
    paste(input, clipboardData);
    const preview = await waitFor<HTMLImageElement>(el, '[part~=attachment-preview]', 'the thumbnail');
    expect(preview.src).to.match(/^blob:/);
    await until(() => part(el, 'attachment')!.classList.contains('ready'), 'the upload');

    part<HTMLButtonElement>(el, 'remove-attachment')!.click();
    await el.updateComplete;
    expect(part(el, 'attachment')).to.equal(null);

    paste(input, clipboardData);
    await until(() => part(el, 'attachment')?.classList.contains('ready'), 'the second upload');
    // A message of attachments alone needs no text.
    part<HTMLFormElement>(el, 'composer')!.requestSubmit();
    const sent = await waitFor<HTMLImageElement>(el, '[part~=message-user] [part~=image]', 'the sent image');
    expect(sent.src).to.match(/\/api\/v2\/files\/f_/);
  });

  it('refuses files that are too large or of a kind not accepted, in plain words', async () => {
    const el = await chat({ agent: 'agent_echo', accept: 'image/*,.pdf' });
    drop(
      el,
      new File([new Uint8Array(21 * 1024 * 1024)], 'huge.png', { type: 'image/png' }),
      new File(['x'], 'notes.txt', { type: 'text/plain' }),
    );
    const error = await waitFor<HTMLElement>(el, '[part~=attachment-error]', 'the refusal');
    expect(error.textContent).to.equal(
      'huge.png is too large: files can be at most 20 MB. notes.txt is a kind of file this chat does not accept.',
    );
    expect(part(el, 'attachment')).to.equal(null);
  });

  it('downloads a file the agent made', async () => {
    const el = await chat();
    typeAndSend(el, '/file');
    const file = await waitFor<HTMLElement>(el, '[part~=file]', 'the agent files');
    await until(() => parts(el, 'file').length === 2, 'both files');
    expect(parts(el, 'file-name').map((n) => n.textContent)).to.deep.equal(['report.md', 'data.csv']);
    const links: HTMLAnchorElement[] = [];
    const capture = (e: Event) => {
      if (e.target instanceof HTMLAnchorElement && e.target.download) {
        // The test reads the file instead of letting the browser save it.
        e.preventDefault();
        links.push(e.target);
      }
    };
    document.addEventListener('click', capture, true);
    try {
      parts<HTMLButtonElement>(el, 'download-button')[0]!.click();
      const link = await until(() => links[0], 'the download');
      expect(link.download).to.equal('report.md');
      expect(link.href).to.match(/^blob:/);
      expect(await (await fetch(link.href)).text()).to.match(/^# Weekly report/);
      expect(file.querySelector('[part~=message-error]')).to.equal(null);
    } finally {
      document.removeEventListener('click', capture, true);
    }
  });

  it('reads a finished reply aloud, one at a time, with pause and resume', async () => {
    const el = await chat({ agent: 'agent_echo' });
    const complete = oneEvent(el, 'svc-turn-complete');
    typeAndSend(el, 'hello there');
    await complete;
    const button = await waitFor<HTMLButtonElement>(el, '[part~=read-aloud-button]', 'the read-aloud button');
    expect(button.getAttribute('aria-label')).to.equal('Read aloud');
    button.click();
    const audio = part<HTMLAudioElement>(el, 'audio')!;
    await until(() => audio.src.startsWith('blob:'), 'the speech');
    const blob = await (await fetch(audio.src)).blob();
    expect(blob.size).to.be.greaterThan(1000);
    expect(blob.type).to.equal('audio/wav');
    // Playing, or paused where the browser wants a gesture first: either way the button offers the next step.
    await until(() => button.dataset.state === 'playing' || button.dataset.state === 'paused', 'a state');
    if (button.dataset.state === 'playing') {
      button.click();
      await until(() => button.dataset.state === 'paused', 'paused');
    }
    expect(button.getAttribute('aria-label')).to.equal('Resume reading');
  });

  it('shows images inline and larger in a dialog that Escape closes', async () => {
    const el = await chat();
    typeAndSend(el, '/image');
    const open = await waitFor<HTMLButtonElement>(el, '[part~=image-button]', 'the image');
    open.focus();
    open.click();
    const dialog = await waitFor<HTMLDialogElement>(el, '[part~=lightbox]', 'the dialog');
    await until(() => dialog.open, 'the dialog to open');
    expect(part<HTMLImageElement>(el, 'lightbox-image')!.src).to.equal(part<HTMLImageElement>(el, 'image')!.src);
    await sendKeys({ press: 'Escape' });
    await until(() => !part(el, 'lightbox'), 'the dialog to close');
    expect(panelRoot(el).activeElement).to.equal(open);
  });

  it('shows tool calls compactly, hand-overs between agents, and thinking only when asked', async () => {
    const el = await chat({ showThinking: true });
    typeAndSend(el, '/tool');
    await until(() => parts(el, 'tool-call').length === 2, 'the tool calls');
    const tool = parts<HTMLDetailsElement>(el, 'tool-call')[0]!;
    expect(parts(el, 'tool-call').map((t) => t.querySelector('summary')!.textContent)).to.deep.equal([
      'Used get_weather',
      'Used list_events',
    ]);
    expect(tool.open).to.equal(false);
    expect(JSON.parse(tool.querySelector('pre')!.textContent!)).to.deep.equal({ city: 'Shanghai' });
    await idle(el);

    typeAndSend(el, '/delegate check the stock');
    const handover = await waitFor<HTMLElement>(el, '[part~=delegation]', 'the hand-over');
    expect(handover.textContent!.replace(/\s+/g, ' ').trim()).to.equal('Aria → Scout: check the stock');
    expect(handover.getAttribute('aria-label')).to.equal('Aria handed over to Scout: check the stock');
    await idle(el);

    typeAndSend(el, '/think');
    const thinking = await waitFor<HTMLDetailsElement>(el, '[part~=thinking]', 'the thoughts');
    expect(thinking.textContent).to.contain('Six times seven is 42');
    await idle(el);

    const plain = await chat();
    typeAndSend(plain, '/think');
    await until(() => part(plain, 'read-aloud-button'), 'the reply');
    expect(part(plain, 'thinking')).to.equal(null);
  });
});
