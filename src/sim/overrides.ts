/**
 * `--set <path>=<value>` (shadowbook run, shadowbook fuzz): a scenario's
 * values changed from the command line, without editing its file.
 *
 * Paths:
 *
 * - `<agent>.<param>`: an entry of that agent's params, laid over the
 *   scenario's (and over the program's defaults, as always). The agent must
 *   be in the scenario; the key must be one of its program's `defaults`
 *   and the value must pass its `checkParams` hook (checkScenario checks
 *   both, and its message names the agent, the key and the known ones).
 *   Agent names may hold dots: the longest agent name the path starts with
 *   (followed by a dot) is the agent.
 * - `<agent>.account.rateTier`: the agent's rate-limit tier (1, 2 or 3).
 * - the scenario fields in SCENARIO_FIELDS: `startMs`, `oracleBasisSd`,
 *   `oracleBasisMean`, `signatures` and `settlement.bustProbability`, plain
 *   values that checkScenario checks. `seed` and `durationSeconds` are
 *   refused with a pointer to their flags (--seed, --duration). The chain's
 *   timing (`settlement.blockIntervalMs` and the rest) is not settable: a
 *   scenario's `chain` section (µs) overrides those fields, so a --set of
 *   one could be silently shadowed. Nothing
 *   else (markets, prices, timeline, ...) is: those are structures, not
 *   values.
 *
 * Values: the text after the first "=" is parsed as JSON when it parses
 * (5, 0.8, true, null, ["ETHRUSDPERP"], "quoted text"), else taken as that
 * text, a string (ETHRUSDPERP). An empty value is refused (write `=""`
 * for the empty string).
 *
 * Refusals: a malformed flag (no "=", an empty path or value, a path given
 * twice) by parseSetFlags, before the scenario is loaded; a path the
 * scenario does not have (an unknown agent, a field not settable) and a
 * value the scenario's checks refuse by applyOverrides, before the run. Each
 * names the flag as given: `--set "<path>=<value>": <why>`.
 *
 * Order: the overrides apply to the scenario as the run gets it, so for a
 * fuzz seed after its fuzz draw (src/sim/fuzz.ts): the user's value wins
 * over the drawn one, and a failing seed's reproduce command carries the
 * same flags (setFlagsText).
 */
import { checkScenario, ScenarioError, type AgentAccount, type Scenario, type ScenarioAgent } from "./scenario.ts";

/** One `--set`: the flag's text as given, its path and its parsed value. Plain data (it crosses to fuzz worker threads). */
export interface SetOverride {
  /** The text given to --set, e.g. `mm-eth.spreadBps=5`. */
  readonly raw: string;
  /** Before the first "=": `mm-eth.spreadBps`. */
  readonly path: string;
  /** After it: its JSON value when it parses as JSON, else the text itself. */
  readonly value: unknown;
}

export class OverrideError extends Error {
  override readonly name = "OverrideError";
}

/** The scenario fields `--set` can change (beyond agents' params and rate tiers). */
export const SCENARIO_FIELDS: readonly string[] = ["startMs", "oracleBasisSd", "oracleBasisMean", "signatures", "settlement.bustProbability"];

/** Scenario fields that have their own flag. */
const FLAG_FIELDS: Readonly<Record<string, string>> = { seed: "--seed (--seeds in fuzz and sweep)", durationSeconds: "--duration" };

/** An agent's account fields `--set` can change. */
const ACCOUNT_FIELDS: readonly string[] = ["rateTier"];

const flag = (raw: string): string => `--set ${JSON.stringify(raw)}`;

