/**
 * The recorded market data a replay backtest reads: the row interface of an
 * md-recording/1 file (src/record/md-recording.ts reads the Arrow IPC
 * stream; this layer only needs its rows), and a small in-memory recording
 * built from frame objects, for tests, benchmarks and hand-made markets.
 *
 * A row is one frame received from the streaming interface (spec 4.4, 6):
 * `subscribed` (a depth channel's SNAPSHOT in `contents`), `data`
 * (`channel_data`: a Depth UPDATE, or an array of Perp/SpotExecutions),
 * `error`, or `gap` (the recorder lost frames; the next snapshot restores
 * the book).
 */
import type { MdRecording, MdRowKind } from "../record/md-recording.ts";

export type { MdRowKind };

/** The reader API of md-recording/1 (structural: the Arrow reader and `memoryRecording` both fit). */
export type MdRecordingLike = MdRecording;

/** One row of an in-memory recording: when it was received, and the frame object as sent. */
export interface MemoryRow {
  readonly recvMicros: number;
  readonly kind?: MdRowKind;
  readonly frame?: unknown;
}

const encoder = new TextEncoder();

/** A recording held in memory (frames as objects, serialized once). Rows must be in receive order. */
export function memoryRecording(rows: readonly MemoryRow[], source = "memory"): MdRecordingLike {
  const texts = rows.map((row) => (row.frame === undefined ? null : JSON.stringify(row.frame)));
  const channels: string[] = [];
  const channelOf = rows.map((row) => {
    const frame = row.frame as { channel?: unknown } | undefined;
    const channel = typeof frame?.channel === "string" ? frame.channel : null;
    if (channel !== null && !channels.includes(channel)) channels.push(channel);
    return channel;
  });
  rows.forEach((row, index) => {
    const previous = rows[index - 1];
    if (previous !== undefined && row.recvMicros < previous.recvMicros) {
      throw new RangeError(`rows[${index}].recvMicros "${row.recvMicros}" is before the previous row's "${previous.recvMicros}": rows must be in receive order`);
    }
  });
  const kindOf = (row: MemoryRow): MdRowKind => {
    if (row.kind !== undefined) return row.kind;
    const type = (row.frame as { type?: unknown } | undefined)?.type;
    return type === "subscribed" ? "subscribed" : type === "error" ? "error" : "data";
  };
  return {
    source,
    channels,
    startMicros: rows[0]?.recvMicros ?? 0,
    length: rows.length,
    recvMicros: (i) => rows[i]!.recvMicros,
    kind: (i) => kindOf(rows[i]!),
    channel: (i) => channelOf[i] ?? null,
    timestampMs: (i) => {
      const timestamp = (rows[i]!.frame as { timestamp?: unknown } | undefined)?.timestamp;
      return typeof timestamp === "number" ? timestamp : null;
    },
    frame: (i) => {
      const text = texts[i];
      return text === null || text === undefined ? null : encoder.encode(text);
    },
    frameText: (i) => texts[i] ?? null,
  };
}
