/**
 * Shared pieces of the agent tests: short scenarios around one agent, price
 * paths given point by point, and an observer that keeps what the tests
 * read (order rows, executions, inputs).
 */
import type { Micros } from "../../src/core/time.ts";
import type { ExchangeInput } from "../../src/exchange/inputs.ts";
import type { HostedAgent } from "../../src/sim/agent-host.ts";
import type { PricePath } from "../../src/sim/oracle.ts";
import type { RunObserver, RunSetup, SimRun } from "../../src/sim/run.ts";
import type { GbmFeed, PathFeed } from "../../src/sim/scenario.ts";
import type { Order } from "../../src/spec/order.ts";
import type { PerpExecution } from "../../src/spec/execution.ts";

/** Calm feeds for the two perp assets. */
export const CALM_FEEDS: readonly GbmFeed[] = [
  { asset: "WETH", model: "gbm", start: 3_000, hourlyVolatility: 0.005 },
  { asset: "WBTC", model: "gbm", start: 60_000, hourlyVolatility: 0.005, decimals: 1 },
];

/**
 * A path feed of `asset` through the given (second, price) points, linear in
 * between, one point per second; returns the feed and the path to pass as
 * the run's `paths`.
 */
export function pathFeed(asset: string, points: readonly (readonly [number, number])[], decimals = 2): { feed: PathFeed; paths: Map<string, PricePath> } {
  const offsetsMs: number[] = [];
  const prices: number[] = [];
  for (let i = 0; i + 1 < points.length; i++) {
    const [fromSecond, fromPrice] = points[i]!;
    const [toSecond, toPrice] = points[i + 1]!;
    for (let second = fromSecond; second < toSecond; second++) {
      offsetsMs.push(second * 1_000);
      prices.push(fromPrice + ((toPrice - fromPrice) * (second - fromSecond)) / (toSecond - fromSecond));
    }
  }
  const [lastSecond, lastPrice] = points[points.length - 1]!;
  offsetsMs.push(lastSecond * 1_000);
  prices.push(lastPrice);
  const file = `test-${asset.toLowerCase()}.csv`;
  return { feed: { asset, model: "path", file, decimals }, paths: new Map([[file, { offsetsMs, prices }]]) };
}

export function agentOf(run: SimRun, name: string): HostedAgent {
  const agent = run.host.agents.find((candidate) => candidate.name === name);
  if (agent === undefined) throw new Error(`no agent "${name}" in the run`);
  return agent;
}

export function countOf(run: SimRun, name: string, key: string): number {
  return agentOf(run, name).counts.get(key) ?? 0;
}

/** Keeps the order rows, perp executions and request inputs of a run, with their virtual times. */
export class RunLog implements RunObserver {
  setup: RunSetup | undefined;
  readonly orders: { atMicros: Micros; wallet: string; row: Order }[] = [];
  readonly executions: { atMicros: Micros; record: PerpExecution }[] = [];
  readonly requests: { atMicros: Micros; op: string; body: Record<string, unknown> }[] = [];
  busts = 0;

  begin(setup: RunSetup): void {
    this.setup = setup;
  }

  input(atMicros: Micros, input: ExchangeInput): void {
    if (input.kind === "request") this.requests.push({ atMicros, op: input.op, body: input.body as unknown as Record<string, unknown> });
  }

  output(output: Parameters<NonNullable<RunObserver["output"]>>[0], atMicros: Micros): void {
    if (output.kind === "order") this.orders.push({ atMicros, wallet: output.wallet.toLowerCase(), row: output.row as Order });
    else if (output.kind === "perpExecution") this.executions.push({ atMicros, record: output.record });
    else if (output.kind === "bust") this.busts += 1;
  }

  ordersOf(agent: HostedAgent): Order[] {
    const wallet = agent.wallet.toLowerCase();
    return this.orders.filter((entry) => entry.wallet === wallet).map((entry) => entry.row);
  }

  requestsOf(agent: HostedAgent, op?: string): { atMicros: Micros; op: string; body: Record<string, unknown> }[] {
    return this.requests.filter((entry) => entry.body["accountId"] === agent.accountId && (op === undefined || entry.op === op));
  }

  /** Seconds since the start of the run. */
  seconds(atMicros: Micros): number {
    return (atMicros - this.setup!.startMicros) / 1_000_000;
  }
}
