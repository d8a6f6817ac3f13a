/**
 * WebSocket order entry at `/exec` (spec 4.3): `{type, id, payload}`
 * requests answered by `{type, id, ok, payload | error}`, bodies identical
 * to REST; `ping` answered by `pong` with the id echoed; framing errors in
 * the top-level `{type: "error", id?, error}` envelope. The connection always
 * stays open (for frames within EXEC_FRAME_BYTES_MAX, 65 KiB: a larger frame
 * is closed with 1009 by the WebSocket layer, see there; so is a text frame
 * that is not valid UTF-8, with 1007, as RFC 6455 8.1 requires), and one
 * connection may carry many signers. Binary frames are read as UTF-8 text,
 * as on /ws. A request without `payload`, or whose payload nests deeper
 * than JSON_NESTING_MAX, is answered `{ok: false}` with
 * INPUT_VALIDATION_ERROR before the Exchange sees it (request-json.ts).
 *
 * A request is in flight from its frame until its answer is sent; answers
 * are produced on a later turn of the event loop, as a real service answers
 * asynchronously, so a client that reuses an id before its answer arrives
 * gets DUPLICATE_REQUEST_ID (and the original request is unaffected). A
 * response dropped by the dropResponses fault is never sent, but the request
 * happened.
 *
 * The exec queue: requests of every connection wait in one queue, in arrival
 * order, and are handed to the Exchange in that order. In signed mode a
 * request's signature may be worked on before its turn, off the main
 * thread, in either of two ways (neither can change an answer:
 * authenticate.ts); a request whose check is not back yet holds the ones
 * behind it, so the order never changes:
 * - with `signerThreads`, a frame that arrives behind a backlog
 *   (OFFLOAD_BACKLOG) has its signature recovered by a worker thread
 *   (signer-pool.ts);
 * - otherwise (`earlyConfirm`, the default), a frame whose signer has a comb
 *   table is validated as it is read and its signature checked on the
 *   add-on's confirmer thread (early-confirm.ts): ~25 µs less of the main
 *   thread per request.
 * Otherwise (trusted mode, the viem path, a signer without a table yet, no
 * expected signer, a request that does not validate) a request is ready at
 * once and the queue drains on the next turn.
 *
 * Writes: answers are written with the connections' sockets corked, and
 * uncorked every WRITE_EVERY requests and at the end of a drain, or for the
 * drains of signer-worker replies at the check phase of the turn: a few
 * answers per write (one syscall) rather than one, while the client still
 * gets its first answers before the whole queue is through (with a bounded
 * window per connection, holding every answer to the end of a long drain
 * would leave the client idle, then the server). Recoveries come back in
 * several small replies per turn; releasing after each reply's drain cost a
 * write per answer or two (test/bench/live.ts: the worker lost to inline
 * recovery), sharing the writes of a turn's replies made it win. Each such
 * batch is released through `driver.whenDurable`: when recording with sync
 * durability, once the group commit holding its requests is on disk
 * (answers keep their order; a request stays in flight until its answer is
 * written). Pongs and framing errors are not inputs and are answered at
 * once.
 *
 * Slow consumers: after every write (a pong or framing error, or a batch of
 * answers once uncorked), a connection whose unsent data passes
 * `slowConsumerBytes` (EXEC_SLOW_CONSUMER_BYTES_DEFAULT) is closed with
 * 1013 "slow consumer", the close code spec 6.3 gives the stream for the
 * same condition (liveness.ts isSlowConsumer, shared with /ws): a client
 * that sends and never reads would otherwise make the server hold every
 * answer. It is sent nothing more; requests it sent before it saw the close
 * still happen, their answers unsent (spec 4.3: a request whose response was
 * lost is verified through REST), and `ws` ends a peer that never answers
 * the close after its close timeout (30 s). Framing errors (spec 7.4) never
 * close a connection; this is about the client's reading, not its frames.
 */
