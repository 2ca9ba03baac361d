/**
 * The editors' data for the elements, from `custom-elements.json` (run by `npm run build`, from the repository's
 * root): VS Code's custom HTML and CSS data (`dist/vscode.html-custom-data.json`, `dist/vscode.css-custom-data.json`)
 * and JetBrains' `dist/web-types.json`, which package.json names. Made by the maintained generators Shoelace's
 * author publishes for custom-element manifests.
 */
import { readFileSync } from 'node:fs';
import { generateJetBrainsWebTypes } from 'custom-element-jet-brains-integration';
import { generateVsCodeCustomElementData } from 'custom-element-vs-code-integration';

const manifest = JSON.parse(readFileSync('custom-elements.json', 'utf8'));
const common = { outdir: 'dist', hideLogs: true, hideMethodDocs: true };
generateVsCodeCustomElementData(manifest, {
  ...common,
  htmlFileName: 'vscode.html-custom-data.json',
  cssFileName: 'vscode.css-custom-data.json',
});
generateJetBrainsWebTypes(manifest, { ...common, webTypesFileName: 'web-types.json' });
