/**
 * One simulated run of a scenario, set up and ready to step: the world
 * (kernel + Exchange), the agents' accounts and programs, the oracle feeds,
 * the timeline of faults and admin actions, and the observers' sampling.
 *
 * Everything here is deterministic: the same scenario, seed and code give
 * the same inputs at the same virtual times, so the same outputs and the
 * same fingerprint. The driver (runner.ts) only decides when to step and
 * lets promise continuations run between events; it measures wall time.
 *
 * Order at the start time (all at t0, in this order): accounts are created
 * and funded, the feeds publish their first prices, the agents start, then
 * timeline entries at second 0.
 */
import { RngRoot } from "../core/rng.ts";
import { MICROS_PER_MILLI, MICROS_PER_SECOND, type Micros } from "../core/time.ts";
import { DEFAULT_GATEWAY_CONFIG, defaultExchangeConfig, type ExchangeConfig } from "../exchange/config.ts";
import type { ExchangeOutput } from "../exchange/outputs.ts";
import type { ExchangeInput } from "../exchange/inputs.ts";
import { DEFAULT_SIGNING_CONFIG } from "../signing/domain.ts";
import { AgentFailedError, AgentHost, type HostedAgent } from "./agent-host.ts";
import { ExchangeInvariants } from "./invariants.ts";
import { DEFAULT_BASIS_SD, Oracle, type PricePath } from "./oracle.ts";
import { chainSettingsOf, DEFAULT_START_MS, durationProblem, marketDefinitionsOf, ScenarioError, type Scenario, type SignatureMode } from "./scenario.ts";
import { SimWorld } from "./world.ts";

/** What observers (statistics, recorders, reports) are told about the run. */
export interface RunSetup {
  readonly scenario: Scenario;
  readonly seed: number;
  readonly signatures: SignatureMode;
  readonly config: ExchangeConfig;
  readonly startMicros: Micros;
  readonly endMicros: Micros;
  readonly agents: readonly HostedAgent[];
  readonly world: SimWorld;
  readonly oracle: Oracle;
}

/**
 * Watches a run. `output` sees every Exchange output in order; `sample`
 * is called every `sampleEveryMs` of virtual time (default 1000) for series
 * (positions, balances, depth); `input` sees every input (the input log).
 * Observers must not act on the exchange.
 */
export interface RunObserver {
  begin?(setup: RunSetup): void;
  /** Every input, before it is handled. */
  input?(atMicros: Micros, input: ExchangeInput): void;
  /** Every step where only the Exchange's timers run, before they run (with `input`: the input log). */
  advance?(atMicros: Micros): void;
  output?(output: ExchangeOutput, atMicros: Micros): void;
  sample?(atMicros: Micros): void;
}

export interface SimRunOptions {
  /** Overrides the scenario's seed. */
  seed?: number;
  /** Overrides the scenario's signature mode. */
  signatures?: SignatureMode;
  /** Overrides the scenario's duration. */
  durationSeconds?: number;
  /** Recorded price paths, by file name as the scenario names them (the driver reads the files). */
  paths?: ReadonlyMap<string, PricePath>;
  observers?: readonly RunObserver[];
  /** Check the exchange invariants: cheap ones on every output, the state ones after every `invariantEveryBlocks` blocks. */
  invariants?: boolean;
  invariantEveryBlocks?: number;
  /** Virtual ms between observer samples. Default 1000. */
  sampleEveryMs?: number;
}

/** The exchange configuration a scenario describes. */
export function exchangeConfigOf(scenario: Scenario, signatures: SignatureMode): ExchangeConfig {
  const chain = chainSettingsOf(scenario);
  return defaultExchangeConfig(DEFAULT_SIGNING_CONFIG, {
    risk: marketDefinitionsOf(scenario),
    engine: scenario.engine ?? {},
    chain,
    gateway: { ...DEFAULT_GATEWAY_CONFIG, ...scenario.gateway, verifySignatures: signatures === "signed" },
  });
}

/**
 * Puts a scenario in motion in a world whose agents were added: opens their
 * accounts, starts the feeds (first prices now), starts the agents, and
 * schedules the timeline. Used by SimRun and by `shadowbook serve <scenario>`.
 */
export function stageScenario(scenario: Scenario, world: SimWorld, host: AgentHost, oracle: Oracle, endMicros: Micros): void {
  const kernel = world.kernel;
  const startMicros = kernel.now();
  host.openAccounts();
  oracle.start(
    (at, run) => {
      if (at <= endMicros) kernel.schedule(at, run);
    },
    (input) => {
      const answer = world.handle(input);
      if (!answer.ok) throw new ScenarioError(`scenario "${scenario.name}": the oracle's prices were refused: ${answer.error.message}`);
    },
  );
  host.startAll();
  for (const [index, entry] of (scenario.timeline ?? []).entries()) {
    const at = startMicros + Math.round(entry.atSeconds * MICROS_PER_SECOND);
    if (at > endMicros) continue;
    kernel.schedule(at, () => {
      const input: ExchangeInput = "admin" in entry ? { kind: "admin", admin: entry.admin } : { kind: "fault", fault: entry.fault };
      const answer = world.handle(input);
      if (!answer.ok) throw new ScenarioError(`scenario "${scenario.name}": timeline[${index}] was refused: ${answer.error.error}: ${answer.error.message}`);
    });
  }
}

