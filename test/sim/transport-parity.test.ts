/**
 * The in-process transport (src/sim/transport.ts) answers as the live server
 * does (audit scratch/s21/audit-parity.md): the same reads, made by an agent
 * in a simulated run and over HTTP against a live server, are refused with
 * the same RequestError; the sim rejects with the class the SDK's read
 * interface promises (RequestFailedError, `.code`, `.requestError`).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ClientError, RequestFailedError } from "../../src/client/errors.ts";
import type { ReadTransport } from "../../src/client/transport.ts";
import { DEFAULT_MARKETS } from "../../src/exchange/config.ts";
import { defineAgent } from "../../src/sim/agent.ts";
import { runScenario } from "../../src/sim/runner.ts";
import { defineScenario } from "../../src/sim/scenario.ts";
import { ETH, startRestWorld, type RestWorld } from "../conformance/helpers/rest-world.ts";
import { FLAT_FEEDS } from "./fixtures/flat-feeds.ts";

/** A well-formed wallet that owns no account, on both sides. */
const WALLET = "0x00000000000000000000000000000000000000aa";
/** A time (ms) for the time filters. */
const T = 1_767_225_600_000;

interface ReadCase {
  readonly label: string;
  /** The read through the agent's ReadTransport. */
  readonly sim: (reads: ReadTransport) => Promise<unknown>;
  /** The same read as a live GET path. */
  readonly live: string;
}

