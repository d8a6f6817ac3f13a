/**
 * Hosts the agents of a run: gives each a funded account, a signer, a
 * client SDK over its own in-process connection, timers on the kernel and
 * a seeded stream, and runs its code so that a failure is reported with the
 * agent's name and the virtual time.
 *
 * Keys: each agent's private key is derived from its name
 * (SHA-256 of "shadowbook agent:<name>"), so an agent keeps its wallet
 * across seeds and scenarios, and a strategy's wallet is known before the
 * run. In trusted mode the client attaches a fixed dummy signature instead
 * of signing (the gateway skips only that check); in signed mode it signs
 * with the key and the gateway verifies, as live. The Exchange's outputs
 * are the same in both modes.
 */
import { createHash } from "node:crypto";
import type { Address, Hex } from "viem";
import { createClient, type Client } from "../client/client.ts";
import { createMarketDirectory } from "../client/markets.ts";
import { privateKeySigner, type ClientSigner } from "../client/signer.ts";
import type { RngRoot } from "../core/rng.ts";
import type { TimerId } from "../core/scheduler.ts";
import { microsToMillis, type Micros } from "../core/time.ts";
import type { ExchangeConfig } from "../exchange/config.ts";
import type { AgentContext, AgentDefinition, AgentMarket } from "./agent.ts";
import { DEFAULT_AGENT_LATENCY, latencyModel, OrderedPath } from "./latency.ts";
import type { ScenarioAgent, SignatureMode } from "./scenario.ts";
import { InProcessConnection, type AgentRuntime } from "./transport.ts";
import type { SimWorld } from "./world.ts";

/** The signature a trusted-mode client attaches (65 bytes; never checked). */
export const TRUSTED_SIGNATURE: Hex = `0x${"11".repeat(65)}`;

/** Deposits of an agent whose scenario entry names none. */
export const DEFAULT_DEPOSITS: Readonly<Record<string, string>> = { rUSD: "100000" };

export function agentPrivateKey(name: string): Hex {
  return `0x${createHash("sha256").update(`shadowbook agent:${name}`).digest("hex")}`;
}

/**
 * A signer that does not sign: the trusted-mode client's (address of the
 * agent's key, fixed signature). As a `fixedSignature`, the client builds
 * no signed message for it (signer.ts).
 */
export function trustedSigner(address: Address, config: ExchangeConfig["signing"]): ClientSigner {
  return Object.freeze({ address, config, sign: () => TRUSTED_SIGNATURE, fixedSignature: TRUSTED_SIGNATURE });
}

/** An agent of the run, as the summary and the observers see it. */
export interface HostedAgent {
  readonly name: string;
  readonly kind: string;
  readonly wallet: string;
  readonly accountId: number;
  readonly counts: Map<string, number>;
  readonly client: Client;
}

export interface AgentFailure {
  readonly agent: string;
  readonly what: string;
  readonly atMicros: Micros;
  readonly error: unknown;
}

export class AgentFailedError extends Error {
  override readonly name = "AgentFailedError";
  /**
   * The message names the agent, the step and the time, and gives the
   * cause as `Name: message`; the cause itself (with its stack, for an
   * agent's author) is `cause`, which the CLI prints with SHADOWBOOK_DEBUG.
   */
  constructor(readonly failure: AgentFailure) {
    const error = failure.error;
    const cause = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    super(`agent "${failure.agent}" failed in ${failure.what} at virtual time ${failure.atMicros}: ${cause}`, { cause: error });
  }
}

export class AgentHost {
  readonly agents: HostedAgent[] = [];
  /** Set when agent code settled or returned a promise in the current event: its continuations must run before time moves. */
  pendingContinuations = false;
  failure: AgentFailure | undefined;

  constructor(
    private readonly world: SimWorld,
    private readonly config: ExchangeConfig,
    private readonly rng: RngRoot,
    private readonly signatures: SignatureMode,
    /** The run's end (AgentContext.endMicros); undefined when the agents are hosted with no end (serve <scenario>). */
    private readonly endMicros: Micros | undefined = undefined,
  ) {}

  private readonly starts: (() => void)[] = [];

  /** Creates and funds every added agent's account (admin inputs, now), in the order they were added. */
  openAccounts(): void {
    for (const open of this.openings.splice(0)) open();
  }

  /** Schedules every added agent's start now, in the order they were added. */
  startAll(): void {
    for (const start of this.starts.splice(0)) this.world.kernel.after(0, start);
  }

  private readonly openings: (() => void)[] = [];