import type { Duplex } from "node:stream";
import { WebSocketServer, type WebSocket } from "ws";
import { compactConsumed } from "../core/array-queue.ts";
import type { ExchangeAnswer } from "../exchange/exchange.ts";
import type { PrecomputedRecovery } from "../exchange/gateway/authenticate.ts";
import type { OrderEntryOperation } from "../spec/exec-envelopes.ts";
import { EarlyConfirm } from "./early-confirm.ts";
import { parseExecFrame } from "./exec-framing.ts";
import { frameText, JSON_NESTING_MAX, nestingMessage, nestsDeeperThan } from "./request-json.ts";
import { CLOSE_SLOW_CONSUMER, isSlowConsumer, SLOW_CONSUMER_REASON, watchLiveness } from "./liveness.ts";
import type { LiveContext, SocketSurface } from "./server.ts";
import { REST_BODY_LIMIT_BYTES } from "./rest.ts";
import { SignerPool } from "./signer-pool.ts";

/**
 * Protocol-level ping interval: keeps idle connections alive through
 * proxies, and a peer that leaves a ping unanswered for a whole interval is
 * terminated, as on the stream (liveness.ts). Its requests still in flight
 * are handled (they happened); their answers are not sent, and the
 * connection no longer counts in `connectionCount` or `closeIdle`.
 */
export const PROTOCOL_PING_MS = 30_000;

/**
 * Largest client frame accepted on /exec: the largest REST body,
 * REST_BODY_LIMIT_BYTES (64 KiB), and 1 KiB for the envelope around it
 * (type, id), since a request body is the same on both transports (spec
 * 4.2); an order-entry request is well under 1 KiB. The bound also bounds
 * the work a frame costs before it is refused: JSON.parse of a frame of
 * 90,000 one-digit members took ~110-180 ms of the main thread at the
 * former 1 MiB, against ~3.5 ms at this size. A frame up to this size is
 * read and, if it is not a valid envelope, answered with a framing error (MALFORMED_JSON) on a
 * connection that stays open (spec 7.4). A larger frame is never read: `ws`
 * closes the connection with 1009 (Message Too Big), the WebSocket
 * protocol's own answer to a frame an endpoint will not take (RFC 6455
 * 7.4.1). That is deliberate, not an envelope error: the frame is refused
 * at the protocol level before any envelope exists (buffering it to answer
 * MALFORMED_JSON would let any client make the server hold unbounded
 * input), so the "connection stays open" rule of spec 4.3 and 7.4 covers
 * frames within this limit. test/conformance/exec-paths.test.ts pins both
 * sides of the boundary.
 */
export const EXEC_FRAME_BYTES_MAX = REST_BODY_LIMIT_BYTES + 1024;

/**
 * Unsent bytes on an /exec connection before it is closed with 1013 as a
 * slow consumer (see the module comment): 2 MiB. At least the largest
 * frame, since one answer can be about as large as the frame it answers
 * (the id is echoed), so a client that reads is not cut by one large answer
 * in the socket's buffer. The backlog is checked after each write, and a
 * batch of answers is one write of at most WRITE_EVERY answers, so what the
 * server holds per connection stays within this plus WRITE_EVERY answers
 * (each about the size of its request's frame, EXEC_FRAME_BYTES_MAX at most).
 */
export const EXEC_SLOW_CONSUMER_BYTES_DEFAULT = 2 * 1024 * 1024;