/** Reads the live server refuses with a 400 RequestError. */
const REFUSED: readonly ReadCase[] = [
  { label: "orderHistory with a cursor the service did not issue", sim: (r) => r.orderHistory(WALLET, { cursor: "bogus" }), live: `/v2/wallet/${WALLET}/orderHistory?cursor=bogus` },
  { label: "depth of an unknown symbol", sim: (r) => r.depth("NOPEPERP"), live: "/v2/market/NOPEPERP/depth" },
  // Parameters the live routes check (audit F4), in the routes' order: path parameter, then query.
  { label: "orderHistory with startTime after endTime", sim: (r) => r.orderHistory(WALLET, { startTime: T + 3_000, endTime: T + 1_000 }), live: `/v2/wallet/${WALLET}/orderHistory?startTime=${T + 3_000}&endTime=${T + 1_000}` },
  { label: "orderHistory with a negative startTime", sim: (r) => r.orderHistory(WALLET, { startTime: -1 }), live: `/v2/wallet/${WALLET}/orderHistory?startTime=-1` },
  { label: "orderHistory with a fractional endTime", sim: (r) => r.orderHistory(WALLET, { endTime: 1.5 }), live: `/v2/wallet/${WALLET}/orderHistory?endTime=1.5` },
  { label: "orderHistory with an endTime beyond the safe integers", sim: (r) => r.orderHistory(WALLET, { endTime: 2 ** 60 }), live: `/v2/wallet/${WALLET}/orderHistory?endTime=${2 ** 60}` },
  { label: "orderHistory with an empty cursor", sim: (r) => r.orderHistory(WALLET, { cursor: "" }), live: `/v2/wallet/${WALLET}/orderHistory?cursor=` },
  { label: "orderHistory of a malformed wallet (before its query)", sim: (r) => r.orderHistory("0x1234", { startTime: 2, endTime: 1 }), live: "/v2/wallet/0x1234/orderHistory?startTime=2&endTime=1" },
  { label: "openOrders of a malformed wallet", sim: (r) => r.openOrders("0x1234"), live: "/v2/wallet/0x1234/openOrders" },
  { label: "positions of a malformed wallet", sim: (r) => r.positions("not-a-wallet"), live: "/v2/wallet/not-a-wallet/positions" },
  { label: "balances of a malformed wallet", sim: (r) => r.balances(`${WALLET}0`), live: `/v2/wallet/${WALLET}0/accountBalances` },
  { label: "perpExecutions of a malformed wallet", sim: (r) => r.perpExecutions("0xZZ"), live: "/v2/wallet/0xZZ/perpExecutions" },
  { label: "perpExecutions with limit 0", sim: (r) => r.perpExecutions(WALLET, { limit: 0 }), live: `/v2/wallet/${WALLET}/perpExecutions?limit=0` },
  { label: "perpExecutions with limit 1001", sim: (r) => r.perpExecutions(WALLET, { limit: 1001 }), live: `/v2/wallet/${WALLET}/perpExecutions?limit=1001` },
  { label: "perpExecutions with startTime after endTime", sim: (r) => r.perpExecutions(WALLET, { startTime: 2, endTime: 1 }), live: `/v2/wallet/${WALLET}/perpExecutions?startTime=2&endTime=1` },
  { label: "depth of a symbol off its pattern", sim: (r) => r.depth("ETH-PERP"), live: "/v2/market/ETH-PERP/depth" },
  // depth's limit (audit F2): out of range is INPUT_VALIDATION_ERROR, checked before the symbol resolves.
  { label: "depth with limit 0", sim: (r) => r.depth(ETH, { limit: 0 }), live: `/v2/market/${ETH}/depth?limit=0` },
  { label: "depth with limit 5000", sim: (r) => r.depth(ETH, { limit: 5000 }), live: `/v2/market/${ETH}/depth?limit=5000` },
  { label: "depth with limit 1001", sim: (r) => r.depth(ETH, { limit: 1001 }), live: `/v2/market/${ETH}/depth?limit=1001` },
  { label: "depth with a fractional limit", sim: (r) => r.depth(ETH, { limit: 1.5 }), live: `/v2/market/${ETH}/depth?limit=1.5` },
  { label: "depth of an unknown symbol with limit 0", sim: (r) => r.depth("NOPEPERP", { limit: 0 }), live: "/v2/market/NOPEPERP/depth?limit=0" },
  // The reads of spot executions, transfers and summaries (s22).
  { label: "spotExecutions of a malformed wallet", sim: (r) => r.spotExecutions("0xZZ"), live: "/v2/wallet/0xZZ/spotExecutions" },
  { label: "spotExecutions with limit 1001", sim: (r) => r.spotExecutions(WALLET, { limit: 1001 }), live: `/v2/wallet/${WALLET}/spotExecutions?limit=1001` },
  { label: "spotExecutions with startTime after endTime", sim: (r) => r.spotExecutions(WALLET, { startTime: 2, endTime: 1 }), live: `/v2/wallet/${WALLET}/spotExecutions?startTime=2&endTime=1` },
  { label: "transfers of a malformed wallet (before its query)", sim: (r) => r.transfers("0x1234", { type: "BOGUS" }), live: "/v2/wallet/0x1234/transfers?type=BOGUS" },
  { label: "transfers with an unknown type", sim: (r) => r.transfers(WALLET, { type: "BOGUS" }), live: `/v2/wallet/${WALLET}/transfers?type=BOGUS` },
  { label: "transfers with a cursor the service did not issue", sim: (r) => r.transfers(WALLET, { cursor: "bogus" }), live: `/v2/wallet/${WALLET}/transfers?cursor=bogus` },
  { label: "transfers with an empty cursor", sim: (r) => r.transfers(WALLET, { cursor: "" }), live: `/v2/wallet/${WALLET}/transfers?cursor=` },
  { label: "transfers with limit 0 and an unknown type (limit first)", sim: (r) => r.transfers(WALLET, { limit: 0, type: "BOGUS" }), live: `/v2/wallet/${WALLET}/transfers?limit=0&type=BOGUS` },
  { label: "transfers with an empty cursor and an unknown type (cursor first)", sim: (r) => r.transfers(WALLET, { cursor: "", type: "BOGUS" }), live: `/v2/wallet/${WALLET}/transfers?cursor=&type=BOGUS` },
  { label: "transfers with startTime after endTime", sim: (r) => r.transfers(WALLET, { startTime: 2, endTime: 1 }), live: `/v2/wallet/${WALLET}/transfers?startTime=2&endTime=1` },
  { label: "perpMarketSummary of a spot symbol", sim: (r) => r.perpMarketSummary("WETHRUSD"), live: "/v2/perpMarket/WETHRUSD/summary" },
  { label: "perpMarketSummary of a symbol off its pattern", sim: (r) => r.perpMarketSummary("ETH-PERP"), live: "/v2/perpMarket/ETH-PERP/summary" },
  { label: "spotMarketSummary of a perp symbol", sim: (r) => r.spotMarketSummary(ETH), live: `/v2/spotMarket/${ETH}/summary` },
  { label: "spotMarketSummary of an unknown symbol", sim: (r) => r.spotMarketSummary("NOPE"), live: "/v2/spotMarket/NOPE/summary" },
  // The reads of market records, busts, accounts and configuration: the symbol's pattern, then the query, then the market.
  { label: "marketPerpExecutions of an unknown symbol", sim: (r) => r.marketPerpExecutions("NOPEPERP"), live: "/v2/market/NOPEPERP/perpExecutions" },
  { label: "marketPerpExecutions of an unknown symbol with limit 0 (limit first)", sim: (r) => r.marketPerpExecutions("NOPEPERP", { limit: 0 }), live: "/v2/market/NOPEPERP/perpExecutions?limit=0" },
  { label: "marketSpotExecutions of a perp symbol", sim: (r) => r.marketSpotExecutions(ETH), live: `/v2/market/${ETH}/spotExecutions` },
  { label: "marketExecutionBusts of a symbol off its pattern", sim: (r) => r.marketExecutionBusts("ETH-PERP", { limit: 0 }), live: "/v2/market/ETH-PERP/executionBusts?limit=0" },
  { label: "marketExecutionBusts with startTime after endTime", sim: (r) => r.marketExecutionBusts(ETH, { startTime: 2, endTime: 1 }), live: `/v2/market/${ETH}/executionBusts?startTime=2&endTime=1` },
  { label: "walletExecutionBusts of a malformed wallet", sim: (r) => r.walletExecutionBusts("0xZZ"), live: "/v2/wallet/0xZZ/executionBusts" },
  { label: "walletExecutionBusts with limit 1001", sim: (r) => r.walletExecutionBusts(WALLET, { limit: 1001 }), live: `/v2/wallet/${WALLET}/executionBusts?limit=1001` },
  { label: "walletAccounts of a malformed wallet", sim: (r) => r.walletAccounts("0x1234"), live: "/v2/wallet/0x1234/accounts" },
  { label: "walletConfiguration of a malformed wallet", sim: (r) => r.walletConfiguration("not-a-wallet"), live: "/v2/wallet/not-a-wallet/configuration" },
];

