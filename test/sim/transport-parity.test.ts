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

/** A well-formed wallet that owns no account, on both sides. */
const WALLET = "0x00000000000000000000000000000000000000aa";

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
];

const simOutcomes = new Map<string, { ok: true; value: unknown } | { ok: false; error: unknown }>();

const probe = defineAgent({
  kind: "parity-probe",
  description: "makes each read once and keeps its outcome",
  defaults: {},
  async start(ctx) {
    for (const read of REFUSED) {
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
  prices: [
    { asset: "WETH", model: "gbm", start: 3000, hourlyVolatility: 0 },
    { asset: "WBTC", model: "gbm", start: 60000, hourlyVolatility: 0 },
  ],
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