export interface ExecSurfaceOptions {
  /**
   * Worker threads recovering signatures behind a backlog (signed mode
   * only); 0, the default here, starts none (signatures are then checked
   * early where they can be, else inline). `shadowbook serve` starts
   * defaultSignerThreads() (signer-pool.ts, with the figures): none when the
   * comb verifier is built; without it a worker took the main thread's CPU
   * per request from about 185 to about 95-130 µs, for more in total (the
   * worker re-validates each frame; messages).
   */
  signerThreads?: number;
  /**
   * Signed mode: start each frame's signature check as it is read, on the
   * add-on's confirmer thread, when its signer has a comb table
   * (early-confirm.ts). Default true; false checks every signature inline
   * in the gateway (for comparisons). Frames sent to a signer worker are
   * not checked early.
   */
  earlyConfirm?: boolean;
  /**
   * Protocol-level ping interval (default PROTOCOL_PING_MS). Not reachable
   * by clients: a test sets it low to see the pings, and a silent peer
   * terminated, without waiting 30 s.
   */
  pingIntervalMs?: number;
  /** Unsent bytes on a connection before it is closed with 1013 (default EXEC_SLOW_CONSUMER_BYTES_DEFAULT). */
  slowConsumerBytes?: number;
}

export interface ExecSurface extends SocketSurface {
  /** Requests whose signature was recovered by a worker (for tests and figures). */
  readonly recoveredOffThread: number;
  /** Requests whose signature the add-on's confirmer checked off the main thread, matching (for tests and figures). */
  readonly confirmedEarly: number;
  /** Whether a signer worker is ready (they start with the first connection). */
  readonly signerThreadsReady: boolean;
  /** Unsent answer bytes beyond which a connection is closed as a slow consumer. */
  readonly slowConsumerBytes: number;
}

interface Connection {
  readonly socket: WebSocket;
  readonly inFlight: Set<string>;
  /** The ws socket's underlying stream, corked during a drain (undefined if ws does not expose it). */
  readonly raw: Duplex | undefined;
  /** Unsent bytes beyond which the connection is a slow consumer. */
  readonly slowConsumerBytes: number;
  /** Written to in the current batch of answers (corked, when raw is known): its backlog is checked at the batch's end. */
  batched: boolean;
}

interface Pending {
  readonly connection: Connection;
  readonly type: OrderEntryOperation;
  readonly id: string;
  readonly payload: unknown;
  /** The frame text, for the signer workers. */
  readonly text: string;
  /** Why the transport refuses it before the Exchange (refusePayload), or null. */
  readonly refusal: string | null;
  ready: boolean;
  recovery: PrecomputedRecovery | undefined;
}

export function createExecSurface(context: LiveContext, options: ExecSurfaceOptions = {}): ExecSurface {
  const pingIntervalMs = options.pingIntervalMs ?? PROTOCOL_PING_MS;
  if (!(pingIntervalMs > 0)) throw new RangeError(`pingIntervalMs must be positive, got ${pingIntervalMs}`);
  const slowConsumerBytes = options.slowConsumerBytes ?? EXEC_SLOW_CONSUMER_BYTES_DEFAULT;
  if (!(Number.isSafeInteger(slowConsumerBytes) && slowConsumerBytes >= 0)) {
    throw new RangeError(`slowConsumerBytes must be a non-negative integer, got ${slowConsumerBytes}`);
  }
  const wss = new WebSocketServer({ noServer: true, maxPayload: EXEC_FRAME_BYTES_MAX });
  const connections = new Set<Connection>();
  const queue = new ExecQueue(context, options.signerThreads ?? 0, options.earlyConfirm ?? true);

  wss.on("connection", (socket: WebSocket) => {
    const connection: Connection = { socket, inFlight: new Set(), raw: rawStreamOf(socket), slowConsumerBytes, batched: false };
    connections.add(connection);
    queue.connected();
    watchLiveness(socket, pingIntervalMs);
    socket.on("close", () => connections.delete(connection));
    socket.on("error", () => socket.terminate());
    socket.on("message", (data) => queue.onFrame(connection, frameText(data)));
  });

  return {
    wss,
    slowConsumerBytes,
    get connectionCount() {
      return connections.size;
    },
    get recoveredOffThread() {
      return queue.recoveredOffThread;
    },
    get confirmedEarly() {
      return queue.confirmedEarly;
    },
    get signerThreadsReady() {
      return queue.signerThreadsReady;
    },
    closeIdle(code, reason) {
      for (const connection of connections) if (connection.inFlight.size === 0) connection.socket.close(code, reason);
    },
    closeAll(code, reason) {
      for (const connection of connections) {
        connection.socket.close(code, reason);
        // A peer that never answers the close must not hold the shutdown: cut it after 1 s.
        setTimeout(() => connection.socket.terminate(), 1_000).unref();
      }
    },
    dispose() {
      queue.close();
    },
  };
}

