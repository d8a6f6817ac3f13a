/**
 * A fuzz worker thread (see fuzz.ts): imports the scenario module once,
 * says "ready", then runs one seed per "run" message and answers with its
 * result. It keeps nothing between seeds but the loaded modules, so a seed
 * gives the same result in any worker, in any order, and in-process.
 *
 * Started by fuzz.ts with tsx's loader in its execArgv (it is TypeScript).
 */
import { parentPort, workerData } from "node:worker_threads";
import { describeFailure, runFuzzSeed, type FuzzWorkerData, type FuzzWorkerReply, type FuzzWorkerRequest } from "./fuzz.ts";
import { loadScenario, type LoadedScenario } from "./scenario-loader.ts";

const port = parentPort;
if (port === null) throw new Error("fuzz-worker.ts runs as a worker thread of fuzz.ts, not on its own");
const data = workerData as FuzzWorkerData;
const reply = (message: FuzzWorkerReply) => port.postMessage(message);

let loaded: LoadedScenario;
try {
  loaded = await loadScenario(data.modulePath);
} catch (error) {
  reply({ type: "loadFailed", error: describeFailure(error) });
  port.close();
  throw error;
}

// One seed at a time: the pool sends the next only after this one's result.
port.on("message", (request: FuzzWorkerRequest) => {
  void runFuzzSeed(loaded, request.job, data).then((result) => reply({ type: "result", result }));
});
reply({ type: "ready" });
