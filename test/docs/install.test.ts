import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import semver from 'semver';

/**
 * What the README promises about `npm install` holds for the locked dependencies: every one admits the
 * Node version the README names as the oldest (npm warns EBADENGINE otherwise), and every one with an install
 * script has a decision in `allowScripts` (npm warns "not yet covered by allowScripts" otherwise).
 */
const README = readFileSync('README.md', 'utf8');
const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as {
  allowScripts: Record<string, boolean>;
  engines: { node: string };
};
const lock = JSON.parse(readFileSync('package-lock.json', 'utf8')) as {
  packages: Record<string, { engines?: { node?: string } | string[]; hasInstallScript?: boolean; optional?: boolean }>;
};
/** `node_modules/a/node_modules/@b/c` → `@b/c` */
const nameOf = (path: string) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length);
const locked = Object.entries(lock.packages).filter(([path]) => path.startsWith('node_modules/'));

describe('npm install, as the README says', () => {
  const oldest = /^Node (\d+\.\d+) or newer/m.exec(README)?.[1];

  it('names the oldest Node it runs on', () => {
    assert.ok(oldest, 'the README says "Node X.Y or newer"');
  });

  it('states the same oldest Node in package.json, so npm warns whoever installs on an older one', () => {
    assert.equal(semver.minVersion(pkg.engines.node)?.version, semver.coerce(oldest)!.version);
  });

  it('installs no package whose engines exclude that Node', () => {
    const version = semver.coerce(oldest)!.version;
    const refusing = locked
      .map(([path, entry]) => [nameOf(path), Array.isArray(entry.engines) ? undefined : entry.engines?.node] as const)
      .filter(([, range]) => range && !semver.satisfies(version, range))
      .map(([name, range]) => `${name} wants node ${range}`);
    assert.deepEqual(refusing, []);
    // Control: the check refuses what npm refuses.
    assert.equal(semver.satisfies(version, '>=22'), false);
  });

  it('has an allowScripts decision for every package with an install script', () => {
    const withScripts = locked.filter(([, entry]) => entry.hasInstallScript).map(([path]) => nameOf(path));
    assert.ok(withScripts.includes('better-sqlite3'), 'install scripts are read from the lock');
    const undecided = withScripts.filter((name) => typeof pkg.allowScripts[name] !== 'boolean');
    assert.deepEqual(undecided, []);
  });
});
