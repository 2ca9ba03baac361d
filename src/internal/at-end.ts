/** Distance from the bottom under which a scrolling list counts as at its end, where a chat sits. */
const AT_END_PX = 48;

/**
 * Whether the reader is at the end of `list`: the one rule by which the chat follows new content and the
 * virtual list renders from the end.
 */
export const isAtEnd = (list: Element): boolean => list.scrollHeight - list.scrollTop - list.clientHeight < AT_END_PX;
