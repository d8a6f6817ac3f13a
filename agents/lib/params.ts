/**
 * Rules for an agent's parameters: what its checkParams hook runs (see
 * AgentDefinition in src/sim/agent.ts), so that a scenario with bad params
 * is refused by checkScenario, naming the agent and the field, before the
 * run starts.
 *
 * An agent lists one rule per parameter (`ParamRules<P>` requires every
 * field of P, so none is forgotten) and, separately, the rules that relate
 * two parameters. `paramsProblem` gives the first broken rule as
 * `<field> "<value>" <rule>` (e.g. `notional "0" must be a finite number
 * greater than 0`), or null. Number rules share checkScenario's wording
 * (numberProblem). A rule is also handed the params context: the run's
 * markets, which the symbol rules check a symbol against (that the run has
 * such a market, and of the kind the agent trades).
 *
 * Parameters arrive as the scenario wrote them (any JSON-like value, typed
 * or not), so every rule takes `unknown`.
 */
import type { AgentParamsContext, ParamsMarket } from "../../src/sim/agent.ts";
import { MAX_RUN_SECONDS, numberProblem, type NumberRange } from "../../src/sim/scenario.ts";

/** The rule `value` breaks in a run with `context`'s markets, as `must be ...` (to follow the field's name and quoted value), or null. */
export type ValueRule = (value: unknown, context: AgentParamsContext) => string | null;

/** One rule per parameter, every parameter of P included. */
export type ParamRules<P> = { readonly [K in keyof P]-?: ValueRule };

/** A rule over several parameters, run once each has passed its own: the whole problem (`<field> "<value>" <rule>`), or null. */
export type RelationRule<P> = (params: P, context: AgentParamsContext) => string | null;

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

/**
 * The shortest period of an agent's repeating timer (a sample, a refresh, a
 * probe, a chunk), in seconds: 1 ms. Prices move at most once a millisecond
 * (a feed steps every whole stepMs) and the wire carries milliseconds, so
 * no strategy here needs a shorter one; a period that rounds to 0 µs (below
 * 0.5 µs) re-arms its timer at the same instant forever, so the run never
 * ends, and one of a few µs makes it crawl. No shipped scenario comes near
 * it (the shortest is 1 s).
 */
export const PERIOD_SECONDS_MIN = 0.001;

/** The period of a repeating timer, in seconds: at least PERIOD_SECONDS_MIN, at most a run's longest duration. */
export const period = number({ min: PERIOD_SECONDS_MIN, max: MAX_RUN_SECONDS });

/**
 * A delay or a span of virtual time, in seconds: from 0 to a run's longest
 * duration (MAX_RUN_SECONDS, 100 years). A longer one could never come
 * within the run, and one beyond the clock's safe range (1e300) would stop
 * the run midway when its timer is set.
 */
export const delaySeconds = number({ min: 0, max: MAX_RUN_SECONDS });

/**
 * The widest price distance in basis points: 10,000 bps (the whole price).
 * A spread, band or cross beyond it is no price at all, and far beyond it
 * (1e308) the agent's arithmetic overflows to Infinity and its run stops
 * midway when it prices an order.
 */
export const BPS_MAX = 10_000;

/** A price distance in bps: 0 to BPS_MAX. */
export const bps = number({ min: 0, max: BPS_MAX });
/** A price distance in bps that must be above 0: (0, BPS_MAX]. */
export const positiveBps = number({ min: 0, minExclusive: true, max: BPS_MAX });
/** A signed price distance in bps: -BPS_MAX to BPS_MAX. */
export const signedBps = number({ min: -BPS_MAX, max: BPS_MAX });

/**
 * The largest USD amount an agent's order or position parameter may name:
 * a trillion, beyond any market's open interest. It keeps an order's size
 * times its price (and a lognormal draw around it) finite.
 */
export const NOTIONAL_MAX = 1e12;

/** An order's USD size: (0, NOTIONAL_MAX]. */
export const notional = number({ min: 0, minExclusive: true, max: NOTIONAL_MAX });
/** A USD limit that may be 0 (nothing allowed): [0, NOTIONAL_MAX]. */
export const notionalLimit = number({ min: 0, max: NOTIONAL_MAX });

/** A delay in milliseconds: delaySeconds' range. */
export const delayMs = number({ min: 0, max: MAX_RUN_SECONDS * 1_000 });

/** `rule`, or null (which the agent reads as "never" / "none"). */
export const orNull =
  (rule: ValueRule): ValueRule =>
  (value, context) => {
    if (value === null) return null;
    const problem = rule(value, context);
    return problem === null ? null : `${problem}, or null`;
  };