/** The value of a --set: JSON when it parses, else the text. */
export function parseSetValue(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** One --set's text as a path and a value; refuses a text without "=", or with an empty path or value. */
export function parseSetFlag(raw: string): SetOverride {
  const at = raw.indexOf("=");
  if (at < 0) throw new OverrideError(`${flag(raw)} must be <path>=<value>, e.g. --set mm-eth.spreadBps=5`);
  const path = raw.slice(0, at).trim();
  const text = raw.slice(at + 1);
  if (path === "") throw new OverrideError(`${flag(raw)} has an empty path before "=": give <agent>.<param>, <agent>.account.rateTier or one of ${SCENARIO_FIELDS.join(", ")}`);
  if (text.trim() === "") throw new OverrideError(`${flag(raw)} has no value after "=" (for an empty string write ${path}="")`);
  return Object.freeze({ raw, path, value: parseSetValue(text) });
}

/** Every --set given (none: []), in order; refuses a malformed one, and a path given twice. */
export function parseSetFlags(raws: readonly string[] | undefined): SetOverride[] {
  const overrides: SetOverride[] = [];
  for (const raw of raws ?? []) {
    const override = parseSetFlag(raw);
    const earlier = overrides.find((other) => other.path === override.path);
    if (earlier !== undefined) throw new OverrideError(`${flag(raw)} sets ${override.path} again (${flag(earlier.raw)} set it): give each path once`);
    overrides.push(override);
  }
  return overrides;
}

type Target =
  | { readonly kind: "field"; readonly field: string }
  | { readonly kind: "param"; readonly agent: number; readonly key: string }
  | { readonly kind: "account"; readonly agent: number; readonly field: string };

/** The agent a path starts with (`<name>.`), the longest name when several do, and the rest of the path. */
function agentOf(scenario: Scenario, path: string): { index: number; rest: string } | undefined {
  let found: { index: number; rest: string } | undefined;
  scenario.agents.forEach((agent, index) => {
    if (!path.startsWith(`${agent.name}.`)) return;
    if (found !== undefined && scenario.agents[found.index]!.name.length >= agent.name.length) return;
    found = { index, rest: path.slice(agent.name.length + 1) };
  });
  return found;
}

/** What a path names in the scenario; refuses one it does not have. */
function targetOf(scenario: Scenario, override: SetOverride): Target {
  const { raw, path } = override;
  const pointer = FLAG_FIELDS[path];
  if (pointer !== undefined) throw new OverrideError(`${flag(raw)}: ${path} has its own flag: use ${pointer}`);
  const agent = agentOf(scenario, path);
  if (SCENARIO_FIELDS.includes(path)) {
    if (agent !== undefined) throw new OverrideError(`${flag(raw)}: ${path} is ambiguous: both a scenario field and a parameter of agent "${scenario.agents[agent.index]!.name}"`);
    return { kind: "field", field: path };
  }
  if (agent === undefined) {
    const agents = `its agents: ${scenario.agents.length === 0 ? "none" : scenario.agents.map((a) => a.name).join(", ")}`;
    if (!path.includes(".")) throw new OverrideError(`${flag(raw)}: ${path} is not a scenario field --set can change (${SCENARIO_FIELDS.join(", ")}) nor <agent>.<param> (${agents})`);
    const account = path.lastIndexOf(".account.");
    const name = path.slice(0, account >= 0 ? account : path.lastIndexOf("."));
    throw new OverrideError(`${flag(raw)}: scenario "${scenario.name}" has no agent "${name}" (${agents})`);
  }
  const name = scenario.agents[agent.index]!.name;
  if (agent.rest === "") throw new OverrideError(`${flag(raw)}: the path names agent "${name}" but no parameter after it`);
  if (agent.rest.startsWith("account.")) {
    const field = agent.rest.slice("account.".length);
    if (!ACCOUNT_FIELDS.includes(field)) throw new OverrideError(`${flag(raw)}: account.${field} of agent "${name}" is not an account field --set can change (${ACCOUNT_FIELDS.join(", ")})`);
    return { kind: "account", agent: agent.index, field };
  }
  return { kind: "param", agent: agent.index, key: agent.rest };
}

/** The scenario with one value set (a new scenario; the one given is not changed). */
function withValue(scenario: Scenario, target: Target, value: unknown): Scenario {
  if (target.kind === "field") {
    if (target.field === "settlement.bustProbability") return { ...scenario, settlement: { ...scenario.settlement, bustProbability: value as number } };
    return { ...scenario, [target.field]: value };
  }
  const agents = scenario.agents.map((agent, index): ScenarioAgent => {
    if (index !== target.agent) return agent;
    if (target.kind === "account") return { ...agent, account: { ...agent.account, [target.field]: value } as AgentAccount };
    return { ...agent, params: { ...agent.params, [target.key]: value } };
  });
  return { ...scenario, agents };
}

/** The scenario with `overrides` applied in order, unchecked. */
function applyUnchecked(scenario: Scenario, overrides: readonly SetOverride[]): Scenario {
  return overrides.reduce((applied, override) => withValue(applied, targetOf(scenario, override), override.value), scenario);
}

/** Why checkScenario refuses `scenario`, or null. */
function scenarioProblem(scenario: Scenario): string | null {
  try {
    checkScenario(scenario);
    return null;
  } catch (error) {
    if (error instanceof ScenarioError) return error.message;
    throw error;
  }
}

/**
 * The scenario with the overrides applied, in order, and checked
 * (checkScenario: an agent's params against its defaults' keys and its
 * checkParams hook, the scenario fields' rules). Refuses, naming the flag,
 * a path the scenario does not have, and values it refuses: when the
 * overrides together are refused, the first --set after which the scenario
 * is refused is named, with what was refused then. No overrides: the
 * scenario itself.
 */
export function applyOverrides(scenario: Scenario, overrides: readonly SetOverride[]): Scenario {
  if (overrides.length === 0) return scenario;
  for (const override of overrides) targetOf(scenario, override);
  const applied = applyUnchecked(scenario, overrides);
  if (scenarioProblem(applied) === null) return applied;
  for (let count = 1; count <= overrides.length; count++) {
    const problem = scenarioProblem(applyUnchecked(scenario, overrides.slice(0, count)));
    if (problem !== null) throw new OverrideError(`${flag(overrides[count - 1]!.raw)}: ${problem}`);
  }
  // Not reached: the last prefix is all of them, refused above.
  throw new OverrideError(`${flag(overrides.at(-1)!.raw)}: ${scenarioProblem(applied)}`);
}

/** The overrides as summary.json records them: path to value, in the order given. */
export function overridesRecord(overrides: readonly SetOverride[]): Readonly<Record<string, unknown>> {
  return Object.freeze(Object.fromEntries(overrides.map((override) => [override.path, override.value])));
}

/** The overrides as one line, `path=<JSON value>` each, as the fuzz parameters print: `mm-eth.spreadBps=5 mm-eth.symbol="ETHRUSDPERP"`. */
export function formatOverrides(overrides: readonly SetOverride[]): string {
  return overrides.map((override) => `${override.path}=${JSON.stringify(override.value)}`).join(" ");
}

/** A word for a POSIX shell: as it is when it holds only safe characters, else single-quoted. */
export function shellWord(word: string): string {
  return /^[\w./@:+,=%-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
}

/** The flags that give these overrides again, as typed, quoted for a POSIX shell: ` --set a.b=5 --set 'c.d="x y"'` ("" for none). */
export function setFlagsText(overrides: readonly SetOverride[]): string {
  return overrides.map((override) => ` --set ${shellWord(override.raw)}`).join("");
}
