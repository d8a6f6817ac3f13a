import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { PendingMatch } from "../../src/exchange/settlement-desk.ts";
import { PERP_RECORD_KEYS, perpExecutionRecord, SPOT_RECORD_KEYS, spotExecutionRecord } from "../../src/exchange/settlement-desk.ts";
import type { AppliedPerpExecution, AppliedSpotExecution, PerpExecutionRecord, SpotExecutionRecord } from "../../src/risk/types.ts";
import { runFlow } from "./flow.ts";

/** The published record as a spread of the risk layer's record then the order ids would make it: the reference for key order and values. */
function reference(record: object, match: PendingMatch | undefined): Record<string, unknown> {
  const copy: Record<string, unknown> = { ...record };
  if (match !== undefined) {
    if (!match.takerRemovedInRound) copy["takerOrderId"] = match.fill.takerOrderId;
    if (!match.fill.makerFilled) copy["makerOrderId"] = match.fill.makerOrderId;
  }
  return copy;
}

function matchOf(takerRemovedInRound: boolean, makerFilled: boolean): PendingMatch {
  return { fill: { takerOrderId: "11", makerOrderId: "12", makerFilled }, takerRemovedInRound } as unknown as PendingMatch;
}

/** A record with the listed keys that `present` selects (required ones always), in list order, each with a distinct value. */
function recordOf(keys: readonly string[], present: (key: string) => boolean): Record<string, unknown> {
  const record: Record<string, unknown> = {};
  keys.forEach((key, i) => {
    if (present(key)) record[key] = key === "exchangeId" || key.endsWith("AccountId") || key === "timestamp" || key === "sequenceNumber" ? i : `v${i}`;
  });
  return record;
}

const PERP_REQUIRED = new Set(["exchangeId", "symbol", "takerAccountId", "qty", "side", "price", "takerFee", "type", "timestamp", "sequenceNumber", "fillId"]);

describe("execution records", () => {
  it("copies every member of a full perp record, in the order of PERP_RECORD_KEYS, then the order ids", () => {
    const source = recordOf(PERP_RECORD_KEYS, () => true) as unknown as PerpExecutionRecord;
    const record = perpExecutionRecord({ record: source, ledger: [] }, matchOf(false, false));
    expect(Object.keys(record)).toEqual([...PERP_RECORD_KEYS, "takerOrderId", "makerOrderId"]);
    expect(JSON.stringify(record)).toBe(JSON.stringify(reference(source, matchOf(false, false))));
  });

  it("copies every member of a spot record, in the order of SPOT_RECORD_KEYS, then the order ids", () => {
    const source = recordOf(SPOT_RECORD_KEYS, () => true) as unknown as SpotExecutionRecord;
    for (const [removed, filled] of [[false, false], [true, false], [false, true], [true, true]] as const) {
      const record = spotExecutionRecord({ record: source, ledger: [] }, matchOf(removed, filled));
      expect(JSON.stringify(record)).toBe(JSON.stringify(reference(source, matchOf(removed, filled))));
    }
  });

  it("equals a spread of the record then the order ids, key order included, whichever optional members are present", () => {
    const optional = PERP_RECORD_KEYS.filter((key) => !PERP_REQUIRED.has(key));
    fc.assert(
      fc.property(fc.subarray(optional), fc.option(fc.tuple(fc.boolean(), fc.boolean()), { nil: undefined }), (present, flags) => {
        const source = recordOf(PERP_RECORD_KEYS, (key) => PERP_REQUIRED.has(key) || (present as readonly string[]).includes(key)) as unknown as PerpExecutionRecord;
        const match = flags === undefined ? undefined : matchOf(flags[0], flags[1]);
        expect(JSON.stringify(perpExecutionRecord({ record: source, ledger: [] }, match))).toBe(JSON.stringify(reference(source, match)));
      }),
      { seed: 42, numRuns: 300 },
    );
  });

  it("meets the risk layer's records in the order of PERP_RECORD_KEYS, and publishes each as the reference would", () => {
    const seen: { applied: AppliedPerpExecution; published: string }[] = [];
    const spotSeen: AppliedSpotExecution[] = [];
    runFlow({ seed: 3, accounts: 12, durationMicros: 60_000_000, ordersPerSecond: 60 }, (exchange) => {
      // Matches settle through settlePerpExecution; liquidations and market closes apply through neither.
      for (const method of ["applyPerpExecution", "settlePerpExecution"] as const) {
        const apply = exchange.risk[method].bind(exchange.risk);
        exchange.risk[method] = (input, atMicros) => {
          const applied = apply(input, atMicros);
          seen.push({ applied, published: "" });
          return applied;
        };
      }
      const applySpot = exchange.risk.applySpotExecution.bind(exchange.risk);
      exchange.risk.applySpotExecution = (input, atMicros) => {
        const applied = applySpot(input, atMicros);
        spotSeen.push(applied);
        return applied;
      };
      exchange.subscribe((output) => {
        if (output.kind === "perpExecution") seen[seen.length - 1]!.published = JSON.stringify(output.record);
      });
    });
    expect(seen.length).toBeGreaterThan(100);
    const shapes = new Set<string>();
    for (const { applied, published } of seen) {
      const keys = Object.keys(applied.record);
      shapes.add(keys.join());
      // In list order: each key's place in the list grows.
      const places = keys.map((key) => (PERP_RECORD_KEYS as readonly string[]).indexOf(key));
      expect(places.every((place, i) => place >= 0 && (i === 0 || place > places[i - 1]!))).toBe(true);
      const extra = JSON.parse(published) as Record<string, unknown>;
      expect(published).toBe(JSON.stringify(Object.assign({ ...applied.record }, pick(extra, ["takerOrderId", "makerOrderId"]))));
    }
    // Fees split and positions closed: the flow covers the optional members.
    expect(shapes.size).toBeGreaterThan(2);
    for (const applied of spotSeen) expect(Object.keys(applied.record)).toEqual(SPOT_RECORD_KEYS.filter((key) => key in applied.record));
  });
});

function pick(source: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  const picked: Record<string, unknown> = {};
  for (const key of keys) if (key in source) picked[key] = source[key];
  return picked;
}
