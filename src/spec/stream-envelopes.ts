/**
 * Streaming (info) envelopes (spec 4.4, 6.2, 7.5). The channel name is any
 * string at this level; parseChannel (channel-parse.ts) decides whether it
 * names a channel, so that the server can answer "Invalid channel name"
 * rather than "Invalid type". Payloads are typed per channel by CHANNELS
 * (channels.ts).
 */
import { z } from "zod";
import type { ChannelContentsOf, ChannelDataOf } from "./channels.ts";
import { UnsignedInteger } from "./scalars.ts";

/**
 * The optional `id` of a client frame: a bookkeeping marker that is never
 * echoed and whose uniqueness is not enforced (spec 4.4). The spec does not
 * give its type; shadowbook accepts a string or a number.
 */
export const StreamClientId = z.union([z.string(), z.number()]).meta({ id: "StreamClientId" });
export type StreamClientId = z.infer<typeof StreamClientId>;

/** The accepted `type` values of a client frame; others get "Invalid type" (spec 7.5). */
export const STREAM_CLIENT_TYPES = ["subscribe", "unsubscribe", "ping"] as const;
export type StreamClientType = (typeof STREAM_CLIENT_TYPES)[number];

export const StreamSubscribe = z
  .looseObject({ type: z.literal("subscribe"), channel: z.string(), id: StreamClientId.exactOptional() })
  .meta({ id: "StreamSubscribe" });
export type StreamSubscribe = z.infer<typeof StreamSubscribe>;

export const StreamUnsubscribe = z
  .looseObject({ type: z.literal("unsubscribe"), channel: z.string(), id: StreamClientId.exactOptional() })
  .meta({ id: "StreamUnsubscribe" });
export type StreamUnsubscribe = z.infer<typeof StreamUnsubscribe>;

/** Client ping of the streaming interface (spec 7.5 lists ping as an accepted type). */
export const StreamPing = z
  .looseObject({ type: z.literal("ping"), id: StreamClientId.exactOptional() })
  .meta({ id: "StreamPing" });
export type StreamPing = z.infer<typeof StreamPing>;

/** Every client frame of the streaming interface, discriminated by `type`. */
export const StreamClientFrame = z
  .discriminatedUnion("type", [StreamSubscribe, StreamUnsubscribe, StreamPing])
  .meta({ id: "StreamClientFrame" });
export type StreamClientFrame = z.infer<typeof StreamClientFrame>;

/**
 * Subscription confirmed. `contents` is present only for channels with an
 * initial snapshot (depth, orderChanges, transfers); its schema is
 * CHANNELS[kind].snapshot.
 */
export const StreamSubscribed = z
  .looseObject({ type: z.literal("subscribed"), channel: z.string(), contents: z.unknown().exactOptional() })
  .meta({ id: "StreamSubscribed" });
export type StreamSubscribed = z.infer<typeof StreamSubscribed>;

/** The `subscribed` frame of the channel named `Name`, its `contents` typed by the channel (ChannelContentsOf). */
export type ChannelSubscribed<Name extends string> = StreamSubscribed & { readonly contents?: DeepReadonly<ChannelContentsOf<Name>> };

export const StreamUnsubscribed = z
  .looseObject({ type: z.literal("unsubscribed"), channel: z.string() })
  .meta({ id: "StreamUnsubscribed" });
export type StreamUnsubscribed = z.infer<typeof StreamUnsubscribed>;

/** One message of a channel: `timestamp` in ms, `data` per CHANNELS[kind].data. */
export const StreamChannelData = z
  .looseObject({ type: z.literal("channel_data"), timestamp: UnsignedInteger, channel: z.string(), data: z.unknown() })
  .meta({ id: "StreamChannelData" });
export type StreamChannelData = z.infer<typeof StreamChannelData>;

/**
 * A `channel_data` message of the channel named `Name`, its `data` typed
 * by the channel (ChannelDataOf: `/v2/market/${string}/depth` carries a
 * Depth; a name known only at run time, `unknown`).
 */
export type ChannelMessage<Name extends string> = StreamChannelData & { readonly data: DeepReadonly<ChannelDataOf<Name>> };

/**
 * `T` read-only all the way down. A stream's messages and snapshots are
 * shared by every handler of the channel (the simulator deep-freezes them):
 * a handler reads them and copies what it keeps.
 */
export type DeepReadonly<T> = T extends readonly (infer E)[] ? readonly DeepReadonly<E>[] : T extends object ? { readonly [K in keyof T]: DeepReadonly<T[K]> } : T;

/**
 * Streaming error (spec 7.5); `channel` is present when the error is tied
 * to one. The messages are the STREAM_ERROR_* constants of errors.ts. The
 * connection stays open.
 */
export const StreamError = z
  .looseObject({ type: z.literal("error"), message: z.string(), channel: z.string().exactOptional() })
  .meta({ id: "StreamError" });
export type StreamError = z.infer<typeof StreamError>;

/**
 * Answer to a stream ping. The spec does not show it for the streaming
 * interface; shadowbook sends `{type: "pong"}` and, since client ids are
 * never echoed on this interface (spec 4.4), no id.
 */
export const StreamPong = z.looseObject({ type: z.literal("pong") }).meta({ id: "StreamPong" });
export type StreamPong = z.infer<typeof StreamPong>;

/** Every server frame of the streaming interface, discriminated by `type`. */
export const StreamServerFrame = z
  .discriminatedUnion("type", [StreamSubscribed, StreamUnsubscribed, StreamChannelData, StreamError, StreamPong])
  .meta({ id: "StreamServerFrame" });
export type StreamServerFrame = z.infer<typeof StreamServerFrame>;
