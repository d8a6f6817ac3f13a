/**
 * The network-edge limit of the REST surface (spec 8.4): a fixed window of
 * 60 s per source IP across the /v2 routes, 1,000 requests by default, then
 * HTTP 429 with no body until the window resets. The window starts at a
 * source's first request and resets at its end (fixed, not sliding: a burst
 * can meet a fresh window right after the reset, as at real edges).
 * WebSocket messages do not count; /admin and /health are exempt (the
 * server decides what to pass in).
 */
export interface EdgeLimitConfig {
  requestsPerWindow: number;
  windowMs: number;
}

export const DEFAULT_EDGE_LIMIT: EdgeLimitConfig = { requestsPerWindow: 1_000, windowMs: 60_000 };

interface Window {
  startMs: number;
  count: number;
}

export class EdgeLimiter {
  private readonly windows = new Map<string, Window>();

  constructor(private readonly config: EdgeLimitConfig = DEFAULT_EDGE_LIMIT) {}

  /** Counts one request from `source` at `nowMs`; false when it is over the limit (answer 429). */
  admit(source: string, nowMs: number): boolean {
    let window = this.windows.get(source);
    if (window === undefined || nowMs >= window.startMs + this.config.windowMs) {
      window = { startMs: nowMs, count: 0 };
      this.windows.set(source, window);
    }
    window.count++;
    if (this.windows.size > 100_000) this.forgetExpired(nowMs);
    return window.count <= this.config.requestsPerWindow;
  }

  /** Drops finished windows so that many distinct sources cannot grow the map without bound. */
  private forgetExpired(nowMs: number): void {
    for (const [source, window] of this.windows) {
      if (nowMs >= window.startMs + this.config.windowMs) this.windows.delete(source);
    }
  }
}
