import type { MintOperatorSessionRequest, OperatorIdentity, OperatorSession } from '@svc/agent-sdk/protocol';
import { issueOperatorToken } from '../store/credential-rows.js';
import type { Db } from '../store/db.js';
import { identityOf, operatorById, upsertOperator } from '../store/operator-rows.js';
import type { WorkspaceRow } from '../store/workspace-rows.js';
import { Refusal } from './refusal.js';

/*
 * The workspace's staff (docs/protocol.md "A person in the conversation"): the site's backend signs a person in with
 * its workspace key, as it does a visitor, and gets a short-lived session token for the operators' routes alone.
 * The table is store/operator-rows.ts's; the rule is here.
 */

/**
 * A session token for the person the site calls `operator_ref` (made on the first sign-in, renamed by later ones),
 * living `ttl_seconds` (default 3600); none in a workspace whose staff do not take conversations (`operators_off`).
 */
export async function operatorSession(
  db: Db,
  workspace: WorkspaceRow,
  request: MintOperatorSessionRequest & { ttl_seconds: number },
): Promise<OperatorSession> {
  if (!workspace.operators) throw new Refusal('operators_off');
  const operator = await upsertOperator(db, workspace.id, request);
  return issueOperatorToken(db, operator.id, request.ttl_seconds);
}

/** An operator as records and the queue name it; undefined for an unknown id. */
export async function operatorIdentity(db: Db, operatorId: string): Promise<OperatorIdentity | undefined> {
  const row = await operatorById(db, operatorId);
  return row && identityOf(row);
}

/** An operator's identity from its columns (the queue reads them joined to its handoffs). */
export const operatorOf = (id: string, name: string, avatarUrl: string | null): OperatorIdentity =>
  identityOf({ id, display_name: name, avatar_url: avatarUrl });