/** Reads both sides answer (an upper-case wallet spelling is well formed). */
const ANSWERED: readonly ReadCase[] = [
  { label: "orderHistory of an upper-case wallet with startTime equal to endTime", sim: (r) => r.orderHistory(WALLET.toUpperCase().replace("0X", "0x"), { startTime: T, endTime: T }), live: `/v2/wallet/${WALLET.toUpperCase().replace("0X", "0x")}/orderHistory?startTime=${T}&endTime=${T}` },
  { label: "perpExecutions with limit 1000", sim: (r) => r.perpExecutions(WALLET, { limit: 1000 }), live: `/v2/wallet/${WALLET}/perpExecutions?limit=1000` },
  { label: "spotExecutions with limit 1000", sim: (r) => r.spotExecutions(WALLET, { limit: 1000 }), live: `/v2/wallet/${WALLET}/spotExecutions?limit=1000` },
  { label: "transfers of a wallet without accounts, filtered", sim: (r) => r.transfers(WALLET, { type: "DEPOSIT", startTime: T, limit: 7 }), live: `/v2/wallet/${WALLET}/transfers?type=DEPOSIT&startTime=${T}&limit=7` },
  { label: "walletExecutionBusts of a wallet without accounts, filtered", sim: (r) => r.walletExecutionBusts(WALLET, { startTime: T, limit: 7 }), live: `/v2/wallet/${WALLET}/executionBusts?startTime=${T}&limit=7` },
  { label: "walletAccounts of a wallet without accounts", sim: (r) => r.walletAccounts(WALLET), live: `/v2/wallet/${WALLET}/accounts` },
];

const simOutcomes = new Map<string, { ok: true; value: unknown } | { ok: false; error: unknown }>();

const probe = defineAgent({
  kind: "parity-probe",
  description: "makes each read once and keeps its outcome",
  defaults: {},
  async start(ctx) {
    for (const read of [...REFUSED, ...ANSWERED]) {
      try {
        simOutcomes.set(read.label, { ok: true, value: await read.sim(ctx.reads) });
      } catch (error) {
        simOutcomes.set(read.label, { ok: false, error });
      }
    }
  },
});

const scenario = defineScenario({
  name: "transport-parity",
  description: "one agent's reads, compared with the live server's answers",
  seed: 1,
  durationSeconds: 2,
  markets: DEFAULT_MARKETS,
  prices: FLAT_FEEDS,
  agents: [{ name: "probe", agent: probe }],
});

let live: RestWorld;

beforeAll(async () => {
  simOutcomes.clear();
  await runScenario(scenario);
  live = await startRestWorld({ bare: true });
});

afterAll(async () => {
  await live?.close();
});

describe("sim reads refused as the live server refuses them", () => {
  it.each(REFUSED.map((read) => [read.label, read] as const))("%s: RequestFailedError with the live RequestError", async (_label, read) => {
    const answer = await live.get(read.live);
    expect(answer.status).toBe(400);
    const outcome = simOutcomes.get(read.label);
    expect(outcome?.ok).toBe(false);
    const error = (outcome as { error: unknown }).error;
    expect(error).toBeInstanceOf(ClientError);
    expect(error).toBeInstanceOf(RequestFailedError);
    const failed = error as RequestFailedError;
    expect(failed.code).toBe(answer.body.error);
    expect(failed.requestError).toEqual(answer.body);
    expect(failed.details).toBe(answer.body.message);
  });
});

describe("sim reads answered as the live server answers them", () => {
  it.each(ANSWERED.map((read) => [read.label, read] as const))("%s", async (_label, read) => {
    const answer = await live.get(read.live);
    expect(answer.status).toBe(200);
    expect(simOutcomes.get(read.label)).toEqual({ ok: true, value: answer.body });
  });
});
