/** About 60 KB of markdown: the demo agent's long reply (headings, lists, code, a table) ten times over. */
export function longMarkdown(base: string, copies = 10): string {
  return Array.from({ length: copies }, (_, i) => base.replace(/^# (.*)$/m, `# $1 (part ${i + 1})`)).join('\n\n');
}

/** Splits text into pieces of 2 to 6 characters, as a model's tokens arrive: about 15,000 for 60 KB. */
export function tokens(text: string): string[] {
  const pieces: string[] = [];
  for (let i = 0, n = 0; i < text.length; n++) {
    const size = 2 + ((n * 7) % 5);
    pieces.push(text.slice(i, i + size));
    i += size;
  }
  return pieces;
}

const REPLIES = [
  'Sure. Here is **what changed** since your last visit:\n\n- the `billing` page loads faster\n- invoices can be exported as CSV\n\nAnything else?',
  'The order ships on *Monday*. You can follow it at [the tracking page](https://example.com/track).',
  '```js\nconst total = items.reduce((sum, item) => sum + item.price, 0);\n```\n\nThat sums the prices.',
  '| plan | price |\n| --- | --- |\n| basic | 5 |\n| pro | 12 |\n\nThe **pro** plan includes priority support.',
];

/** The long conversation of the history benchmarks, `messages / 2` turns of a question and a short markdown reply. */
export function historyTurns(messages: number): { question: string; reply: string }[] {
  return Array.from({ length: messages / 2 }, (_, i) => ({
    question: `Question number ${i + 1}: how does this work?`,
    reply: `${REPLIES[(i + 1) % REPLIES.length]}\n\n(reply ${i + 1})`,
  }));
}
