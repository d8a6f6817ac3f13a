/**
 * A replay backtest: the market is the recorded depth and executions of the
 * default scenario (data/default-sample.arrow: ETHRUSDPERP, BTCRUSDPERP,
 * WETHRUSD), not simulated agents. The replayed books follow the
 * recording; the market maker of agents/replay-market-maker.ts joins the
 * best bid and ask of each market with postOnly orders and waits in the
 * recorded queues.
 *
 * - Queue position: probabilistic, power split with n = 2 (hftbacktest's
 *   PowerProbQueueFunc): a cancel at the order's level falls behind it
 *   rather than ahead when more rests behind. `{ model: "riskAverse" }`
 *   gives the conservative bound (only trades advance the order).
 * - Own orders do not change the replayed book (`impact: false`); trades
 *   move the queues at their match time (see src/backtest/tape.ts).
 * - Latency: about 1 ms each way, market data 1.5 ms (DEFAULT_AGENT_LATENCY).
 * - Fees: maker 0, taker 4 bps (fee tier 1 of the built-in markets).
 */
import { replayMarketMaker } from "../agents/replay-market-maker.ts";
import { defineScenario } from "../src/sim/scenario.ts";

export default defineScenario({
  name: "replay-market-maker",
  description: "a market maker joining the best quotes of the recorded default market, its orders waiting in the replayed queues",
  seed: 1,
  // At most an hour of the recording (the shipped sample is shorter: it all replays).
  durationSeconds: 3_600,
  prices: [],
  agents: [],
  marketData: {
    recording: "default-sample.arrow",
    queue: { model: "probabilistic", split: { fn: "power", n: 2 } },
    impact: false,
    strategy: replayMarketMaker,
    params: { quoteNotional: 3_000, maxPositionNotional: 30_000, refreshMicros: 2_000_000, requoteTicks: 1, skewTicksPerLot: 0 },
    fees: { makerRate: "0", takerRate: "0.0004" },
  },
});
