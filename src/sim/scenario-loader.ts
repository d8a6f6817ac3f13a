/**
 * Loads a scenario: a path to a scenario module (`.ts`, default export of
 * defineScenario), or the name of a shipped one (`default` means
 * scenarios/default.ts), plus the price-path files its feeds name, read
 * from data/ (the path a feed gives is relative to data/). The CLI, the
 * fuzz workers and the live server all load scenarios here. A driver: it
 * reads files.
 */
import { existsSync, readFileSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { parsePricePath, type PricePath } from "./oracle.ts";
import { checkScenario, ScenarioError, type Scenario } from "./scenario.ts";

/** The project root (where scenarios/ and data/ live). */
export const PROJECT_ROOT = resolve(import.meta.dirname, "..", "..");

/** Resolves a scenario argument to a file path. */
export function scenarioPath(argument: string): string {
  const candidates = [resolve(argument), join(PROJECT_ROOT, "scenarios", `${argument}.ts`), join(PROJECT_ROOT, "scenarios", argument)];
  const found = candidates.find((candidate) => existsSync(candidate) && candidate.endsWith(".ts"));
  if (found === undefined) {
    throw new ScenarioError(`scenario "${argument}" is neither a .ts file nor the name of a scenario in ${join(PROJECT_ROOT, "scenarios")}`);
  }
  return found;
}

export interface LoadedScenario {
  readonly path: string;
  readonly scenario: Scenario;
  readonly paths: ReadonlyMap<string, PricePath>;
}

export async function loadScenario(argument: string): Promise<LoadedScenario> {
  const path = scenarioPath(argument);
  const module = (await import(pathToFileURL(path).href)) as { default?: unknown; scenario?: unknown };
  const scenario = (module.default ?? module.scenario) as Scenario | undefined;
  if (scenario === undefined || typeof scenario !== "object" || !Array.isArray(scenario.agents)) {
    throw new ScenarioError(`scenario file "${path}" must default-export a scenario: export default defineScenario({...})`);
  }
  checkScenario(scenario);
  const paths = new Map<string, PricePath>();
  for (const feed of scenario.prices) {
    if (feed.model !== "path" || paths.has(feed.file)) continue;
    const file = isAbsolute(feed.file) ? feed.file : join(PROJECT_ROOT, "data", feed.file);
    if (!existsSync(file)) throw new ScenarioError(`scenario "${scenario.name}": the price path "${feed.file}" of ${feed.asset} is not in data/ (${file})`);
    paths.set(feed.file, parsePricePath(readFileSync(file, "utf8"), file));
  }
  return { path, scenario, paths };
}
