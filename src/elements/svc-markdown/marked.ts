import { Marked } from 'marked';

/** Our own marked instance (GFM is the default): configuring the global `marked` would change the host page's. */
export const markdown = new Marked({
  renderer: {
    // Task-list boxes as characters: the sanitizer removes every <input>.
    checkbox: ({ checked }) => (checked ? '☑ ' : '☐ '),
  },
});
