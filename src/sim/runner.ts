/**
 * The runner: drives a SimRun to its end on the event loop and measures it.
 *
 * Agents use the Promise-based client SDK, so between kernel events the
 * runner lets the microtask queue empty (one `setImmediate` turn) whenever
 * an event settled a promise or ran an async handler: an agent's `await`
 * then continues at the virtual time its answer arrived, before any later
 * event. Events that ran no agent promise code need no turn.
 *
 * This is a driver: it reads the wall clock (for events per second and the
 * progress bar), never the deterministic core.
 */
import type { Micros } from "../core/time.ts";
import { SimRun, type SimRunOptions } from "./run.ts";
import type { Scenario } from "./scenario.ts";

export interface Progress {
  readonly atMicros: Micros;
  readonly startMicros: Micros;
  readonly endMicros: Micros;
  readonly events: number;
  readonly wallSeconds: number;
}

export interface RunnerOptions extends SimRunOptions {
  /** Called every `progressEveryMs` of wall time (default 200) and once at the end. */
  onProgress?: (progress: Progress) => void;
  progressEveryMs?: number;
}

/** The figures of a finished run. */
export interface RunFigures {
  readonly scenario: string;
  readonly seed: number;
  readonly signatures: "trusted" | "signed";
  readonly fingerprint: string;
  readonly events: number;
  readonly inputs: number;
  readonly outputs: number;
  readonly simulatedSeconds: number;
  readonly wallSeconds: number;
  readonly eventsPerSecond: number;
  /** Simulated time over wall time. */
  readonly speedup: number;
}

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Events run between checks of the wall clock. */
const CHUNK_EVENTS = 4_096;

/**
 * Refuses an `invariantEveryBlocks` that is not a positive integer. The
 * state checks run when the blocks checked are a multiple of it
 * (ExchangeInvariants): 0 makes every remainder NaN and NaN never checks, so
 * the run would pass with no state check at all; a negative number, a
 * fraction or a non-finite value counts no blocks either.
 */
export function checkInvariantEveryBlocks(value: number | undefined): void {
  if (value === undefined) return;
  if (!Number.isSafeInteger(value) || value < 1) throw new RangeError(`invariantEveryBlocks "${value}" must be a positive integer`);
}

export async function runScenario(scenario: Scenario, options: RunnerOptions = {}): Promise<{ run: SimRun; figures: RunFigures }> {
  checkInvariantEveryBlocks(options.invariantEveryBlocks);
  const started = performance.now();
  const run = new SimRun(scenario, options);
  const every = options.progressEveryMs ?? 200;
  let lastReport = started;
  const progress = () => ({
    atMicros: run.world.now(),
    startMicros: run.startMicros,
    endMicros: run.endMicros,
    events: run.eventsProcessed,
    wallSeconds: (performance.now() - started) / 1_000,
  });
  for (;;) {
    const state = run.advance(CHUNK_EVENTS);
    if (state === "done") break;
    if (state === "drain") await turn();
    if (options.onProgress !== undefined) {
      const now = performance.now();
      if (now - lastReport >= every) {
        lastReport = now;
        options.onProgress(progress());
      }
    }
  }
  // Let the last answers' continuations run (they cannot act: the clock is at the end).
  await turn();
  options.onProgress?.(progress());
  const wallSeconds = (performance.now() - started) / 1_000;
  const simulatedSeconds = (run.endMicros - run.startMicros) / 1_000_000;
  return {
    run,
    figures: Object.freeze({
      scenario: scenario.name,
      seed: run.seed,
      signatures: run.signatures,
      fingerprint: run.fingerprint(),
      events: run.eventsProcessed,
      inputs: run.world.inputs,
      outputs: run.world.outputs,
      simulatedSeconds,
      wallSeconds,
      eventsPerSecond: run.eventsProcessed / wallSeconds,
      speedup: simulatedSeconds / wallSeconds,
    }),
  };
}
