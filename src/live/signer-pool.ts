/**
 * Signature recovery off the main thread, for WebSocket order entry.
 *
 * Recovering an EIP-712 signer (libsecp256k1 ecdsaRecover and four keccak
 * hashes) is the largest single cost of a signed request. The Exchange must
 * stay one synchronous, deterministic state machine on one thread, so only
 * the recovery moves: a frame's signature is recovered in a worker thread
 * while the frame waits in the exec queue (exec.ts), and the Exchange then
 * handles the requests in arrival order, each with its recovery handed to
 * the gateway (OrderGateway.withRecovery).
 *
 * Why the answers cannot change (authenticate.ts): recovery is a pure
 * function of (kind, message, signature, signing config) on a given
 * verification path. The worker sends back all five with the result; the
 * gateway builds the message from its own validation and uses the result
 * only when all of them are equal, field by field; otherwise it recovers
 * inline. The Exchange's inputs are the same requests in the same order,
 * the input log holds only those, and a replay (which recovers inline)
 * gives the same outputs, byte for byte. The workers only save time: a
 * worker that is not ready yet, has failed, or validated differently means
 * an inline recovery, never a different answer.
 *
 * How many `serve` starts: defaultSignerThreads. Workers start lazily (at
 * the first exec connection), load the TypeScript sources through tsx's ESM
 * API, and are unref'd: they never keep the process alive. Batches go round robin, one message per batch; the
 * recoveries come back in small chunks, in order.
 */
import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import type { PrecomputedRecovery } from "../exchange/gateway/authenticate.ts";
import type { MarketRef } from "../exchange/gateway/validate/types.ts";
import type { SigningConfig } from "../signing/domain.ts";
import { COMB_VERIFIER } from "../signing/known-signers.ts";
import type { RecoveryBatch, SignerWorkerData, WorkerRecovery, WorkerReply } from "./signer-worker.ts";

/**
 * Called with the recoveries of frames `offset`, `offset + 1`, ... of a
 * batch (a recovery, or undefined: recover inline), in order, until every
 * frame of the batch has had its entry.
 */
export type RecoveryCallback = (offset: number, recoveries: readonly (PrecomputedRecovery | undefined)[]) => void;

interface PendingBatch {
  readonly size: number;
  /** Frames of the batch answered so far (replies come in order). */
  answered: number;
  readonly done: RecoveryCallback;
}

interface PoolWorker {
  readonly worker: Worker;
  ready: boolean;
  dead: boolean;
  readonly pending: Map<number, PendingBatch>;
}

export interface SignerPoolOptions {
  threads: number;
  exchangeId: number;
  markets: readonly MarketRef[];
  signing: SigningConfig;
}

/**
 * The signer threads `shadowbook serve` starts by default.
 *
 * With the comb verifier (known-signers.ts): none. A signer seen before is
 * then checked in ~22 µs (since session 19 on the add-on's own thread,
 * early-confirm.ts), less than a frame's round trip to a worker costs, and
 * test/bench/live.ts on 2 cores measured the check inline against one
 * worker (2026-11-27): 12,580 answered orders per second against
 * 8,200-8,600 closed loop, and at 5,000 per second paced a p99 of 6.1-8.9
 * ms in four runs against 11.4-14.5 ms in two (main thread ~125-136 µs per
 * request against ~133-139 µs, the server in all ~131-140 against
 * ~180-187). Workers still pay where most signers sign too rarely to get a
 * table: `serve --signer-threads N`.
 *
 * Without it: one per core beyond the main thread's, at most 4, none on a
 * single core. With answers written once per event-loop turn (exec.ts),
 * test/bench/live.ts on 2 cores measured one worker at about 7,000 answered
 * orders per second against about 5,000 inline, and only the worker kept up
 * with 5,000 per second arriving at a steady pace (inline, the main
 * thread's ~185 us per request left it behind).
 */
export function defaultSignerThreads(): number {
  if (COMB_VERIFIER !== null) return 0;
  return Math.max(0, Math.min(4, availableParallelism() - 1));
}

