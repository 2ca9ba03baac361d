/**
 * The figures of issue 27's table, from one `npm run bench` run, beside the figure the issue started from and
 * its goal. Ratios are what count on a shared machine; absolute times are a record.
 */
import type { PacedFigures } from './render.js';

interface Results {
  size: { files: Record<string, { gzip: number }>; completeScriptTag?: { gzip: number }; deepChat: { gzip: number } };
  paced: Record<string, Record<string, PacedFigures> | string>;
  history: { mount: { longestTaskMs: number }; atEnd: { heapMb: number } };
  startup: Record<string, unknown>;
}

export interface GoalRow {
  figure: string;
  before: string;
  now: string;
  goal: string;
  met: boolean | undefined;
}

const fixed = (n: number | undefined, digits = 2) => (n === undefined || Number.isNaN(n) ? 'n/a' : n.toFixed(digits));

export function goalRows(results: Results): GoalRow[] {
  const ours = results.paced.svcChat as Record<string, PacedFigures> | undefined;
  const partial = results.paced.deepChatPartialRender as Record<string, PacedFigures> | undefined;
  const perSecond = (cells: Record<string, PacedFigures> | undefined, kb: number) =>
    cells?.[`${kb}KB`]?.mainThreadMsPerSecond;
  const growth60 = (perSecond(ours, 60) ?? Number.NaN) / (perSecond(ours, 6) ?? Number.NaN);
  const growth200 = (perSecond(ours, 200) ?? Number.NaN) / (perSecond(ours, 6) ?? Number.NaN);
  const versusPartial = (perSecond(ours, 60) ?? Number.NaN) / (perSecond(partial, 60) ?? Number.NaN);
  const frame6 = ours?.['6KB']?.mainThreadMsPerFrame;
  const phone = results.startup.mobile as { launcherVisibleMs?: number } | undefined;
  const phoneClick = results.startup['mobile, click at once'] as { clickToReadyWorstMs?: number } | undefined;
  const { files } = results.size;
  const firstLoad = (files['dist/svc-chat.js']?.gzip ?? 0) + (files['dist/svc-chat.esm.js']?.gzip ?? 0);
  const complete = results.size.completeScriptTag?.gzip ?? Number.NaN;
  const deepChat = results.size.deepChat.gzip;
  return [
    {
      figure: 'paced stream: main-thread ms per second at 60 KB ÷ at 6 KB (and 200 KB ÷ 6 KB)',
      before: '1.57–1.69',
      now: `${fixed(growth60)} (${fixed(growth200)})`,
      goal: '≤ 1.2, also at 200 KB',
      met: growth60 <= 1.2 && growth200 <= 1.2,
    },
    {
      figure: 'paced stream at 60 KB: ours ÷ deep-chat partialRender, main thread',
      before: '2.33–2.39',
      now: fixed(versusPartial),
      goal: '≤ 0.5',
      met: versusPartial <= 0.5,
    },
    {
      figure: 'paced stream: main thread per frame at 6 KB',
      before: '~9 ms',
      now: `${fixed(frame6)} ms`,
      goal: '≤ 3 ms',
      met: frame6 === undefined ? undefined : frame6 <= 3,
    },
    {
      figure: '5,000-message history: longest task; heap',
      before: '0.4–1.1 s; 8.3 MB',
      now: `${fixed(results.history.mount.longestTaskMs, 0)} ms; ${fixed(results.history.atEnd.heapMb, 1)} MB`,
      goal: '≤ 50 ms; ≤ 6 MB',
      met: results.history.mount.longestTaskMs <= 50 && results.history.atEnd.heapMb <= 6,
    },
    {
      figure: 'phone profile: worst-case click (as the launcher shows) → ready panel',
      before: '1.6 s',
      now: `${fixed(phoneClick?.clickToReadyWorstMs, 0)} ms`,
      goal: '≤ 0.6 s',
      met: phoneClick?.clickToReadyWorstMs === undefined ? undefined : phoneClick.clickToReadyWorstMs <= 600,
    },
    {
      figure: 'phone profile: launcher visible',
      before: '552 ms (quiet machine)',
      now: `${fixed(phone?.launcherVisibleMs, 0)} ms`,
      goal: '≤ 400 ms',
      met: phone?.launcherVisibleMs === undefined ? undefined : phone.launcherVisibleMs <= 400,
    },
    {
      figure: `first load; complete widget (deep-chat ${fixed(deepChat / 1000, 1)} KB in this run)`,
      before: '6.4 KB; 73.1 KB',
      now: `${fixed(firstLoad / 1000, 1)} KB; ${fixed(complete / 1000, 1)} KB (${fixed(complete / deepChat)}× deep-chat)`,
      goal: '≤ 8 KB; ≤ 0.7× deep-chat',
      met: firstLoad <= 8000 && complete <= 0.7 * deepChat,
    },
  ];
}

/** The rows as a table for the terminal. */
export function printGoals(rows: GoalRow[]): void {
  console.log("\nissue 27's figures (ratios from this run):");
  console.table(
    rows.map(({ figure, before, now, goal, met }) => ({
      figure,
      before,
      now,
      goal,
      met: met === undefined ? '?' : met ? 'yes' : 'no',
    })),
  );
}
