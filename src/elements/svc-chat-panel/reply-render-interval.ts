/**
 * A streaming reply renders 30 times a second (every other frame at 60 Hz): each render costs the page a frame's
 * style, layout and paint however few characters it adds, and ten characters at a time read as smoothly as five
 * (docs/performance.md, paced streaming). The panel's update for the streamed text waits as long.
 */
export const REPLY_RENDER_INTERVAL_MS = 1000 / 30;
