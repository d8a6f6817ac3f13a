/**
 * A pool of worker threads that runs independent jobs (fuzz seeds, sweep
 * runs) and hands back one result per job, in completion order. Each worker
 * loads its module (TypeScript, through tsx's loader registered in the
 * worker) once, says "ready", then runs one job per "run" message.
 *
 * - A worker that dies (process.exit, an uncaught exception, out of memory,
 *   a job over `jobTimeoutSeconds`) fails the job it was running: the
 *   caller's `crashed` turns that into a result ("WorkerCrash" or
 *   "Timeout"), a fresh worker takes its place and the pool goes on.
 * - A worker that cannot load its module (it answers "loadFailed"), or one
 *   that exits before it is ready, rejects the whole pool: every job would
 *   fail the same way.
 *
 * A driver: worker threads and the wall clock (timeouts), never inside a run.
 */
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import { describeFailure } from "./failure.ts";

/** What a pool sends a worker. */
export interface PoolRequest<Job> {
  readonly type: "run";
  readonly job: Job;
}

/** What a worker sends back. */
export type PoolReply<Result> =
  | { readonly type: "ready" }
  | { readonly type: "loadFailed"; readonly error: { readonly kind: string; readonly message: string } }
  | { readonly type: "result"; readonly result: Result };

/** Why a worker died while running a job, as far as the pool knows. */
export interface WorkerDeath {
  readonly kind: "WorkerCrash" | "Timeout";
  readonly message: string;
  readonly stack: string;
}

export class WorkerPoolError extends Error {
  override readonly name = "WorkerPoolError";
}

export interface WorkerPoolOptions<Job, Result> {
  /** The worker module (its URL): it answers PoolRequest messages with PoolReply ones. */
  readonly entry: URL;
  /** Handed to every worker as `workerData`. */
  readonly workerData: unknown;
  readonly jobs: readonly Job[];
  /** Workers started (at most one per job is useful). */
  readonly workers: number;
  /** A job still running after this long fails with kind "Timeout" (its worker is replaced). */
  readonly jobTimeoutSeconds?: number;
  /** How messages name a job ("seed 3"). */
  readonly describe: (job: Job) => string;
  /** How messages name what the workers load ("scenario \"default\""). */
  readonly loading: string;
  /** How messages name the workers ("fuzz": "a fuzz worker exited ..."). */
  readonly name: string;
  /** The result of a job whose worker died (the death's message names the job and the exit code). */
  readonly crashed: (job: Job, death: WorkerDeath, wallSeconds: number) => Result;
  /** Called once per job as it finishes, in completion order. */
  readonly record: (result: Result) => void;
}

/**
 * How a worker starts: an eval'd bootstrap that registers tsx's ESM loader
 * (its API, by absolute URL, so any working directory works) and then
 * imports the entry. On Node 20, `execArgv: ["--import", "tsx"]` is not
 * enough: the worker's own entry is loaded before the hooks apply
 * ("Unknown file extension .ts").
 */
function workerBootstrap(entry: URL): string {
  let api: string | undefined;
  const metaResolve = (import.meta as { resolve?: (specifier: string) => string }).resolve;
  if (typeof metaResolve === "function") {
    try {
      api = metaResolve("tsx/esm/api");
    } catch {
      api = undefined;
    }
  }
  // Under some loaders (vitest) import.meta.resolve is missing: the ESM build sits beside the CommonJS one.
  if (api === undefined || !api.startsWith("file:")) api = new URL("index.mjs", pathToFileURL(createRequire(import.meta.url).resolve("tsx/esm/api"))).href;
  return `import(${JSON.stringify(api)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry.href)}); });`;
}

interface PoolSlot<Job> {
  readonly worker: Worker;
  ready: boolean;
  job: Job | undefined;
  sentAt: number;
  timer: ReturnType<typeof setTimeout> | undefined;
  /** Why the worker died, when we know more than its exit code. */
  death: { kind: WorkerDeath["kind"]; message: string; stack: string } | undefined;
}

