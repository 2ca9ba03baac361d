#!/usr/bin/env node
/**
 * The size budgets of the script-tag files (docs/performance.md), gzipped at level 9 as a CDN serves
 * precompressed files: what a page loads before the launcher paints (the first load), each file, and the
 * complete widget (every file an English visitor loads). Fails when any is larger than its budget. Run after
 * `npm run build`.
 */
import { existsSync, readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { scriptTagFiles } from './script-tag-files.mjs';

/**
 * Bytes (1 KB = 1000 bytes, as Vite reports sizes). The first load and the complete widget have targets
 * (design.md: 8 KB and 70 KB), printed beside them; until they get there, the budgets hold each figure at its
 * current size, so that nothing grows unnoticed. Lower these numbers with every cut; they were raised once, by
 * 0.54 KB, when the launcher and the panel became one ES module graph and the panel a Lit element of its own
 * instead of the lent modules and a panel rendering into the launcher (docs/performance.md, issue 25); and by
 * 0.10 KB for issue 27: the launcher starts the markdown engine itself (+145 B), the streamed reply's boxes of
 * settled blocks (+74 B on the engine), the panel 114 B smaller (docs/performance.md, section 2 and start-up); and
 * for this round's features together (issues 26, 27, 29, 30: complete widget 80,754 B, docs/performance.md); and
 * by 217 B for a long reply followed up to its question (issue 29: panel 46,387 B, complete widget 80,962 B); and
 * for highlighted code (issue 30): the engine's glue that loads the highlighter (+225 B on the markdown engine)
 * and the token colours (+128 B on the panel); the highlighter itself is a file apart with its own budget; and
 * by 40 B for token requests that two chats of one page share (one visitor, not two: issue 29); and by 30 B for
 * following grown rows a frame later (no ResizeObserver loop error in Firefox); and by 320 B for suggested replies
 * (issue 30: reading them from a reply, the chat state's `suggestions`, the buttons under the last reply and their
 * label: panel 46,596 → 46,916 B, complete widget 81,403 → 81,723 B; the label +13 B in zh-CN, +16 B in ar);
 * and by 330 B for the outbox kept across a reload with `persist`, sent one message per finished reply (issue 29:
 * panel 47,240 B, complete widget 82,054 B); and for the SMS challenge step (issue 26): the step, its event and
 * property in the sign-in (+347 B on the panel), the chat's `sms-challenge` slot (+10 B on the launcher, +4 B more for the outbox's storage slot), its three
 * sentences (+97 B zh-CN, +118 B ar): panel 47,609 B, complete widget 82,437 B; and by 53 B on the panel for a failed
 * reply's reason shown as a sentence, capitalised with its final period (issue 29: panel 47,662 B, complete widget
 * 82,490 B); and by 191 B for the cards' parts reachable from the page as `card-…`, 44 px touch targets with
 * 16 px fields on phones and the avatars' edge (issues 29, 30): panel 47,853 B, complete widget 82,681 B; and by
 * 141 B for a long history page applied in slices, newest first (issue 27): panel 47,994 B, complete widget 82,822 B;
 * and by 10 B for a reply failed without a sentence said in the chat's language (issue 29): panel 48,004 B, complete
 * widget 82,832 B; and by 257 B for opening a long conversation without its rows around the view in the first
 * render (issue 27): the overscan grown after the paint and the list rendered from the end while the chat follows
 * it, shared empty lists in the message log (panel +148 B, 48,152 B), the engine warming itself up and the sanitizer
 * configured once (engine +95 B, 28,035 B), the launcher's call of the warm-up (+9 B, 6,683 B): complete widget
 * 83,089 B; and by 440 B for words added to the streamed reply's live tail in place (issue 27): markdown
 * engine 28,475 B, complete widget 83,529 B; and by 122 B for a message's fields kept in its snapshot only, not
 * beside it in the log's entry (issue 27, the heap of a long conversation): panel 48,274 B, complete widget 83,652 B;
 * and by 81 B for paced streaming and the launcher's start (issue 27): a streamed reply rendered at most 30 times a
 * second (`<svc-markdown throttle>`), its tail kept apart from its settled text, raw HTML told by its tokens (engine
 * +53 B, 28,533 B; panel +10 B with the caret's blink gone, 48,285 B), the launcher's loading state made when first
 * shown (+11 B, 6,696 B): complete widget 83,733 B; and by 132 B on the panel for a list held at a long reply's
 * question that stays there when the reply's tail shrinks (+74 B) and the image hosts worked out once, not at every
 * render (+58 B): panel 48,417 B, complete widget 83,865 B; and by 95 B on the panel for the panel's update held
 * to the reply's render rate while a reply only streams text (issue 27): panel 48,512 B, complete widget 83,960 B;
 * and by 115 B on the panel for a list that keeps its place when the virtual list renders other rows on its own,
 * and `svc-turn-complete` told once the chat shows the turn: panel 48,627 B, complete widget 84,075 B; and by 55 B
 * on the panel for a visitor who read on to the end of a card taller than the view kept there as rows above change
 * size, also once the virtual list renders the card's row again: panel 48,682 B, complete widget 84,130 B; and by
 * 47 B for the same code in another order once `src/elements/` had a folder per component (issue 42: the panel's
 * modules laid out in another order, +51 B; the launcher's, −4 B): panel 48,733 B, complete widget 84,177 B; and by
 * 8 B on the launcher for chunks named by their content's hash (issue 43: the four names it imports carry 9
 * characters of hash each, +40 B, of which 32 B were under the budget): launcher 6,704 B; and by 457 B for two
 * tricks gone (issue 42): the launcher's styles plain strings, no longer minified through a fake `css` tag (+438 B
 * on the launcher), and the panel's phone query imported from the launcher's module instead of copied by hand
 * (panel +21 B, launcher −2 B); and by 5 B for the chat's settings declared once, a mixin of the launcher and the
 * panel (issue 42: launcher +32 B, panel −27 B); and lowered by 18 B for the exported parts made from the
 * templates, their words in the templates' order (issue 42); and by 205 B for the panel's header, composer and SMS
 * form in modules of their own, to keep the panel under 400 lines (issue 42): launcher 7,165 B, panel 48,886 B,
 * complete widget 84,758 B (0.76 % over the 84,115 B main measured before issue 42's part C); and by 60 B on the
 * panel for a delete that failed said as such, its confirmation kept to try again (issue 41: the list's state says
 * what failed; the sentence in zh-CN 2,499 B and in ar 2,796 B; 52 B on its own, 8 B more merged with the above);
 * and by 153 B on the panel for the client's part of the page's tools (issue 45: `Conversation` declares them with
 * every send, regenerate and edit, and `answerClientTool`; the panel bundles the client's `Conversation`): panel
 * 49,099 B, complete widget 84,973 B, and the launcher 7,167 B (+2 B: the panel's new hash, in the name it imports);
 * and by 1,241 B on the panel for the chat's state as modules by job and scroll following as a state machine (issue
 * 42, part B: +1,222 B against main's build with part C and issue 41, 1.44 % where the issue allows 1 %,
 * docs/performance.md): panel 50,340 B, complete widget 86,211 B; and by 81 B on the panel for asking for a person
 * (issue 47: the chat client's `requestHandoff`, which "Talk to a person" calls, and the reserved tool name
 * `handoff`; the operators' client is not in the widget): panel 50,421 B, complete widget 86,292 B; lowered
 * by 57 B for our elements' `_` state properties renamed in the launcher and the panel (issue 42: −18 B and −80 B),
 * less the one reconnecting SSE reader (+38 B on the panel): launcher 7,149 B, panel 50,379 B, complete widget 86,235 B;
 * and by 381 B on the panel for what a visitor meets (issue 46, items 3-6, 8, 10: the outbox's note and a send
 * button while messages wait, a stream reconnecting for long said with a Retry, Copy's soft line breaks, a new rating
 * without the old reason, Retry in place): panel 50,760 B, complete widget 86,613 B; the note's sentence in ar 2,801 B; and by 273 B on the panel and
 * 32 B on the markdown engine for what a visitor meets (issue 46, items 1, 2, 7: every icon button's tooltip, the
 * icons' end tags the minifier used to eat, the list's previews as plain text (`plainText` in the engine) and the
 * jump button's rule): panel 51,033 B, markdown 28,565 B, complete widget 86,940 B; the preview's labels in ar 2,822 B;
 * and by 2,939 B for the classic tag's launcher from one request (issue 43): `svc-chat.js` is the launcher itself, a
 * classic script with its own copy of the modules it needs (7,084 B, where the loader and the module it imported were
 * 7,343 B in two requests in a row), and the panel it `import()`s, the same file the ES module launcher loads, has its
 * own copy of the launcher's modules it uses too (+3,197 B, 54,230 B: no module lending, design.md's Packaging); `svc-chat.esm.js`
 * no longer keeps exports for the panel (7,021 B): complete widget 89,879 B in three files;
 * and by 2,040 B on the panel for the tools the page gives the chat (issue 45: the tools controller, the calls'
 * state, running a call with its error sentences and retried answer, the row and its labels; the launcher has only
 * the `tools` setting, +5 B): panel 56,270 B, complete widget 91,924 B; the row's labels in zh-CN 2,565 B, ar 2,889 B;
 * and by 906 B on the panel for a person in the conversation, the visitor's side (issue 47: who answers from the
 * records and the history page, the status line, the badge, "Talk to a person" and its `handoff` setting, a person's
 * messages read out, three exported parts; the launcher +12 B for the setting; the six sentences in zh-CN 2,711 B and ar
 * 3,036 B): panel 57,176 B, complete widget 92,842 B. The staff's inbox, `svc-chat-inbox.js`, is a file of its own
 * with its own Lit that no visitor loads, counted apart with its own budget; and by −5 B on the panel for the
 * amounts written by one `cnyFormat` (issue 46), +2 B on each launcher for the panel's new hash in its name: panel
 * 57,171 B, complete widget 92,839 B; and by 95 B on the panel for terser's renaming of `_` state taken out again
 * (issue 42: a name renamed in one build and read in another would break, and bytes do not buy a build trick):
 * panel 57,266 B, complete widget 92,934 B; lowered by 17 B on the panel for one `.visually-hidden` rule that the
 * panel and the inbox share (+5 B on the panel, −13 B on the inbox) and the handoff view's badge and offer written
 * shorter (−22 B, issue 47): panel 57,249 B, complete widget 92,917 B, inbox 18,438 B; the page's `send()` brings its
 * message into view as the composer does (−3 B on the panel as it compresses; +4 B on the ES module launcher for
 * the panel's new hash in its name): panel 57,246 B, `svc-chat.esm.js` 7,038 B; and by 37 B on the panel for a
 * message written while the outbox is being sent: it waits for the reply to the one before it, not into a 409
 * (−3 B on the ES module launcher for the panel's new hash in its name): panel 57,283 B, `svc-chat.esm.js` 7,035 B,
 * complete widget 92,951 B.
 */
const BUDGETS = {
  'dist/svc-chat.js': 7_103,
  'dist/svc-chat.esm.js': 7_035,
  'dist/svc-chat-panel.js': 57_283,
  'dist/svc-chat-markdown.js': 28_565,
  // The code highlighter, loaded when a reply first has a code block (issue 30: at most 12 KB).
  'dist/svc-chat-highlight.js': 12_000,
  'dist/svc-chat-lang-zh-CN.js': 2_711,
  'dist/svc-chat-lang-ar.js': 3_036,
  // `<svc-inbox>` for the staff (issue 47), its own Lit, not in the visitor's widget; +33 B: a reply shown at once.
  'dist/svc-chat-inbox.js': 18_438,
};
/** The files the budgets name, as built: a chunk's name carries its content's hash (`svc-chat-panel.<hash>.js`). */
const BUILT = Object.fromEntries(Object.entries(scriptTagFiles('dist')).map(([name, file]) => [`dist/${name}`, file]));
/** The built file of a budget's name. */
const built = (file) => BUILT[file] ?? file;
/**
 * Before the launcher paints: the classic script, or the ES module, each with every file it imports statically (the
 * files of its `import` statements, not of its `import()` calls).
 */
const FIRST_LOAD = {
  'first load, classic script (svc-chat.js)': ['dist/svc-chat.js'],
  'first load, ES module (svc-chat.esm.js)': ['dist/svc-chat.esm.js'],
};
const FIRST_LOAD_TARGET = 8_000;
const COMPLETE_TARGET = 70_000;
const COMPLETE_BUDGET = 92_951;

const kb = (n) => `${(n / 1000).toFixed(2)} KB`;
const gzip = (file) => gzipSync(readFileSync(built(file)), { level: 9 }).length;
let failed = false;
const report = (name, size, budget, target) => {
  const over = size > budget;
  failed ||= over;
  const aim = target !== undefined && size > target ? `, ${kb(size - target)} above the ${kb(target)} target` : '';
  console.log(
    `size: ${name} ${kb(size)} gzip (budget ${kb(budget)}${aim})${over ? `: ${kb(size - budget)} OVER` : ''}`,
  );
};

for (const file of Object.keys(BUDGETS)) {
  if (!existsSync(built(file))) {
    console.error(`size: ${file} is missing; run \`npm run build\` first`);
    process.exit(1);
  }
}
/** `files` and every file they import statically, as minified ES modules write it (`from"./x.js"`, `import"./x.js"`). */
function withStaticImports(files) {
  const all = new Set(files);
  for (const file of all) {
    for (const [, name] of readFileSync(built(file), 'utf8').matchAll(/(?:from|import)\s*"\.\/([^"]+\.js)"/g))
      all.add(`dist/${name}`);
  }
  return [...all];
}
const sum = (files) => files.reduce((total, file) => total + gzip(file), 0);

for (const [name, files] of Object.entries(FIRST_LOAD)) {
  const loaded = withStaticImports(files);
  const budget = loaded.reduce((total, file) => total + (BUDGETS[file] ?? 0), 0);
  report(name, sum(loaded), budget, FIRST_LOAD_TARGET);
}
// Every file the classic script loads but the other languages' labels and the code highlighter (counted apart,
// loaded only for a reply with code): shared chunks too, whatever the bundler made. The ES module launcher is the
// classic script's twin, which a classic page never loads.
const APART = ['dist/svc-chat-highlight.js', 'dist/svc-chat-inbox.js'];
const widget = Object.keys(BUILT)
  .filter((file) => !file.startsWith('dist/svc-chat-lang-'))
  .filter((file) => !APART.includes(file) && file !== 'dist/svc-chat.esm.js');
for (const file of [...widget, 'dist/svc-chat.esm.js']) report(file, gzip(file), BUDGETS[file] ?? 0);
const complete = sum(widget);
report(
  `complete widget (${widget.length} files of the classic script, English)`,
  complete,
  COMPLETE_BUDGET,
  COMPLETE_TARGET,
);
for (const file of [...APART, 'dist/svc-chat-lang-zh-CN.js', 'dist/svc-chat-lang-ar.js']) {
  report(file, gzip(file), BUDGETS[file]);
  // The inbox is the staff's: no visitor loads it with the widget.
  if (file !== 'dist/svc-chat-inbox.js')
    console.log(`size: complete widget with ${file}: ${kb(complete + gzip(file))} gzip`);
}
process.exit(failed ? 1 : 0);
