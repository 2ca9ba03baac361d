import { expect } from '@open-wc/testing';
import { chat, part, typeAndSend, waitFor } from '../../cards/helpers.js';
import { until } from '../../helpers/browser-service.js';

/** The alpha of a computed colour: `rgba(0, 0, 0, 0.8)` → 0.8, `rgb(…)` → 1. */
const alpha = (color: string) => Number(/rgba?\([^,]+,[^,]+,[^,]+,\s*([\d.]+)\)/.exec(color)?.[1] ?? 1);

describe('image viewer', () => {
  it('shows the image as large as the viewport allows, on a dark backdrop', async () => {
    const el = await chat();
    typeAndSend(el, '/image');
    const button = await waitFor<HTMLButtonElement>(el, '[part~=image-button]', 'the image');
    const inline = await until(() => {
      const image = part<HTMLImageElement>(el, 'image');
      return image?.complete && image.naturalWidth ? image : undefined;
    }, 'the inline image');
    button.click();
    const dialog = await waitFor<HTMLDialogElement>(el, '[part~=lightbox]', 'the dialog');
    const large = await until(() => {
      const image = part<HTMLImageElement>(el, 'lightbox-image');
      return dialog.open && image?.complete && image.naturalWidth ? image : undefined;
    }, 'the larger image');
    await new Promise((resolve) => requestAnimationFrame(resolve));
    const box = large.getBoundingClientRect();
    // It fills the viewport's width or its height (92 % and 88 % of them), whichever comes first.
    const fills = Math.max(box.width / (innerWidth * 0.92), box.height / (innerHeight * 0.88));
    expect(fills).to.be.closeTo(1, 0.02);
    expect(box.width).to.be.above(inline.getBoundingClientRect().width * 2);
    // Its proportions are kept.
    expect(box.width / box.height).to.be.closeTo(inline.naturalWidth / inline.naturalHeight, 0.02);
    expect(alpha(getComputedStyle(dialog, '::backdrop').backgroundColor)).to.be.at.least(0.85);
    dialog.close();
  });
});