/** How the worker module is loaded: tsx's ESM API registered in the worker, then the TypeScript entry imported. */
function bootstrapSource(): string | undefined {
  let api: string;
  try {
    api = import.meta.resolve("tsx/esm/api");
  } catch {
    return undefined;
  }
  const entry = new URL("./signer-worker.ts", import.meta.url).href;
  return `import(${JSON.stringify(api)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry)}); });`;
}

export class SignerPool {
  private readonly workers: PoolWorker[] = [];
  private next = 0;
  private batchSeq = 0;
  private closed = false;
  private started = false;
  /** Frames recovered off-thread (for tests and figures). */
  recovered = 0;

  constructor(private readonly options: SignerPoolOptions) {}

  /** Starts the workers (idempotent); until one is ready, `submit` declines. */
  start(): void {
    if (this.started || this.closed) return;
    this.started = true;
    const source = bootstrapSource();
    if (source === undefined) return;
    const workerData: SignerWorkerData = { exchangeId: this.options.exchangeId, markets: this.options.markets, signing: this.options.signing };
    for (let i = 0; i < this.options.threads; i++) {
      let worker: Worker;
      try {
        worker = new Worker(source, { eval: true, workerData, execArgv: [], stdout: false, stderr: false });
      } catch {
        return;
      }
      const entry: PoolWorker = { worker, ready: false, dead: false, pending: new Map() };
      worker.unref();
      worker.on("message", (reply: WorkerReply) => this.onReply(entry, reply));
      worker.on("error", () => this.retire(entry));
      worker.on("exit", () => this.retire(entry));
      this.workers.push(entry);
    }
  }

  /** Whether some worker can take a batch now. */
  get ready(): boolean {
    return this.workers.some((w) => w.ready && !w.dead);
  }

  /**
   * Sends a batch of exec frames (their text as received) to a worker;
   * `done` gets their recoveries in order, in chunks. Returns false (and
   * never calls `done`) when no worker is ready: recover inline.
   */
  submit(frames: readonly string[], done: RecoveryCallback): boolean {
    if (this.closed || frames.length === 0) return false;
    const count = this.workers.length;
    for (let i = 0; i < count; i++) {
      const entry = this.workers[(this.next + i) % count]!;
      if (!entry.ready || entry.dead) continue;
      this.next = (this.next + i + 1) % count;
      const batch = ++this.batchSeq;
      entry.pending.set(batch, { size: frames.length, answered: 0, done });
      try {
        entry.worker.postMessage({ batch, frames } satisfies RecoveryBatch);
      } catch {
        entry.pending.delete(batch);
        this.retire(entry);
        return false;
      }
      return true;
    }
    return false;
  }

  /** Stops the workers; batches in flight complete without recoveries. */
  close(): void {
    this.closed = true;
    for (const entry of this.workers) {
      this.retire(entry);
      void entry.worker.terminate();
    }
  }

  private onReply(entry: PoolWorker, reply: WorkerReply): void {
    if (reply.kind === "ready") {
      entry.ready = !entry.dead && !this.closed;
      return;
    }
    const pending = entry.pending.get(reply.batch);
    if (pending === undefined || reply.offset !== pending.answered) return;
    const count = Math.min(reply.recoveries.length, pending.size - pending.answered);
    pending.answered += count;
    if (pending.answered === pending.size) entry.pending.delete(reply.batch);
    const signing = this.options.signing;
    const recoveries = new Array<PrecomputedRecovery | undefined>(count);
    for (let i = 0; i < count; i++) {
      const recovery: WorkerRecovery | null | undefined = reply.recoveries[i];
      if (recovery === null || recovery === undefined) continue;
      // The worker computed with a structured clone of exactly this config.
      recoveries[i] = { ...recovery, config: signing };
      this.recovered++;
    }
    pending.done(reply.offset, recoveries);
  }

  /** A worker that failed or exited: its batches complete without recoveries, and it takes no more. */
  private retire(entry: PoolWorker): void {
    if (entry.dead) return;
    entry.dead = true;
    entry.ready = false;
    const batches = [...entry.pending.values()];
    entry.pending.clear();
    for (const batch of batches) batch.done(batch.answered, new Array<PrecomputedRecovery | undefined>(batch.size - batch.answered));
  }
}
