#!/usr/bin/env node
// The `shadowbook` command: runs the TypeScript CLI (src/cli/main.ts), so a checkout needs no build step.
//
// It runs the CLI in this very process, with tsx's loader registered in-process (importing "tsx" registers its
// ESM hooks through module.register and its CommonJS hooks, as `node --import tsx` does), rather than in a child
// process. A child (this file used to spawnSync `tsx src/cli/main.ts`, itself a parent of the node that ran the
// CLI) meant every signal had to be relayed: SIGTERM to the `shadowbook` pid killed the wrapper and left the
// server running as an orphan, with no drain, no 1001 and no exit 0. Relaying is not enough either: a terminal's
// Ctrl-C reaches the whole process group, so a relaying parent delivers SIGINT twice, and the second one ends a
// draining server at once (src/cli/shutdown.ts). With one process there is nothing to relay: the pid that
// `shadowbook` reports to a shell, a supervisor or a test is the server's, SIGTERM and SIGINT reach its own
// handlers (stopOnSignals), other signals have their usual effect, and the exit code is the CLI's own.
// test/cli/serve-signals.test.ts holds it to that.
//
// module.register() needs Node 20.6 (tsx's in-process API refuses older versions, and the fuzz and signer worker
// threads register tsx the same way); on an older Node this says so instead of failing obscurely.
import module from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";
import { dirname, join } from "node:path";

if (typeof module.register !== "function") {
  console.error(`shadowbook needs Node 20.6 or newer (module.register); this is Node ${process.version}`);
  process.exit(1);
}
// A reader that goes away (`shadowbook replay <log> | head`) is no error: the command goes on with its work (files to
// write, an input log to close) and its output is dropped, instead of dying on EPIPE with a stack trace half-way.
// The same for stderr (`2>&1 | head`).
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (error) => {
    if (error.code !== "EPIPE" && error.code !== "ERR_STREAM_DESTROYED") throw error;
  });
}
await import("tsx");
const root = join(dirname(fileURLToPath(import.meta.url)), "..");
await import(pathToFileURL(join(root, "src/cli/main.ts")).href);
