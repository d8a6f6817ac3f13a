/**
 * Agents: the programs that trade in a simulation.
 *
 * An agent talks to the exchange only through what a program has against
 * the live service: the client SDK for order entry (`ctx.client`: the same
 * request bodies, responses and errors), REST reads (`ctx.reads`), and the
 * streaming interface (`ctx.stream`: the same channel names, `subscribed`
 * frames with snapshots, and `channel_data` messages). On top it has timers
 * on the virtual clock and a seeded random stream of its own. So a strategy
 * written as an agent runs unchanged against `shadowbook serve`: hosted by
 * `serve <scenario>` (this in-process interface), or as its own process
 * through the client SDK's live transports (connectLiveAgent and
 * startLiveAgent, src/client/transports/live-agent.ts: REST order entry or
 * /exec, httpReadTransport, connectWsStream).
 *
 * Rules an agent follows (checked by test/determinism.test.ts for agents/):
 * no Date, Math.random, timers or I/O; time is `ctx.now()`, randomness
 * `ctx.rng`, waiting `ctx.after`. Handlers may be async: the runner lets
 * every continuation of a handler run before virtual time moves on.
 * Messages handed to an agent are shared, read-only objects.
 *
 * An agent that throws (or whose handler's promise rejects) stops the run
 * with its name and the virtual time: a backtest must not go on quietly
 * without one of its traders.
 */
import type { Client } from "../client/client.ts";
import type { ReadTransport } from "../client/transport.ts";
import type { Rng } from "../core/rng.ts";
import type { TimerId } from "../core/scheduler.ts";
import type { Micros } from "../core/time.ts";
import type { ChannelMessage, ChannelSubscribed } from "../spec/stream-envelopes.ts";

/** A market as an agent sees it (from the market definitions). */
export interface AgentMarket {
  readonly symbol: string;
  readonly marketId: number;
  readonly kind: "perp" | "spot";
  readonly tickSize: string;
  readonly qtyStepSize: string;
  readonly minOrderQty: string;
  /** The asset whose oracle price the market follows (index asset of a perp, base asset of a spot market). */
  readonly asset: string;
}

/** A market of the run as a checkParams hook sees it: its symbol and kind (the rest is checked when the run builds its exchange). */
export type ParamsMarket = Pick<AgentMarket, "symbol" | "kind">;

/**
 * What a checkParams hook is told besides the params: the run's markets, as
 * the agents will have them (`ctx.markets`: the scenario's perps, then its
 * spot markets, in its order; the built-in set when it names none). An
 * AgentContext is one, so start can run the same check.
 */
export interface AgentParamsContext {
  readonly markets: readonly ParamsMarket[];
}

/**
 * A handler of the channel named `Name`: its messages' `data` is typed by
 * the channel (ChannelMessage, src/spec/channels.ts ChannelDataOf). With a
 * name known only at run time (`string`, the default) it gets a
 * StreamChannelData whose `data` is `unknown`.
 */
export type StreamHandler<Name extends string = string> = (message: ChannelMessage<Name>) => void | Promise<void>;

/**
 * The streaming interface of one connection. `subscribe` resolves with the
 * `subscribed` frame (its `contents` is the snapshot of channels that have
 * one); every later `channel_data` of the channel goes to `onMessage`, in
 * order, after it. It rejects with the server's error text for an invalid
 * channel name or a failed snapshot.
 *
 * Typed by the channel's name: with a literal or template name, such as
 * `/v2/market/${symbol}/depth` or `/v2/wallet/${wallet}/orderChanges`,
 * `message.data` is the channel's payload type (Depth, Order[]) and the
 * `subscribed` frame's `contents` its snapshot type, both read-only all the
 * way down, with no cast. An implementation of this interface (a fake for
 * tests, a wrapper) keeps every channel's handlers in one map as
 * StreamHandler (the untyped default), through `as unknown as
 * StreamHandler`: sound, since each handler gets only its own channel's
 * messages (see src/sim/transport.ts).
 *
 * A live stream (connectWsStream, /ws) can be closed by the server (spec
 * 6.3: 1013 slow consumer, 1012 resync, 1001 shutdown), and the updates of
 * the disconnected window are lost. Through this interface an agent learns
 * of it only when a `subscribe` rejects (ConnectionError with the close
 * code); its handlers simply stop being called. The live stream's
 * `closed`/`onClose` (and connectLiveAgent's `onStreamClose`) tell a
 * program that asks; it is not reconnected. The in-process stream never
 * closes.
 */
