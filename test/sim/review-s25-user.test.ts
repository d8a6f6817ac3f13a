/**
 * Review s25 (user review): reproductions of defects found while writing an
 * agent (each failed before its fix).
 */
import { describe, expect, it } from "vitest";
import { ClientError, SubscribeFailedError } from "../../src/client/errors.ts";
import { MICROS_PER_SECOND } from "../../src/core/time.ts";
import { defineAgent } from "../../src/sim/agent.ts";
import { runScenario } from "../../src/sim/runner.ts";
import { defineScenario } from "../../src/sim/scenario.ts";

describe("review s25: the in-process stream refuses a subscribe as the SDK's live stream does", () => {
  it("a refused subscribe rejects with SubscribeFailedError (a ClientError), as src/client/errors.ts and the live ws-stream say", async () => {
    const caught: unknown[] = [];
    const subscriber = defineAgent<Record<string, never>>({
      kind: "bad-subscriber",
      description: "subscribes to a channel that does not exist",
      defaults: {},
      start(ctx) {
        ctx.after(MICROS_PER_SECOND, async () => {
          await ctx.stream.subscribe("/v2/market/NOPEPERP/depth", () => undefined).catch((error: unknown) => caught.push(error));
        });
      },
    });
    const scenario = defineScenario({
      name: "review-s25-subscribe",
      description: "",
      seed: 1,
      durationSeconds: 3,
      prices: [{ asset: "WETH", model: "gbm", start: 3000, hourlyVolatility: 0.01 }],
      agents: [{ name: "sub", agent: subscriber }],
    });
    await runScenario(scenario, { seed: 1 });
    expect(caught).toHaveLength(1);
    const error = caught[0] as Error;
    expect(error.message).toBe("Invalid channel name");
    // It was a sim-only `ConnectionError extends Error` (src/sim/transport.ts), neither of these.
    expect(error).toBeInstanceOf(ClientError);
    expect(error).toBeInstanceOf(SubscribeFailedError);
  });
});