/** Runs every job; resolves once each has a result, rejects only when a worker cannot load. */
export function runWorkerPool<Job, Result>(options: WorkerPoolOptions<Job, Result>): Promise<void> {
  const { jobs, record } = options;
  const bootstrap = workerBootstrap(options.entry);
  let next = 0;
  let finished = 0;
  const slots = new Set<PoolSlot<Job>>();
  if (jobs.length === 0) return Promise.resolve();

  return new Promise<void>((resolve, reject) => {
    let settled = false;
    const end = (error?: Error) => {
      if (settled) return;
      settled = true;
      for (const slot of slots) {
        if (slot.timer !== undefined) clearTimeout(slot.timer);
        void slot.worker.terminate();
      }
      slots.clear();
      if (error === undefined) resolve();
      else reject(error);
    };

    const dispatch = (slot: PoolSlot<Job>) => {
      if (next >= jobs.length) {
        slots.delete(slot);
        void slot.worker.terminate();
        return;
      }
      const job = jobs[next++]!;
      slot.job = job;
      slot.sentAt = performance.now();
      if (options.jobTimeoutSeconds !== undefined) {
        slot.timer = setTimeout(() => {
          slot.death = { kind: "Timeout", message: `${options.describe(job)} ran longer than ${options.jobTimeoutSeconds} s of wall time`, stack: "" };
          void slot.worker.terminate();
        }, options.jobTimeoutSeconds * 1_000);
      }
      const request: PoolRequest<Job> = { type: "run", job };
      slot.worker.postMessage(request);
    };

    const finish = (result: Result) => {
      record(result);
      finished++;
      if (finished === jobs.length) end();
    };

    const spawn = () => {
      const worker = new Worker(bootstrap, { eval: true, workerData: options.workerData });
      const slot: PoolSlot<Job> = { worker, ready: false, job: undefined, sentAt: 0, timer: undefined, death: undefined };
      slots.add(slot);
      worker.on("message", (reply: PoolReply<Result>) => {
        if (settled) return;
        if (reply.type === "ready") {
          slot.ready = true;
          dispatch(slot);
        } else if (reply.type === "loadFailed") {
          end(new WorkerPoolError(`a worker could not load ${options.loading}: ${reply.error.kind}: ${reply.error.message}`));
        } else {
          if (slot.timer !== undefined) clearTimeout(slot.timer);
          slot.timer = undefined;
          slot.job = undefined;
          finish(reply.result);
          // A worker whose job ran out of time is being terminated: its result came in just before; it takes no more.
          if (!settled && slot.death === undefined) dispatch(slot);
        }
      });
      worker.on("error", (error: unknown) => {
        const failure = describeFailure(error);
        slot.death ??= { kind: "WorkerCrash", message: `uncaught ${failure.kind}: ${failure.message}`, stack: failure.stack };
      });
      worker.on("exit", (code) => {
        if (slot.timer !== undefined) clearTimeout(slot.timer);
        const wasIn = slots.delete(slot);
        if (settled || !wasIn) return;
        if (!slot.ready) {
          end(new WorkerPoolError(`a ${options.name} worker exited (code ${code}) before it was ready${slot.death === undefined ? "" : `: ${slot.death.message}`}`));
          return;
        }
        if (slot.job !== undefined) {
          const job = slot.job;
          const death: WorkerDeath =
            slot.death?.kind === "Timeout"
              ? { kind: "Timeout", message: slot.death.message, stack: "" }
              : { kind: "WorkerCrash", message: `the worker running ${options.describe(job)} died (exit code ${code})${slot.death === undefined ? "" : `: ${slot.death.message}`}`, stack: slot.death?.stack ?? "" };
          finish(options.crashed(job, death, (performance.now() - slot.sentAt) / 1_000));
        }
        // A worker that died between jobs (a leftover of the last one) is replaced as well.
        if (!settled && next < jobs.length) spawn();
      });
    };

    for (let i = 0; i < options.workers; i++) spawn();
  });
}
