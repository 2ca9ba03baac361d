/**
 * What the process writes to stderr while `run` runs, kept off the terminal: a test service without a log
 * writes its failures (a 500 with its cause) there.
 */
export async function stderrOf(run: () => Promise<void>): Promise<string[]> {
  const written: string[] = [];
  const write = process.stderr.write;
  process.stderr.write = ((chunk: string | Uint8Array) => {
    written.push(String(chunk));
    return true;
  }) as typeof process.stderr.write;
  try {
    await run();
  } finally {
    process.stderr.write = write;
  }
  return written;
}