export interface AgentStream {
  subscribe<Name extends string>(channel: Name, onMessage: StreamHandler<Name>): Promise<ChannelSubscribed<Name>>;
  unsubscribe(channel: string): void;
}

export interface AgentContext<P = Record<string, unknown>> {
  /** The agent's name in the scenario (unique). */
  readonly name: string;
  /** The scenario's parameters for this agent, over the agent's defaults. */
  readonly params: P;
  /** The wallet that owns the agent's account (lowercase). */
  readonly wallet: string;
  readonly accountId: number;
  /** Order entry: the client SDK bound to the agent's account and signer. */
  readonly client: Client;
  /** REST reads (every /v2 GET read: ReadTransport), answered after the response latency. */
  readonly reads: ReadTransport;
  readonly stream: AgentStream;
  readonly markets: readonly AgentMarket[];
  /** The agent's own seeded stream (`agent:<name>`). */
  readonly rng: Rng;
  /** Virtual time, microseconds since the epoch. */
  now(): Micros;
  /** Virtual time in milliseconds (what the wire carries). */
  nowMs(): number;
  /**
   * The virtual time at which the run ends (its start plus its duration),
   * so that a strategy can wind down before it: cancel its quotes, flatten
   * (`if (ctx.endMicros !== undefined) ctx.after(ctx.endMicros - ctx.now() - 30_000_000, windDown)`).
   * Nothing an agent sends after it is run. Undefined where the program has
   * no end: `serve <scenario>` hosts agents until the server stops, and a
   * live agent (startLiveAgent) runs until it is stopped.
   */
  readonly endMicros: Micros | undefined;
  /** Runs `handler` after `delayMicros` of virtual time. */
  after(delayMicros: Micros, handler: () => void | Promise<void>): TimerId;
  cancel(timer: TimerId): void;
  /** Adds to the agent's line of the run summary (counts of the agent's own choosing). */
  count(name: string, by?: number): void;
}

/**
 * An agent program: a kind, default parameters, and what it does when the run starts.
 *
 * Parameters: an agent's params are the scenario entry's `params` laid over
 * `defaults` (`{ ...defaults, ...params }`), so `defaults` must list every
 * parameter the agent reads (an optional one with its default, or null):
 * checkScenario refuses a key of the entry's params that `defaults` does not
 * have, naming it and the known ones (a typo such as `ratePerSec` would
 * otherwise be ignored).
 *
 * `checkParams(params, context)` (optional) says why those merged params
 * cannot run, as `<field> "<value>" <rule>` (e.g. `notional "0" must be a
 * finite number greater than 0`), or null. `context.markets` holds the
 * run's markets (symbol and kind, exactly the markets `ctx.markets` will
 * hold), so the hook also refuses a symbol that no market of the run has, or
 * a market of the wrong kind. checkScenario calls it, so that `shadowbook
 * run` and `fuzz` (every seed's draw applied) refuse bad params naming the
 * agent and the field before anything runs; a hook that throws refuses the
 * params with its message. A program whose start may run without
 * checkScenario (a library user building a run by hand) should refuse there
 * too, from the same function (`checkParams(ctx.params, ctx)`: the agent's
 * context is a params context): the shipped agents throw its problem from
 * start.
 */
export interface AgentDefinition<P = Record<string, unknown>> {
  readonly kind: string;
  readonly description: string;
  readonly defaults: P;
  /** Why `params` (the scenario's over the defaults) cannot run in a run with `context`'s markets, as `<field> "<value>" <rule>`, or null (see above). */
  checkParams?(params: P, context: AgentParamsContext): string | null;
  start(ctx: AgentContext<P>): void | Promise<void>;
}

export class AgentDefinitionError extends Error {
  override readonly name = "AgentDefinitionError";
}

/** Declares an agent program (typed parameters, defaults filled in by the runner). */
export function defineAgent<P>(definition: AgentDefinition<P>): AgentDefinition<P> {
  if (definition.checkParams !== undefined && typeof definition.checkParams !== "function") {
    throw new AgentDefinitionError(`agent "${definition.kind}" checkParams must be a function (params, context) => problem or null`);
  }
  return Object.freeze(definition);
}
