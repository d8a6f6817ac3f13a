/**
 * `shadowbook serve <scenario>`: the live server with a scenario's world
 * instead of the built-in one: its markets, assets and fee tiers, its funded
 * accounts, its price feeds, its timeline, and its agents, running
 * in-process against the live Exchange alongside real clients.
 *
 * The agents run on a simulation kernel of their own whose clock follows
 * the live driver: every time the driver's virtual time moves (an input, a
 * wake-up, POST /admin/clock), the kernel runs the agents' events due by
 * then. With `--clock manual` the agents therefore act only when the clock
 * is advanced; their inputs are stamped with the Exchange's time, which is
 * already the new time, so the events due in a long jump all reach the
 * Exchange at its end (advance in small steps for a finer-grained world). An agent that fails is reported on stderr and the server
 * goes on (its clients are not the agent's). Live, signatures are always verified (real clients are
 * connected), so the agents sign with their keys.
 *
 * The scenario's duration does not apply: the server runs until stopped
 * (a price path ends where its file ends; GBM feeds go on).
 */
import { RngRoot } from "../core/rng.ts";
import type { Micros } from "../core/time.ts";
import type { ExchangeConfig } from "../exchange/config.ts";
import type { LiveContext } from "../live/server.ts";
import { AgentFailedError, AgentHost } from "../sim/agent-host.ts";
import { DEFAULT_BASIS_SD, Oracle, type PricePath } from "../sim/oracle.ts";
import { exchangeConfigOf, stageScenario } from "../sim/run.ts";
import type { Scenario } from "../sim/scenario.ts";
import { SimWorld } from "../sim/world.ts";

/** Far enough that nothing a server does reaches it: the live run has no end. */
const OPEN_ENDED_MICROS = Number.MAX_SAFE_INTEGER;

export interface LiveScenario {
  readonly config: ExchangeConfig;
  /** Installs the scenario in the started server (the server's `setup`). */
  setup(context: LiveContext): void;
  /** Runs the agents' events due by `now` (the server's `onAdvance`). */
  advance(now: Micros): void;
  readonly agentCount: number;
}

/** The scenario's exchange config with the CLI's signing domain and exchange id. */
export function liveScenario(scenario: Scenario, paths: ReadonlyMap<string, PricePath>, base: Pick<ExchangeConfig, "signing">, exchangeId: number, seed: number): LiveScenario {
  const scenarioConfig = exchangeConfigOf(scenario, "signed");
  const config: ExchangeConfig = {
    ...scenarioConfig,
    signing: base.signing,
    risk: { ...scenarioConfig.risk, exchangeId },
    gateway: { ...scenarioConfig.gateway, exchangeId },
  };
  let world: SimWorld | undefined;
  let host: AgentHost | undefined;
  let running = false;
  /**
   * False while setup stages the scenario. Staging hands inputs to the
   * driver (the agents' accounts), and on the wall clock each moves the
   * driver's time and calls `advance`: catching up then would move the
   * kernel's clock past `start` before the feeds schedule their first
   * prices there ("cannot schedule at ...": every wall-clock serve of a
   * scenario failed so at start). The time is noted, and the first catch-up
   * runs once the scenario is staged.
   */
  let staged = false;
  let target = 0;
  const live: LiveScenario = {
    config,
    agentCount: scenario.agents.length,
    setup(context) {
      const driver = context.driver;
      const start = driver.now();
      world = new SimWorld({ exchange: context.exchange, startMicros: start, handle: (input) => driver.handle(input) });
      const rng = new RngRoot(seed);
      host = new AgentHost(world, config, rng, "signed");
      for (const agent of scenario.agents) host.add(agent);
      const oracle = new Oracle(scenario.prices, config.risk, rng, start, paths, { sd: scenario.oracleBasisSd ?? DEFAULT_BASIS_SD, ...(scenario.oracleBasisMean === undefined ? {} : { mean: scenario.oracleBasisMean }) });
      stageScenario(scenario, world, host, oracle, OPEN_ENDED_MICROS);
      staged = true;
      live.advance(start);
    },
    advance(now) {
      target = Math.max(target, now);
      if (world === undefined || host === undefined || !staged || running) return; // the agents' own inputs move time too: no re-entry
      running = true;
      void catchUp(world, host).finally(() => {
        running = false;
      });
    },
  };
  return live;

  /**
   * Runs the agents' events due by the target time, letting their promise
   * continuations run between events (as the runner does), until nothing
   * more is due by then.
   */
  async function catchUp(world: SimWorld, host: AgentHost): Promise<void> {
    for (;;) {
      const kernel = world.kernel;
      const stats = kernel.run({ untilMicros: Math.max(target, kernel.now()), pauseWhen: () => host.pendingContinuations });
      world.flush();
      if (host.failure !== undefined) {
        console.error(new AgentFailedError(host.failure).message);
        host.failure = undefined;
      }
      if (!stats.paused) return;
      host.pendingContinuations = false;
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }
}

/** How often a wall-clock server lets the agents act when no input arrives. */
export const LIVE_AGENT_TICK_MS = 50;
