import { readClientToolAnswer } from '@svc/agent-sdk/protocol';
import { say, toolUse } from './demo-say.js';
import type { TurnInput, TurnIO } from './types.js';

/**
 * The demo agent and the tools a page gives the chat (docs/protocol.md "Tools the page gives the chat"):
 * `/cart add ITEM [N]` calls the page's `add_to_cart` (the demo page's shop declares it), and the turn after the
 * page answered says what it returned.
 */

/** The tool of the demo page's shop that `/cart add` calls. */
export const CART_TOOL = 'add_to_cart';

const CART_USAGE = 'Usage: `/cart add ITEM [N]`, e.g. `/cart add Tea 2`: the page you chat on adds it to its cart.';

/** `/cart add ITEM [N]`: asks the page to add N (default 1) of ITEM to its cart. */
export async function cart([verb, ...words]: string[], input: TurnInput, io: TurnIO): Promise<void> {
  const last = words.at(-1) ?? '';
  const quantity = words.length > 1 && /^[1-9]\d{0,2}$/.test(last) ? Number(words.pop()) : 1;
  const product = words.join(' ');
  if (verb !== 'add' || !product) return say(io, CART_USAGE);
  if (!input.clientTools.some((tool) => tool.name === CART_TOOL)) {
    return say(
      io,
      `This page gives me no \`${CART_TOOL}\` tool, so I cannot reach a cart here. The demo page's shop does.`,
    );
  }
  await say(io, `Adding ${quantity} × ${product} to your cart.`, {
    after: [{ ...toolUse(CART_TOOL, { product, quantity }), client: true }],
  });
}

/** The turn after the page answered a call: what the page returned (or why it could not), in one sentence. */
export function pageAnswered(input: TurnInput, io: TurnIO): Promise<void> | undefined {
  const answer = readClientToolAnswer({
    type: 'user',
    message: { role: 'user', content: [] },
    toolAction: input.toolAction,
    metadata: input.metadata,
  });
  if (!answer) return undefined;
  if ('error' in answer) return say(io, `The page could not do it: ${answer.error}`);
  return say(io, `Done. The page answered: \`${JSON.stringify(answer.output)}\``);
}
