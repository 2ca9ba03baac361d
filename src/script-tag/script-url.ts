/**
 * The classic script's own URL, where the files it loads are (`svc-chat-panel.<hash>.js`, …): read while the script
 * first runs, the only time `document.currentScript` names it (a classic script has no `import.meta.url`).
 */
export const scriptUrl = (document.currentScript as HTMLScriptElement).src;
