/**
 * Checks shared by the streaming conformance tests: frames against the
 * spec's envelope and channel schemas, and a client-side depth book that
 * applies a SNAPSHOT and UPDATEs the way spec 6.2 tells a client to.
 */
import { expect } from "vitest";
import { CHANNELS, type ChannelKind } from "../../../src/spec/channels.ts";
import { StreamChannelData, StreamServerFrame, StreamSubscribed } from "../../../src/spec/stream-envelopes.ts";
import type { Frame, StreamClient } from "./stream-client.ts";

/** Every frame the client received is a valid server frame of spec 4.4. */
export function expectValidFrames(client: StreamClient): void {
  for (const frame of client.received) {
    const parsed = StreamServerFrame.safeParse(frame);
    expect(parsed.success, `${JSON.stringify(frame).slice(0, 300)}: ${parsed.error?.message ?? ""}`).toBe(true);
  }
}

/** The subscribed answer of a channel: right envelope, contents present exactly for snapshot channels and valid. */
export function checkSubscribed(frame: Frame, kind: ChannelKind, channel: string): unknown {
  expect(frame.type, JSON.stringify(frame)).toBe("subscribed");
  StreamSubscribed.parse(frame);
  expect(frame["channel"]).toBe(channel);
  expect(frame).not.toHaveProperty("id");
  const snapshot = CHANNELS[kind].snapshot;
  if (snapshot === null) {
    expect(frame).not.toHaveProperty("contents");
    return undefined;
  }
  expect(frame).toHaveProperty("contents");
  const parsed = snapshot.safeParse(frame["contents"]);
  expect(parsed.success, parsed.error?.message).toBe(true);
  return frame["contents"];
}

/** A channel_data frame of `kind`: envelope and payload schema; returns the data. */
export function checkData(frame: Frame, kind: ChannelKind, channel: string): unknown {
  StreamChannelData.parse(frame);
  expect(frame["channel"]).toBe(channel);
  expect(Number.isSafeInteger(frame["timestamp"])).toBe(true);
  const parsed = CHANNELS[kind].data.safeParse(frame["data"]);
  expect(parsed.success, `${kind}: ${parsed.error?.message ?? ""} in ${JSON.stringify(frame["data"]).slice(0, 400)}`).toBe(true);
  return frame["data"];
}

export interface WireLevel {
  px: string;
  qty: string;
}

interface WireDepth {
  symbol: string;
  type: "SNAPSHOT" | "UPDATE";
  bids: WireLevel[];
  asks: WireLevel[];
  updatedAt: number;
}

/** What a client holds of the depth channel: levels by px, rebuilt in the spec's order. */
export class ClientBook {
  private readonly bids = new Map<string, string>();
  private readonly asks = new Map<string, string>();
  updates = 0;

  constructor(snapshot: WireDepth) {
    expect(snapshot.type).toBe("SNAPSHOT");
    for (const level of snapshot.bids) this.bids.set(level.px, level.qty);
    for (const level of snapshot.asks) this.asks.set(level.px, level.qty);
  }

  /** Applies an UPDATE: upsert by px, qty "0" removes. Checks that each listed level changed. */
  apply(update: WireDepth): void {
    expect(update.type).toBe("UPDATE");
    expect(update.bids.length + update.asks.length).toBeGreaterThan(0);
    this.updates++;
    for (const [levels, side] of [
      [update.bids, this.bids],
      [update.asks, this.asks],
    ] as const) {
      const seen = new Set<string>();
      for (const level of levels) {
        expect(seen.has(level.px), `px ${level.px} listed twice in one UPDATE`).toBe(false);
        seen.add(level.px);
        expect(side.get(level.px) ?? "0", `level ${level.px} is listed but did not change`).not.toBe(level.qty);
        if (level.qty === "0") side.delete(level.px);
        else side.set(level.px, level.qty);
      }
    }
  }

  view(): { bids: WireLevel[]; asks: WireLevel[] } {
    const sorted = (side: Map<string, string>, descending: boolean) =>
      [...side.entries()].map(([px, qty]) => ({ px, qty })).sort((a, b) => (Number(a.px) - Number(b.px)) * (descending ? -1 : 1));
    return { bids: sorted(this.bids, true), asks: sorted(this.asks, false) };
  }
}
