/**
 * The `contents` of a subscription to a channel with a snapshot (spec 6.2):
 * ExchangeQueries.channelSnapshot (src/exchange/queries.ts, shared with the
 * simulator's in-process stream), behind the live server's fault.
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

export class SnapshotUnavailableError extends Error {
  override readonly name = "SnapshotUnavailableError";
}

/** The snapshot of the channel (kind, key); throws when it cannot be taken. */
export function takeSnapshot(context: LiveContext, kind: SnapshotChannelKind, key: string): unknown {
  if (context.exchange.faults.active("engineUnavailable", context.driver.now())) {
    throw new SnapshotUnavailableError("the engineUnavailable fault is active");
  }
  const contents = context.queries.channelSnapshot(kind, key);
  if (contents === undefined) throw new SnapshotUnavailableError(`symbol "${key}" has no depth stream`);
  return contents;
}
