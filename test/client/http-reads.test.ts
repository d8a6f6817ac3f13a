/**
 * httpReadTransport's reads of reference data, market records, busts,
 * accounts and configuration, over a fake fetch: each asks its own route
 * with its query, and an answer its schema refuses is InvalidResponseError
 * named after the read. (Their answers against a live server, compared with
 * the in-process reads: test/conformance/sdk-live-agent.test.ts.)
 */
import { describe, expect, it } from "vitest";
import { InvalidResponseError } from "../../src/client/errors.ts";
import { httpReadTransport } from "../../src/client/transports/http-reads.ts";
import type { ReadOperation, ReadTransport } from "../../src/client/transport.ts";

const WALLET = "0x00000000000000000000000000000000000000aa";
const PAGE = { data: [], meta: { limit: 2 } };

/** Each read added with the reference data: how it is called, the URL it must ask, and a body it must accept. */
const READS: readonly [ReadOperation, (r: ReadTransport) => Promise<unknown>, string, unknown][] = [
  ["perpMarketDefinitions", (r) => r.perpMarketDefinitions(), "/v2/perpMarketDefinitions", []],
  ["spotMarketDefinitions", (r) => r.spotMarketDefinitions(), "/v2/spotMarketDefinitions", []],
  ["assetDefinitions", (r) => r.assetDefinitions(), "/v2/assetDefinitions", []],
  ["globalFeeParameters", (r) => r.globalFeeParameters(), "/v2/globalFeeParameters", { ogDiscount: "0.1", refereeDiscount: "0", referrerRebate: "0", affiliateReferrerRebate: "0" }],
  ["feeTiers", (r) => r.feeTiers(), "/v2/feeTiers", []],
  ["assetOraclePrices", (r) => r.assetOraclePrices(), "/v2/assetOraclePrices", []],
  ["marketPerpExecutions", (r) => r.marketPerpExecutions("ETHRUSDPERP", { limit: 2, startTime: 5 }), "/v2/market/ETHRUSDPERP/perpExecutions?limit=2&startTime=5", PAGE],
  ["marketSpotExecutions", (r) => r.marketSpotExecutions("WETHRUSD", { endTime: 9 }), "/v2/market/WETHRUSD/spotExecutions?endTime=9", PAGE],
  ["marketExecutionBusts", (r) => r.marketExecutionBusts("ETHRUSDPERP"), "/v2/market/ETHRUSDPERP/executionBusts", PAGE],
  ["walletExecutionBusts", (r) => r.walletExecutionBusts(WALLET, { limit: 2 }), `/v2/wallet/${WALLET}/executionBusts?limit=2`, PAGE],
  ["walletAccounts", (r) => r.walletAccounts(WALLET), `/v2/wallet/${WALLET}/accounts`, []],
  ["walletConfiguration", (r) => r.walletConfiguration(WALLET), `/v2/wallet/${WALLET}/configuration`, { feeTierId: 0, ogStatus: false, affiliateStatus: false, refereeStatus: false }],
];

/** A transport whose fetch answers 200 with `body` and records the URLs asked. */
function fake(body: unknown): { reads: ReadTransport; urls: string[] } {
  const urls: string[] = [];
  const fetch = (async (url: string) => {
    urls.push(url);
    return new Response(JSON.stringify(body), { status: 200, headers: { "content-type": "application/json" } });
  }) as typeof globalThis.fetch;
  return { reads: httpReadTransport("http://host/v2/", { fetch }), urls };
}

describe("httpReadTransport: reference data, market records, busts, accounts, configuration", () => {
  it.each(READS.map(([operation, read, url, body]) => [operation, read, url, body] as const))("%s asks its route and decodes its answer", async (_operation, read, url, body) => {
    const { reads, urls } = fake(body);
    expect(await read(reads)).toStrictEqual(body);
    expect(urls).toEqual([`http://host${url}`]);
  });

  it.each(READS.map(([operation, read]) => [operation, read] as const))("%s reports an answer its schema refuses as InvalidResponseError named after it", async (operation, read) => {
    const { reads } = fake({ data: "not a list", feeTierId: "x" });
    const error = await read(reads).then(() => undefined, (failure: unknown) => failure);
    expect(error).toBeInstanceOf(InvalidResponseError);
    expect(error).toMatchObject({ operation });
  });
});
