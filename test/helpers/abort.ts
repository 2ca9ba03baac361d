/**
 * A `fetch` for a client under test that aborts `controller` once a conversation's record stream has answered:
 * the caller is then waiting for records, the moment an abort is meant to end.
 */
export function abortOnceStreaming(controller: AbortController): typeof fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    const url = input instanceof Request ? input.url : String(input);
    if (/\/conversations\/[^/]+\/stream(?:\?|$)/.test(url)) controller.abort();
    return response;
  };
}