/**
 * The stream under a ws socket, to cork it around a batch of sends. ws does
 * not expose it publicly; without it every answer is its own write, as
 * before, so nothing but speed depends on it.
 */
function rawStreamOf(socket: WebSocket): Duplex | undefined {
  const raw = (socket as unknown as { _socket?: unknown })._socket;
  return typeof raw === "object" && raw !== null && typeof (raw as Duplex).cork === "function" ? (raw as Duplex) : undefined;
}

/**
 * Requests waiting (this one included) above which a frame's signature goes
 * to a signer worker rather than being recovered inline. A worker costs a
 * request a hop each way, and more CPU in all (it re-validates the frame):
 * worth it only when the main thread has a backlog to clear. Measured with
 * test/bench/live.ts on 2 cores, one worker: at 4 requests in flight per
 * connection, offloading every frame gave ~4,800/s at p99 12 ms, offloading
 * above this backlog ~5,600/s at p99 7-8 ms (inline: about the same); at 32
 * in flight, ~6,800-7,300/s either way (inline: ~5,000/s).
 */
const OFFLOAD_BACKLOG = 4;

/** Requests handled between two writes of the answers (a write per connection per WRITE_EVERY answers at most). */
export const WRITE_EVERY = 8;

/** Ends a batch of answers: uncorks its connections (one write each), then checks each one's backlog. */
function endBatch(batched: Connection[]): void {
  for (const connection of batched) {
    connection.batched = false;
    connection.raw?.uncork();
  }
  for (const connection of batched) checkBacklog(connection);
  batched.length = 0;
}

/** After a write: a backlog above the bound makes a slow consumer, closed with 1013 (it gets nothing more: sends need OPEN). */
function checkBacklog(connection: Connection): void {
  const socket = connection.socket;
  if (socket.readyState === socket.OPEN && isSlowConsumer(socket, connection.slowConsumerBytes)) socket.close(CLOSE_SLOW_CONSUMER, SLOW_CONSUMER_REASON);
}

function send(connection: Connection, frame: unknown): void {
  const socket = connection.socket;
  if (socket.readyState !== socket.OPEN) return;
  socket.send(JSON.stringify(frame));
  checkBacklog(connection);
}

class ExecQueue {
  private readonly items: Pending[] = [];
  private head = 0;
  private drainScheduled = false;
  /** Frames of this turn not yet sent to a signer worker. */
  private unsent: Pending[] = [];
  private flushScheduled = false;
  /** Answers produced and not yet released for writing (in request order). */
  private answers: Answer[] = [];
  private releaseScheduled = false;
  private readonly pool: SignerPool | undefined;
  private readonly early: EarlyConfirm | undefined;
  private closed = false;
  confirmedEarly = 0;

  constructor(
    private readonly context: LiveContext,
    signerThreads: number,
    earlyConfirm: boolean,
  ) {
    const exchange = context.exchange;
    if (exchange.config.gateway.verifySignatures && earlyConfirm) {
      this.early = new EarlyConfirm(exchange.validationContext, exchange.config.signing, (accountId) => exchange.gateway.likelySignerOf(accountId));
    }
    if (exchange.config.gateway.verifySignatures && signerThreads > 0) {
      this.pool = new SignerPool({
        threads: signerThreads,
        exchangeId: exchange.config.gateway.exchangeId,
        markets: [...exchange.marketsBySymbol.values()],
        signing: exchange.config.signing,
      });
    }
  }

  get recoveredOffThread(): number {
    return this.pool?.recovered ?? 0;
  }

