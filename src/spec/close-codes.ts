/**
 * WebSocket close codes of the streaming interface (spec 6.3). Updates from
 * the disconnected window are not replayed; clients rebuild from snapshots
 * (and from REST for positions and balances).
 */

/** Slow consumer: reconnect, re-subscribe, rebuild from the fresh snapshot. */
export const CLOSE_CODE_SLOW_CONSUMER = 1013;
/** Service restart or required feed resynchronization (replaces FEED_RESET): same action. */
export const CLOSE_CODE_RESYNC = 1012;
/** Server shutting down (rolling deploy, SHUTDOWN_DRAIN_MS drain): reconnect. */
export const CLOSE_CODE_GOING_AWAY = 1001;

export const STREAM_CLOSE_CODES = [CLOSE_CODE_SLOW_CONSUMER, CLOSE_CODE_RESYNC, CLOSE_CODE_GOING_AWAY] as const;
export type StreamCloseCode = (typeof STREAM_CLOSE_CODES)[number];