export class SimRun {
  readonly scenario: Scenario;
  readonly seed: number;
  readonly signatures: SignatureMode;
  readonly world: SimWorld;
  readonly host: AgentHost;
  readonly oracle: Oracle;
  readonly startMicros: Micros;
  readonly endMicros: Micros;
  readonly invariants: ExchangeInvariants | undefined;
  readonly setup: RunSetup;
  /** The kernel's pause test, made once: `advance` runs after nearly every agent event (about 90,000 times a simulated hour). */
  private readonly pauseWhen = (): boolean => this.host.pendingContinuations || this.host.failure !== undefined;

  constructor(scenario: Scenario, options: SimRunOptions = {}) {
    this.scenario = scenario;
    this.seed = options.seed ?? scenario.seed;
    this.signatures = options.signatures ?? scenario.signatures ?? "trusted";
    const durationSeconds = options.durationSeconds ?? scenario.durationSeconds;
    const duration = durationProblem(durationSeconds);
    if (duration !== null) throw new RangeError(`run duration ${durationSeconds} ${duration}`);
    const config = exchangeConfigOf(scenario, this.signatures);
    this.startMicros = (scenario.startMs ?? DEFAULT_START_MS) * MICROS_PER_MILLI;
    this.endMicros = this.startMicros + Math.round(durationSeconds * MICROS_PER_SECOND);
    const rng = new RngRoot(this.seed);
    this.world = new SimWorld({ config, startMicros: this.startMicros, seed: this.seed });
    const observers = options.observers ?? [];
    for (const observer of observers) {
      if (observer.input !== undefined) this.world.onInput(observer.input.bind(observer));
      if (observer.advance !== undefined) this.world.onAdvance(observer.advance.bind(observer));
    }
    this.invariants = options.invariants === true ? new ExchangeInvariants(this.world.exchange, { everyBlocks: options.invariantEveryBlocks ?? 1 }) : undefined;
    this.host = new AgentHost(this.world, config, rng, this.signatures, this.endMicros);
    for (const agent of scenario.agents) this.host.add(agent);
    this.oracle = new Oracle(scenario.prices, config.risk, rng, this.startMicros, options.paths ?? new Map(), { sd: scenario.oracleBasisSd ?? DEFAULT_BASIS_SD, ...(scenario.oracleBasisMean === undefined ? {} : { mean: scenario.oracleBasisMean }) });
    const kernel = this.world.kernel;
    this.setup = Object.freeze({
      scenario,
      seed: this.seed,
      signatures: this.signatures,
      config,
      startMicros: this.startMicros,
      endMicros: this.endMicros,
      agents: this.host.agents,
      world: this.world,
      oracle: this.oracle,
    });
    for (const observer of observers) {
      observer.begin?.(this.setup);
      if (observer.output !== undefined) {
        const output = observer.output.bind(observer);
        this.world.observe((value) => output(value, kernel.now()));
      }
    }
    stageScenario(scenario, this.world, this.host, this.oracle, this.endMicros);
    const sampled = observers.filter((observer) => observer.sample !== undefined);
    if (sampled.length > 0) {
      const every = Math.round((options.sampleEveryMs ?? 1_000) * MICROS_PER_MILLI);
      const sample = () => {
        for (const observer of sampled) observer.sample!(kernel.now());
        if (kernel.now() + every <= this.endMicros) kernel.after(every, sample);
      };
      kernel.schedule(this.startMicros, sample);
    }
    this.world.start();
  }

  /**
   * Runs events until one of: agent continuations are pending ("drain": let
   * the microtask queue run, then advance again), `maxEvents` ran ("more"),
   * or the end time was reached ("done"). Throws AgentFailedError when an
   * agent failed.
   */
  advance(maxEvents = Infinity): "drain" | "more" | "done" {
    const host = this.host;
    if (host.failure !== undefined) throw new AgentFailedError(host.failure);
    const stats = this.world.kernel.run({ untilMicros: this.endMicros, maxEvents, pauseWhen: this.pauseWhen });
    if (host.failure !== undefined) throw new AgentFailedError(host.failure);
    if (stats.paused) {
      host.pendingContinuations = false;
      return "drain";
    }
    if (stats.eventsProcessed === maxEvents) return "more";
    // The state checks run after blocks (every invariantEveryBlocks): one more at the end covers what came after the
    // last one checked (up to K - 1 blocks, and the timers and prices after the last block).
    if (!this.finalStateChecked) {
      this.finalStateChecked = true;
      this.invariants?.checkState();
    }
    return "done";
  }

  private finalStateChecked = false;

  get eventsProcessed(): number {
    return this.world.kernel.eventsProcessed;
  }

  fingerprint(): string {
    return this.world.fingerprint.digest();
  }
}
