/**
 * The body of a worker thread of a pool (worker-pool.ts) whose jobs are runs
 * of one scenario (fuzz-worker.ts, src/report/sweep-worker.ts): imports the
 * scenario module (`workerData.modulePath`) once, says "ready" (or
 * "loadFailed", and ends), then runs one job per "run" message with `run`
 * and answers with its result. It keeps nothing between jobs but the loaded
 * modules, so a job gives the same result in any worker, in any order, and
 * in-process. `run` must not throw for a failure of the run (it reports it
 * in its result).
 */
import { parentPort, workerData } from "node:worker_threads";
import { describeFailure } from "./failure.ts";
import { loadScenario, type LoadedScenario } from "./scenario-loader.ts";
import type { PoolReply, PoolRequest } from "./worker-pool.ts";

export async function serveScenarioJobs<Data extends { readonly modulePath: string }, Job, Result>(run: (loaded: LoadedScenario, job: Job, data: Data) => Promise<Result>): Promise<void> {
  const port = parentPort;
  if (port === null) throw new Error("a scenario worker runs as a worker thread of a pool (worker-pool.ts), not on its own");
  const data = workerData as Data;
  const reply = (message: PoolReply<Result>) => port.postMessage(message);
  let loaded: LoadedScenario;
  try {
    loaded = await loadScenario(data.modulePath);
  } catch (error) {
    reply({ type: "loadFailed", error: describeFailure(error) });
    port.close();
    throw error;
  }
  // One job at a time: the pool sends the next only after this one's result.
  port.on("message", (request: PoolRequest<Job>) => {
    void run(loaded, request.job, data).then((result) => reply({ type: "result", result }));
  });
  reply({ type: "ready" });
}