  /**
   * Adds an agent: its identity (key, wallet, and the next account id after
   * the pool's, in the order agents are added) and its context. Nothing is
   * sent yet: `openAccounts` creates and funds the accounts, `startAll`
   * starts the programs, so observers can know every agent before the
   * first input.
   */
  add(entry: ScenarioAgent): HostedAgent {
    const key = agentPrivateKey(entry.name);
    const keySigner = privateKeySigner(key, { config: this.config.signing });
    const wallet = keySigner.address;
    const account = entry.account ?? {};
    const accountId = this.config.risk.poolAccountId + 1 + this.agents.length;
    this.openings.push(() => {
      const created = this.world.handle({ kind: "admin", admin: { action: "createAccount", wallet, accountId, deposits: { ...(account.deposits ?? DEFAULT_DEPOSITS) } } });
      if (!created.ok) throw new Error(`agent "${entry.name}": its account ${accountId} could not be created: ${created.error.message}`);
      if (account.rateTier !== undefined || account.feeTierId !== undefined) {
        const tier = this.world.handle({
          kind: "admin",
          admin: { action: "wallet", wallet, ...(account.rateTier === undefined ? {} : { rateTier: account.rateTier }), ...(account.feeTierId === undefined ? {} : { feeTierId: account.feeTierId }) },
        });
        if (!tier.ok) throw new Error(`agent "${entry.name}": wallet settings refused: ${tier.error.message}`);
      }
    });
    const latency = { ...DEFAULT_AGENT_LATENCY, ...entry.latency };
    const path = (which: keyof typeof latency) =>
      new OrderedPath(latencyModel(latency[which], this.rng.stream(`latency:${entry.name}:${which}`), `agents.${entry.name}.latency.${which}`));
    const runtime = this.runtimeOf(entry.name);
    const connection = new InProcessConnection({
      world: this.world,
      runtime,
      outbound: path("orderEntry"),
      inbound: path("responses"),
      marketData: path("marketData"),
    });
    const kernel = this.world.kernel;
    const retryRng = this.rng.stream(`agent:${entry.name}:retry`);
    const client = createClient({
      transport: connection,
      signer: this.signatures === "signed" ? keySigner : trustedSigner(wallet, this.config.signing),
      accountId,
      markets: this.directory(),
      clock: { now: () => kernel.now() },
      signing: this.config.signing,
      exchangeId: this.config.gateway.exchangeId,
      sleep: (ms) =>
        new Promise<void>((resolve) => {
          kernel.after(Math.max(0, Math.round(ms * 1_000)), () => {
            this.pendingContinuations = true;
            resolve();
          });
        }),
      random: retryRng,
    });
    const counts = new Map<string, number>();
    const hosted: HostedAgent = { name: entry.name, kind: entry.agent.kind, wallet, accountId, counts, client };
    this.agents.push(hosted);
    const definition = entry.agent as AgentDefinition<Record<string, unknown>>;
    const context: AgentContext<Record<string, unknown>> = Object.freeze({
      name: entry.name,
      params: Object.freeze({ ...definition.defaults, ...entry.params }),
      wallet,
      accountId,
      client,
      reads: connection,
      stream: connection,
      markets: this.markets(),
      rng: this.rng.stream(`agent:${entry.name}`),
      now: () => kernel.now(),
      nowMs: () => microsToMillis(kernel.now()),
      endMicros: this.endMicros,
      after: (delayMicros: Micros, handler: () => void | Promise<void>): TimerId =>
        kernel.after(Math.max(0, Math.round(delayMicros)), () => runtime.invoke("a timer", handler)),
      cancel: (timer: TimerId) => {
        kernel.cancel(timer);
      },
      count: (name: string, by = 1) => {
        counts.set(name, (counts.get(name) ?? 0) + by);
      },
    });
    this.starts.push(() => runtime.invoke("start", () => definition.start(context)));
    return hosted;
  }

  private runtimeOf(agent: string): AgentRuntime {
    return {
      invoke: (what, body) => {
        // Agent code may settle promises without returning one (a synchronous
        // handler resolving a waiter): its continuations must run before time
        // moves, so every agent event asks for a turn of the microtask queue.
        this.pendingContinuations = true;
        try {
          const result = body();
          if (result !== null && typeof result === "object" && typeof (result as PromiseLike<unknown>).then === "function") {
            (result as PromiseLike<unknown>).then(undefined, (error: unknown) => this.fail(agent, what, error));
          }
        } catch (error) {
          this.fail(agent, what, error);
        }
      },
      settled: () => {
        this.pendingContinuations = true;
      },
    };
  }

  private fail(agent: string, what: string, error: unknown): void {
    this.failure ??= { agent, what, atMicros: this.world.now(), error };
  }

  private marketList: AgentMarket[] | undefined;

  private markets(): readonly AgentMarket[] {
    this.marketList ??= Object.freeze([
      ...this.config.risk.perpMarkets.map((m) =>
        Object.freeze({ symbol: m.symbol, marketId: m.marketId, kind: "perp" as const, tickSize: m.tickSize, qtyStepSize: m.qtyStepSize, minOrderQty: m.minOrderQty, asset: m.indexAsset }),
      ),
      ...this.config.risk.spotMarkets.map((m) =>
        Object.freeze({ symbol: m.symbol, marketId: m.marketId, kind: "spot" as const, tickSize: m.tickSize, qtyStepSize: m.qtyStepSize, minOrderQty: m.minOrderQty, asset: m.baseAsset }),
      ),
    ]) as AgentMarket[];
    return this.marketList;
  }

  private directoryCache: ReturnType<typeof createMarketDirectory> | undefined;

  private directory() {
    this.directoryCache ??= createMarketDirectory({
      perp: this.config.risk.perpMarkets.map((m) => ({ symbol: m.symbol, marketId: m.marketId })),
      spot: this.config.risk.spotMarkets.map((m) => ({ symbol: m.symbol, marketId: m.marketId })),
    });
    return this.directoryCache;
  }
}
