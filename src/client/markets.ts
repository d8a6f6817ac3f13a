/**
 * The market directory a client is given: symbol -> marketId and kind.
 *
 * Requests name markets by symbol, but signatures bind the numeric marketId
 * (spec 5.5): a perp market signs its id from perpMarketDefinitions, a spot
 * market its id from spotMarketDefinitions plus 10^10 (reference/signing.md;
 * the offset is applied by src/signing, exactly once). So the client needs
 * the definitions before it can sign; build the directory from the two REST
 * reads (GET /v2/perpMarketDefinitions and /v2/spotMarketDefinitions) or
 * from a scenario's market list. Full definitions are accepted: only symbol
 * and marketId are read.
 */
import type { MarketRef } from "../signing/messages.ts";
import { SPOT_MARKET_ID_OFFSET } from "../signing/domain.ts";
import { SYMBOL_PATTERN } from "../spec/scalars.ts";
import type { MarketDefinition, SpotMarketDefinition } from "../spec/market.ts";
import { ClientConfigError, MarketNotFoundError } from "./errors.ts";

export type MarketKind = "perp" | "spot";

export interface MarketEntry {
  readonly symbol: string;
  /** The id as listed in the market definitions (a spot id without the signing offset). */
  readonly marketId: number;
  readonly kind: MarketKind;
}

export interface MarketDirectory {
  /** The market of `symbol` (exact, case-sensitive), or undefined. */
  get(symbol: string): MarketEntry | undefined;
  /** The market of `symbol`; throws MarketNotFoundError when there is none. */
  require(symbol: string): MarketEntry;
  /** Every market: perp markets first, each kind in the order given. */
  readonly entries: readonly MarketEntry[];
}

export interface CreateMarketDirectoryParameters {
  perp?: readonly Pick<MarketDefinition, "symbol" | "marketId">[];
  spot?: readonly Pick<SpotMarketDefinition, "symbol" | "marketId">[];
}

function checkedEntry(definition: { symbol: string; marketId: number }, kind: MarketKind): MarketEntry {
  const { symbol, marketId } = definition;
  if (typeof symbol !== "string" || !SYMBOL_PATTERN.test(symbol)) {
    throw new ClientConfigError(`${kind} market symbol "${String(symbol)}" does not match ${SYMBOL_PATTERN.source}`);
  }
  if (!Number.isSafeInteger(marketId) || marketId < 0) {
    throw new ClientConfigError(`${kind} market "${symbol}" marketId "${String(marketId)}" is not a non-negative safe integer`);
  }
  if (kind === "spot" && BigInt(marketId) >= SPOT_MARKET_ID_OFFSET) {
    // The listed spot id is wanted: the signing offset is added when signing.
    throw new ClientConfigError(`spot market "${symbol}" marketId "${marketId}" must be below ${SPOT_MARKET_ID_OFFSET} (pass the listed id)`);
  }
  return Object.freeze({ symbol, marketId, kind });
}

export function createMarketDirectory(parameters: CreateMarketDirectoryParameters): MarketDirectory {
  const bySymbol = new Map<string, MarketEntry>();
  const ids = new Set<string>();
  const add = (entry: MarketEntry): void => {
    if (bySymbol.has(entry.symbol)) throw new ClientConfigError(`market symbol "${entry.symbol}" is listed twice`);
    const idKey = `${entry.kind}:${entry.marketId}`;
    if (ids.has(idKey)) throw new ClientConfigError(`${entry.kind} marketId "${entry.marketId}" is listed twice`);
    ids.add(idKey);
    bySymbol.set(entry.symbol, entry);
  };
  for (const definition of parameters.perp ?? []) add(checkedEntry(definition, "perp"));
  for (const definition of parameters.spot ?? []) add(checkedEntry(definition, "spot"));
  const entries = Object.freeze([...bySymbol.values()]);
  return Object.freeze({
    entries,
    get: (symbol: string) => bySymbol.get(symbol),
    require(symbol: string): MarketEntry {
      const entry = bySymbol.get(symbol);
      if (entry === undefined) throw new MarketNotFoundError(symbol);
      return entry;
    },
  });
}

/** The market as src/signing's message builders take it. */
export function signingMarketRef(entry: MarketEntry): MarketRef {
  return { marketId: BigInt(entry.marketId), isSpot: entry.kind === "spot" };
}
