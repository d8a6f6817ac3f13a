/**
 * The `contents` of a subscription to a channel with a snapshot (spec 6.2).
 *
 * - depth: the SNAPSHOT of the top-100 stream view (what later UPDATEs
 *   apply to), from the Exchange's depth stream, not a fresh REST view.
 * - orderChanges: `{data: open orders (no sequenceNumber),
 *   snapshotSequenceNumber}`, the cursor being the sequenceNumber of the
 *   latest order event: every later row is strictly above it.
 * - transfers: `{data}`, the wallet's newest TRANSFERS_SNAPSHOT_ENTRIES
 *   entries, newest first.
 *
 * Contiguity: the Exchange is synchronous and its outputs are published as
 * they happen, so a snapshot taken, and the subscription registered, in the
 * same turn miss no update and repeat none.
 *
 * A snapshot fails (spec 7.5 "Error while fetching snapshot from
 * {channel}") while the engineUnavailable fault is active: shadowbook's
 * way to let a client exercise its retry path.
 */
import type { SnapshotChannelKind } from "../spec/channels.ts";
import type { LiveContext } from "./server.ts";

/** Entries in the transfers snapshot (the REST listing's default page). */
export const TRANSFERS_SNAPSHOT_ENTRIES = 100;

export class SnapshotUnavailableError extends Error {
  override readonly name = "SnapshotUnavailableError";
}

/** The snapshot of the channel (kind, key); throws when it cannot be taken. */
export function takeSnapshot(context: LiveContext, kind: SnapshotChannelKind, key: string): unknown {
  if (context.exchange.faults.active("engineUnavailable", context.driver.now())) {
    throw new SnapshotUnavailableError("the engineUnavailable fault is active");
  }
  switch (kind) {
    case "marketDepth": {
      const depth = context.queries.depthStreamSnapshot(key);
      if (depth === undefined) throw new SnapshotUnavailableError(`symbol "${key}" has no depth stream`);
      return depth;
    }
    case "walletOrderChanges":
      return { data: context.queries.openOrders(key), snapshotSequenceNumber: context.exchange.lastOrderSequenceNumber };
    case "walletTransfers":
      return { data: context.queries.transfers(key, { limit: TRANSFERS_SNAPSHOT_ENTRIES }).data };
  }
}
