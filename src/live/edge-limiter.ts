/**
 * The network-edge limit of the REST surface (spec 8.4): a fixed window of
 * 60 s per source IP across the /v2 routes, 1,000 requests by default, then
 * HTTP 429 with no body until the window resets. The window starts at a
 * source's first request and resets at its end (fixed, not sliding: a burst
 * can meet a fresh window right after the reset, as at real edges).
 * WebSocket messages do not count; /admin and /health are exempt (the
 * server decides what to pass in).
 *
 * Memory and cost: every window also goes into a queue in the order the
 * windows started, which is the order they end (they all last windowMs).
 * Each request first drops the windows at the front of the queue that have
 * ended, so the limiter holds only the sources of live windows, and each
 * window is queued once and dropped once: O(1) amortized per request,
 * however many sources are live (a sweep of the whole map whenever more
 * than 100,000 sources were live cost every request ~1.5 ms: audit s21 D2).
 * A source's verdict depends on its own window alone, as before; a window
 * still in the map but ended is treated as absent either way. Should the
 * wall clock step back, windows started "later" sit behind the front until
 * it ends: dropping is delayed, never wrong.
 */
import { compactConsumed } from "../core/array-queue.ts";

export interface EdgeLimitConfig {
  requestsPerWindow: number;
  windowMs: number;
}

export const DEFAULT_EDGE_LIMIT: EdgeLimitConfig = { requestsPerWindow: 1_000, windowMs: 60_000 };

interface Window {
  readonly source: string;
  readonly startMs: number;
  count: number;
}

export class EdgeLimiter {
  private readonly windows = new Map<string, Window>();
  /** Every window since the last that was dropped, in start order, read from `head`. */
  private readonly started: Window[] = [];
  private head = 0;
  private expiryChecks = 0;

  constructor(private readonly config: EdgeLimitConfig = DEFAULT_EDGE_LIMIT) {}

  /** Counts one request from `source` at `nowMs`; false when it is over the limit (answer 429). */
  admit(source: string, nowMs: number): boolean {
    this.dropEnded(nowMs);
    let window = this.windows.get(source);
    if (window === undefined || nowMs >= window.startMs + this.config.windowMs) {
      window = { source, startMs: nowMs, count: 0 };
      this.windows.set(source, window);
      this.started.push(window);
    }
    window.count++;
    return window.count <= this.config.requestsPerWindow;
  }

  /** Sources with a window held (live, or ended and not dropped yet). */
  get sources(): number {
    return this.windows.size;
  }

  /** Windows looked at by the dropping of ended ones, in all (the work per request, for tests). */
  get expiryWork(): number {
    return this.expiryChecks;
  }

  /** Drops the windows at the front of the queue that have ended (a renewed source's old window leaves only the queue). */
  private dropEnded(nowMs: number): void {
    const started = this.started;
    let head = this.head;
    while (head < started.length) {
      const window = started[head]!;
      this.expiryChecks++;
      if (nowMs < window.startMs + this.config.windowMs) break;
      if (this.windows.get(window.source) === window) this.windows.delete(window.source);
      started[head++] = undefined as unknown as Window;
    }
    this.head = compactConsumed(started, head);
  }
}
