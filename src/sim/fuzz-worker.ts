/**
 * A fuzz worker thread (see fuzz.ts): runs one seed per job with
 * runFuzzSeed (scenario-worker.ts loads the scenario and answers the pool).
 *
 * Started by fuzz.ts through worker-pool.ts, with tsx's loader registered (it is TypeScript).
 */
import { runFuzzSeed, type FuzzWorkerData } from "./fuzz.ts";
import { serveScenarioJobs } from "./scenario-worker.ts";

await serveScenarioJobs((loaded, seed: number, data: FuzzWorkerData) => runFuzzSeed(loaded, seed, data));