export const boolean: ValueRule = (value) => (typeof value === "boolean" ? null : "must be true or false");

/** One of `choices` (strings). */
export const oneOf =
  (choices: readonly string[]): ValueRule =>
  (value) =>
    typeof value === "string" && choices.includes(value) ? null : `must be ${choices.length === 2 ? choices.join(" or ") : `one of ${choices.join(", ")}`}`;

type MarketKind = ParamsMarket["kind"];

const isSymbolText = (value: unknown): value is string => typeof value === "string" && value !== "";

/** The run's symbols (of `kind`, or all), for a message: `A, B, C`, or null when it has none. */
function symbolsOf(context: AgentParamsContext, kind?: MarketKind): string | null {
  const symbols = context.markets.filter((market) => kind === undefined || market.kind === kind).map((market) => market.symbol);
  return symbols.length === 0 ? null : symbols.join(", ");
}

/**
 * Why `symbol` cannot be traded, or null: the run has no market of that
 * symbol, or it is not of `kind`. `named` is how the rule names the symbol
 * ("" when the field's own value is the symbol; `"X", ` for an item of a list).
 */
function marketProblem(symbol: string, context: AgentParamsContext, named: string, kind: MarketKind | undefined, why: string | undefined): string | null {
  const market = context.markets.find((candidate) => candidate.symbol === symbol);
  if (market === undefined) {
    const all = symbolsOf(context);
    return `names ${named}no market of this run (${all === null ? "it has none" : `its markets: ${all}`})`;
  }
  if (kind === undefined || market.kind === kind) return null;
  const ofKind = symbolsOf(context, kind);
  const reason = why === undefined ? "" : `: ${why}`;
  const list = `(${ofKind === null ? `the run has no ${kind} market` : `the run's ${kind} markets: ${ofKind}`})`;
  return named === "" ? `must name a ${kind} market, not a ${market.kind} one${reason} ${list}` : `names ${named}a ${market.kind} market, and must name ${kind} markets only${reason} ${list}`;
}

/**
 * A market of the run: a non-empty string naming one of the run's markets,
 * of `kind` when given (`why` says why, e.g. "stops are perp only").
 */
export const marketSymbol =
  (kind?: MarketKind, why?: string): ValueRule =>
  (value, context) =>
    isSymbolText(value) ? marketProblem(value, context, "", kind, why) : "must be a market symbol";

/** A non-empty list of the run's markets (each of `kind` when given); the first one the run does not have, or of another kind, is named. */
export const marketSymbolList =
  (kind?: MarketKind, why?: string): ValueRule =>
  (value, context) => {
    if (!(Array.isArray(value) && value.length > 0 && value.every(isSymbolText))) return "must be a non-empty list of market symbols";
    for (const item of value as readonly string[]) {
      const problem = marketProblem(item, context, `"${item}", `, kind, why);
      if (problem !== null) return problem;
    }
    return null;
  };

/** A market of the run, of any kind. */
export const symbol: ValueRule = marketSymbol();

/** A non-empty list of the run's markets, of any kind. */
export const symbolList: ValueRule = marketSymbolList();

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

/** The relation `larger` > `smaller` of two number parameters, refused naming both. */
export function greaterThan<P>(larger: keyof P & string, smaller: keyof P & string): RelationRule<P> {
  return (params) => (params[larger] > params[smaller] ? null : `${larger} "${String(params[larger])}" must be greater than ${smaller} "${String(params[smaller])}"`);
}

/**
 * The first broken rule of `params` in a run with `context`'s markets, as
 * `<field> "<value>" <rule>`: each field's own, in the order of `rules`,
 * then the relations; or null.
 */
export function paramsProblem<P>(params: P, context: AgentParamsContext, rules: ParamRules<P>, relations: readonly RelationRule<P>[] = []): string | null {
  const values = params as Record<string, unknown>;
  for (const [field, rule] of Object.entries(rules) as [string, ValueRule][]) {
    const problem = rule(values[field], context);
    if (problem !== null) return `${field} "${quote(values[field])}" ${problem}`;
  }
  for (const relation of relations) {
    const problem = relation(params, context);
    if (problem !== null) return problem;
  }
  return null;
}

/** Throws the problem, if any, from an agent's start: a run built without checkScenario refuses the same params, with the same words. */
export function refuseBadParams(kind: string, problem: string | null): void {
  if (problem !== null) throw new RangeError(`${kind} params.${problem}`);
}