  get signerThreadsReady(): boolean {
    return this.pool?.ready ?? false;
  }

  /** A connection opened: the workers start with the first one. */
  connected(): void {
    this.pool?.start();
  }

  /**
   * Closing (before the driver and its input log close): settles the
   * pool's batches, and hands every request still queued (waiting for its
   * drain, an early check, or a worker it was not sent to yet) to the
   * Exchange now, those not checked yet checked inline, so that none is
   * handled after the log closed. Frames read after this are dropped.
   */
  close(): void {
    this.closed = true;
    this.pool?.close();
    for (let i = this.head; i < this.items.length; i++) this.items[i]!.ready = true;
    if (this.head < this.items.length) this.drain(true);
  }

  onFrame(connection: Connection, text: string): void {
    // Closed (shutting down): `ws` still emits frames it had read while the connection closes; none reaches the Exchange after its input log closed.
    if (this.closed) return;
    const frame = parseExecFrame(text, connection.inFlight);
    switch (frame.kind) {
      case "ping":
        send(connection, frame.id === undefined ? { type: "pong" } : { type: "pong", id: frame.id });
        return;
      case "error":
        send(connection, {
          type: "error",
          ...(frame.id === undefined ? {} : { id: frame.id }),
          error: { error: frame.code, message: frame.message },
        });
        return;
      case "request": {
        connection.inFlight.add(frame.id);
        const refusal = refusePayload(frame.payload);
        const pending: Pending = { connection, type: frame.type, id: frame.id, payload: frame.payload, text, refusal, ready: true, recovery: undefined };
        this.items.push(pending);
        if (this.pool?.ready === true && this.items.length - this.head > OFFLOAD_BACKLOG) {
          pending.ready = false;
          this.unsent.push(pending);
          if (!this.flushScheduled) {
            this.flushScheduled = true;
            queueMicrotask(() => this.flushToWorkers());
          }
        } else {
          // Not ready while its early check is out; set before start(), so that an answer given at once would not be overwritten.
          pending.ready = false;
          const started = refusal === null && this.early?.start(frame.type, frame.payload, (recovery) => this.confirmed(pending, recovery)) === true;
          if (!started) {
            pending.ready = true;
            this.scheduleDrain();
          }
        }
        return;
      }
    }
  }

  /** A check started early is back (early-confirm.ts): the request is ready (unless close() made it ready already). */
  private confirmed(pending: Pending, recovery: PrecomputedRecovery | undefined): void {
    if (pending.ready) return;
    if (recovery !== undefined) this.confirmedEarly++;
    pending.recovery = recovery;
    pending.ready = true;
    this.scheduleDrain();
  }

  /** Sends the frames read since the last flush to a worker, as one batch. */
  private flushToWorkers(): void {
    this.flushScheduled = false;
    const batch = this.unsent;
    if (batch.length === 0) return;
    this.unsent = [];
    const submitted = this.pool?.submit(
      batch.map((pending) => pending.text),
      (offset, recoveries) => {
        for (let i = 0; i < recoveries.length; i++) {
          const pending = batch[offset + i]!;
          pending.recovery = recoveries[i];
          pending.ready = true;
        }
        this.drain(false);
      },
    );
    if (submitted !== true) {
      for (const pending of batch) pending.ready = true;
      this.scheduleDrain();
    }
  }

  private scheduleDrain(): void {
    if (this.drainScheduled) return;
    this.drainScheduled = true;
    setImmediate(() => {
      this.drainScheduled = false;
      this.drain(true);
    });
  }

