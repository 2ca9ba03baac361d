/**
 * Card answers (docs/protocol.md, reserved tool names): the `metadata` of the `toolAction` message that
 * answers a card, written by the helpers below and read back by {@link readCardAnswer}, in one place so the
 * two cannot drift apart.
 */
import type { UserRawEvent } from './record-types.js';

/** How the user answered an information-collection card. */
export interface InfoCollectAnswer {
  action: 'submit' | 'skip';
  values?: Record<string, unknown>;
}

/** The `metadata` of a `toolAction` message that answers an information-collection card. */
export function infoCollectSubmitMetadata(values: Record<string, unknown>, toolUseId?: string) {
  return { infoCollect: { action: 'submit' as const, values, ...(toolUseId ? { toolUseId } : {}) } };
}

/** The `metadata` of a `toolAction` message that skips an information-collection card. */
export function infoCollectSkipMetadata(toolUseId?: string) {
  return { infoCollect: { action: 'skip' as const, ...(toolUseId ? { toolUseId } : {}) } };
}

/** The `metadata` of a `toolAction` message saying the credentials a connector-setup card asked for are stored. */
export function connectorSetupMetadata(connectorTypeId: string, toolUseId?: string) {
  return { connectorSetup: { connectorTypeId, status: 'submitted' as const, ...(toolUseId ? { toolUseId } : {}) } };
}

/** A card answer carried by a `toolAction` user message; `at` is its record id. */
export type CardAnswer =
  | ({ kind: 'infoCollect'; at: string; toolUseId?: string } & InfoCollectAnswer)
  | { kind: 'connectorSetup'; at: string; toolUseId?: string; connectorTypeId: string };

/** The card answer in the `metadata` of a `toolAction` message (record `at`), if it holds one. */
export function readCardAnswer(raw: UserRawEvent, at: string): CardAnswer | undefined {
  const info = objectOr(raw.metadata?.infoCollect);
  if (info?.action === 'submit' || info?.action === 'skip') {
    return {
      kind: 'infoCollect',
      at,
      action: info.action,
      toolUseId: stringOr(info.toolUseId),
      values: objectOr(info.values),
    };
  }
  const setup = objectOr(raw.metadata?.connectorSetup);
  if (typeof setup?.connectorTypeId === 'string') {
    return { kind: 'connectorSetup', at, connectorTypeId: setup.connectorTypeId, toolUseId: stringOr(setup.toolUseId) };
  }
  return undefined;
}

function objectOr(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
}

function stringOr(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}
