export function unhashed(name: string): string;
export function scriptTagFiles(dist: string): Record<string, string>;
