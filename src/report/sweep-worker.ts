/**
 * A sweep worker thread (see sweep.ts): runs one job (a combination and a
 * seed) per message with runSweepJob (src/sim/scenario-worker.ts loads the
 * scenario and answers the pool).
 */
import { serveScenarioJobs } from "../sim/scenario-worker.ts";
import { runSweepJob, type SweepJob, type SweepRunOptions } from "./sweep.ts";

await serveScenarioJobs((loaded, job: SweepJob, data: SweepRunOptions) => runSweepJob(loaded, job, data));
