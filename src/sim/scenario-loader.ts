/**
 * Loads a scenario: a path to a scenario module (`.ts`, default export of
 * defineScenario), or the name of a shipped one (`default` means
 * scenarios/default.ts), plus the price-path files its feeds name, read
 * from data/ (the path a feed gives is relative to data/). The CLI, the
 * fuzz workers and the live server all load scenarios here. A driver: it
 * reads files.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { isAbsolute, join, relative, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { parsePricePath, type PricePath } from "./oracle.ts";
import { checkScenario, ScenarioError, type PathFeed, type Scenario } from "./scenario.ts";

/** The project root (where scenarios/ and data/ live). */
export const PROJECT_ROOT = resolve(import.meta.dirname, "..", "..");

/** Resolves a scenario argument to a file path. */
export function scenarioPath(argument: string): string {
  const candidates = [resolve(argument), join(PROJECT_ROOT, "scenarios", `${argument}.ts`), join(PROJECT_ROOT, "scenarios", argument)];
  const found = candidates.find((candidate) => existsSync(candidate) && candidate.endsWith(".ts"));
  if (found === undefined) {
    const scenarios = join(PROJECT_ROOT, "scenarios");
    // A path to a .ts file that is not there: say so, rather than that it is not a .ts file.
    if (argument.endsWith(".ts")) {
      const nor = isAbsolute(argument) ? "" : ` (nor ${join(scenarios, argument)})`;
      throw new ScenarioError(`scenario "${argument}": there is no file ${resolve(argument)}${nor}`);
    }
    throw new ScenarioError(`scenario "${argument}" is neither a .ts file nor the name of a scenario in ${scenarios}`);
  }
  return found;
}

/**
 * The argument that loads the scenario file at `path` (absolute) from any
 * working directory: its name when it is a scenario of scenarios/ ("default"),
 * else the absolute path. What a log's re-run command names
 * (src/sim/command-line.ts), so that it works wherever it is run.
 */
export function portableScenarioArgument(path: string): string {
  const name = relative(join(PROJECT_ROOT, "scenarios"), path);
  return /^[^/\\]+\.ts$/.test(name) && !name.startsWith("..") ? name.slice(0, -".ts".length) : path;
}

export interface LoadedScenario {
  readonly path: string;
  readonly scenario: Scenario;
  readonly paths: ReadonlyMap<string, PricePath>;
}

export async function loadScenario(argument: string): Promise<LoadedScenario> {
  const path = scenarioPath(argument);
  const module = await importScenarioModule(path);
  const scenario = (module.default ?? module.scenario) as Scenario | undefined;
  if (scenario === undefined || typeof scenario !== "object" || !Array.isArray(scenario.agents)) {
    throw new ScenarioError(`scenario file "${path}" must default-export a scenario: export default defineScenario({...})`);
  }
  checkScenario(scenario);
  const paths = new Map<string, PricePath>();
  for (const feed of scenario.prices) {
    if (feed.model !== "path" || paths.has(feed.file)) continue;
    paths.set(feed.file, readPricePath(scenario, feed));
  }
  return { path, scenario, paths };
}

/**
 * Imports a scenario module. What its own code throws is refused naming the
 * file and the module's message; a ScenarioError (from defineScenario) is
 * passed on as it is: it already names the scenario, the field and the rule.
 */
async function importScenarioModule(path: string): Promise<{ default?: unknown; scenario?: unknown }> {
  try {
    return (await import(pathToFileURL(path).href)) as { default?: unknown; scenario?: unknown };
  } catch (error) {
    // By name: a module outside the project's package may be loaded as CommonJS, with its own copy of scenario.ts.
    if (error instanceof Error && error.name === "ScenarioError") throw error;
    const message = error instanceof Error && error.message !== "" ? error.message : String(error);
    throw new ScenarioError(`scenario file "${path}" failed at import: ${message}`, { cause: error });
  }
}

/** Reads and parses the price path a feed names (relative to data/, or absolute). */
function readPricePath(scenario: Scenario, feed: PathFeed): PricePath {
  const file = isAbsolute(feed.file) ? feed.file : join(PROJECT_ROOT, "data", feed.file);
  const what = `scenario "${scenario.name}": the price path "${feed.file}" of ${feed.asset}`;
  const cannotRead = (error: unknown) => new ScenarioError(`${what} cannot be read (${file}): ${(error as Error).message}`, { cause: error });
  let stats;
  try {
    stats = statSync(file, { throwIfNoEntry: false });
  } catch (error) {
    throw cannotRead(error);
  }
  if (stats === undefined) throw new ScenarioError(`${what} is not in data/ (${file})`);
  if (!stats.isFile()) throw new ScenarioError(`${what} is ${stats.isDirectory() ? "a directory" : "not a regular file"}, not a file of offsetMs,price lines (${file})`);
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw cannotRead(error);
  }
  return parsePricePath(text, file);
}
