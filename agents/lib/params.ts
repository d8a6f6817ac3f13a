/**
 * Rules for an agent's parameters: what its checkParams hook runs (see
 * AgentDefinition in src/sim/agent.ts), so that a scenario with bad params
 * is refused by checkScenario, naming the agent and the field, before the
 * run starts.
 *
 * An agent lists one rule per parameter (`ParamRules<P>` requires every
 * field of P, so none is forgotten) and, separately, the rules that relate
 * two parameters. `paramsProblem` gives the first broken rule as
 * `<field> "<value>" <rule>` (e.g. `ratePerSecond "0" must be a finite
 * number greater than 0`), or null. Number rules share checkScenario's
 * wording (numberProblem). Rules that need the run's markets (a symbol no
 * market has) stay in the agent's start, which has them.
 *
 * Parameters arrive as the scenario wrote them (any JSON-like value, typed
 * or not), so every rule takes `unknown`.
 */
import { numberProblem, type NumberRange } from "../../src/sim/scenario.ts";

/** The rule `value` breaks, as `must be ...` (to follow the field's name and quoted value), or null. */
export type ValueRule = (value: unknown) => string | null;

/** One rule per parameter, every parameter of P included. */
export type ParamRules<P> = { readonly [K in keyof P]-?: ValueRule };

/** A rule over several parameters, run once each has passed its own: the whole problem (`<field> "<value>" <rule>`), or null. */
export type RelationRule<P> = (params: P) => string | null;

/** A number within `range` (checkScenario's wording). */
export const number =
  (range: NumberRange): ValueRule =>
  (value) =>
    numberProblem(value, range);

export const finite = number({ min: -Infinity });
export const positive = number({ min: 0, minExclusive: true });
export const nonNegative = number({ min: 0 });
export const positiveInteger = number({ min: 1, integer: true });
export const nonNegativeInteger = number({ min: 0, integer: true });

/** `rule`, or null (which the agent reads as "never" / "none"). */
export const orNull =
  (rule: ValueRule): ValueRule =>
  (value) => {
    if (value === null) return null;
    const problem = rule(value);
    return problem === null ? null : `${problem}, or null`;
  };

export const boolean: ValueRule = (value) => (typeof value === "boolean" ? null : "must be true or false");

/** One of `choices` (strings). */
export const oneOf =
  (choices: readonly string[]): ValueRule =>
  (value) =>
    typeof value === "string" && choices.includes(value) ? null : `must be ${choices.length === 2 ? choices.join(" or ") : `one of ${choices.join(", ")}`}`;

/** A market symbol: a non-empty string (whether the run has that market is checked when the agent starts). */
export const symbol: ValueRule = (value) => (typeof value === "string" && value !== "" ? null : "must be a market symbol");

/** A non-empty list of market symbols. */
export const symbolList: ValueRule = (value) =>
  Array.isArray(value) && value.length > 0 && value.every((item) => symbol(item) === null) ? null : "must be a non-empty list of market symbols";

/** An asset name: a non-empty string. */
export const assetName: ValueRule = (value) => (typeof value === "string" && value !== "" ? null : "must be an asset name");

/** A list (possibly empty) of names from `known`; the first unknown one is named. */
export const listOf =
  (what: string, known: readonly string[]): ValueRule =>
  (value) => {
    if (!Array.isArray(value)) return `must be a list of ${what}s (${known.join(", ")})`;
    const unknown = value.find((item) => typeof item !== "string" || !known.includes(item));
    return unknown === undefined ? null : `must be a list of ${what}s: "${quote(unknown)}" is not one (${known.join(", ")})`;
  };

/** A parameter's value as a message quotes it: text as it is, a list or object as JSON. */
export function quote(value: unknown): string {
  if (typeof value !== "object" || value === null) return String(value);
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return Array.isArray(value) ? "(a list)" : "(an object)";
  }
}

/** The first broken rule of `params` as `<field> "<value>" <rule>`: each field's own, in the order of `rules`, then the relations; or null. */
export function paramsProblem<P>(params: P, rules: ParamRules<P>, relations: readonly RelationRule<P>[] = []): string | null {
  const values = params as Record<string, unknown>;
  for (const [field, rule] of Object.entries(rules) as [string, ValueRule][]) {
    const problem = rule(values[field]);
    if (problem !== null) return `${field} "${quote(values[field])}" ${problem}`;
  }
  for (const relation of relations) {
    const problem = relation(params);
    if (problem !== null) return problem;
  }
  return null;
}

/** Throws the problem, if any, from an agent's start: a run built without checkScenario refuses the same params, with the same words. */
export function refuseBadParams(kind: string, problem: string | null): void {
  if (problem !== null) throw new RangeError(`${kind} params.${problem}`);
}
