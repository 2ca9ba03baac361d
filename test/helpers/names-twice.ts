import { basename } from 'node:path';

/** The file names that stand at more than one of `paths`, each as its paths joined by "and". */
export function namesTwice(paths: string[]): string[] {
  const seen = new Map<string, string[]>();
  for (const path of paths) seen.set(basename(path), [...(seen.get(basename(path)) ?? []), path]);
  return [...seen.values()].filter((at) => at.length > 1).map((at) => at.join(' and '));
}
