/**
 * `npm run bench`: runs every benchmark in test/bench in its own process,
 * one after another (so they do not compete for the two cores), and passes
 * their JSON lines through. A benchmark reports; it never fails the run.
 * `npm run bench -- kernel engine` runs only the named ones. Helpers they
 * share live in test/bench/lib (not benchmarks themselves).
 */
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { basename, join } from "node:path";

const here = import.meta.dirname;
const wanted = new Set(process.argv.slice(2));
const benches = readdirSync(here)
  .filter((file) => file.endsWith(".ts") && file !== "run-all.ts")
  .map((file) => basename(file, ".ts"))
  .filter((name) => wanted.size === 0 || wanted.has(name))
  .sort();

for (const name of benches) {
  const result = spawnSync(process.execPath, ["--expose-gc", "--import", "tsx", join(here, `${name}.ts`)], {
    stdio: ["ignore", "inherit", "inherit"],
  });
  if (result.status !== 0) console.log(JSON.stringify({ bench: name, error: `exited with ${result.status ?? result.signal}` }));
}