  /**
   * Hands the ready requests at the head of the queue to the Exchange, in
   * order, and releases their answers every WRITE_EVERY requests: a client
   * gets its first answers while the later ones are being handled. The
   * last answers of a drain are released at once when it runs in the check
   * phase (`endOfTurn`: the drain scheduled by frames read), else on
   * setImmediate, so that the drains of the signer-worker replies read in
   * one poll phase share their writes (usually one write per connection per
   * turn, at most two, rather than one per reply). Answers stay in request
   * order either way: there is one list, released in order.
   */
  private drain(endOfTurn: boolean): void {
    try {
      while (this.head < this.items.length) {
        const pending = this.items[this.head]!;
        if (!pending.ready) break;
        this.items[this.head++] = undefined as unknown as Pending;
        this.answers.push(this.run(pending));
        if (this.answers.length === WRITE_EVERY) this.releaseAnswers();
      }
    } finally {
      this.head = compactConsumed(this.items, this.head);
      if (endOfTurn) this.releaseAnswers();
      else this.scheduleRelease();
    }
  }

  private scheduleRelease(): void {
    if (this.releaseScheduled || this.answers.length === 0) return;
    this.releaseScheduled = true;
    setImmediate(() => {
      this.releaseScheduled = false;
      this.releaseAnswers();
    });
  }

  /** Sends the answers so far once their requests are durable in the input log (at once without one, or with async durability). */
  private releaseAnswers(): void {
    const answers = this.answers;
    if (answers.length === 0) return;
    this.answers = [];
    this.context.driver.whenDurable(() => writeAnswers(answers));
  }

  private run(pending: Pending): Answer {
    const { connection, type, id, payload, recovery, refusal } = pending;
    if (refusal !== null) return { connection, id, frame: answerFrame(type, id, { ok: false, error: { error: "INPUT_VALIDATION_ERROR", message: refusal } }) };
    try {
      const input = { kind: "request", op: type, body: payload } as const;
      const answer = this.context.driver.handle(input, recovery);
      if (answer.responseDropped === true) return { connection, id, frame: undefined };
      return { connection, id, frame: answerFrame(type, id, answer) };
    } catch (error) {
      if (process.env["SHADOWBOOK_DEBUG"] !== undefined) console.error(error);
      return { connection, id, frame: JSON.stringify({ type: "error", id, error: { error: "INTERNAL", message: "internal failure handling the frame" } }) };
    }
  }
}

/**
 * The answer frame's text, the bytes `JSON.stringify({type, id, ok, payload | error})`
 * gives, without building that wrapper object: `type` is one of the five
 * operation names (plain ASCII, nothing to escape); `id` and the body are
 * stringified as they are.
 */
export function answerFrame(type: OrderEntryOperation, id: string, answer: ExchangeAnswer): string {
  return answer.ok
    ? `{"type":"${type}","id":${JSON.stringify(id)},"ok":true,"payload":${JSON.stringify(answer.payload)}}`
    : `{"type":"${type}","id":${JSON.stringify(id)},"ok":false,"error":${JSON.stringify(answer.error)}}`;
}

/** A request's answer frame, waiting to be written (undefined: dropped by the dropResponses fault). */
interface Answer {
  readonly connection: Connection;
  readonly id: string;
  readonly frame: string | undefined;
}

/**
 * Writes a batch of answers with their connections corked (one write per
 * connection), then checks each connection's backlog (slow consumers); their
 * ids are no longer in flight.
 */
function writeAnswers(answers: readonly Answer[]): void {
  const batched: Connection[] = [];
  try {
    for (const { connection, id, frame } of answers) {
      connection.inFlight.delete(id);
      const socket = connection.socket;
      if (frame === undefined || socket.readyState !== socket.OPEN) continue;
      if (!connection.batched) {
        connection.raw?.cork();
        connection.batched = true;
        batched.push(connection);
      }
      socket.send(frame);
    }
  } finally {
    endBatch(batched);
  }
}

/**
 * What the transport refuses before the Exchange sees a request, as REST
 * refuses a body that is not JSON: a frame without `payload` (the
 * operation's request body), or one nested beyond JSON_NESTING_MAX.
 */
function refusePayload(payload: unknown): string | null {
  if (payload === undefined) return "payload is required: the operation's request body, a JSON object";
  return nestsDeeperThan(payload, JSON_NESTING_MAX) ? nestingMessage("payload") : null;
}
