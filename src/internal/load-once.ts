/**
 * One load of a module that comes apart (a dynamic import), shared by every caller: `arrived` hears it once it
 * is here; after a failure (the file was not deployed next to the script, the network dropped), logged with
 * `failed`, the next caller tries again.
 */
export function loadOnce<T>(load: () => Promise<T>, failed: string, arrived: (module: T) => void): () => Promise<T> {
  let loading: Promise<T> | undefined;
  return () => {
    loading ??= load().then(
      (module) => {
        arrived(module);
        return module;
      },
      (error: unknown) => {
        console.error(failed, error);
        loading = undefined;
        throw error;
      },
    );
    return loading;
  };
}
