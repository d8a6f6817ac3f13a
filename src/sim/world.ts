/**
 * The simulated world: one Exchange driven by the simulation kernel.
 *
 * - Inputs: `handle(input)` hands an input to the Exchange at the kernel's
 *   time (the one entry point; the input log sees each one first).
 * - Timers: the Exchange's own timers (blocks, GTT expiry, cancelAllAfter,
 *   summaries) run as one kernel event at `exchange.nextTimerAt()`, kept
 *   up to date after every step, so they interleave with agent events in
 *   virtual-time order.
 * - Outputs: every output goes to the observers (fingerprint, recorders,
 *   statistics) and through the streaming routing table
 *   (src/exchange/stream-routes.ts) to the connections subscribed to its
 *   channels. Event feeds are handed on at once; latest-value feeds
 *   (summaries, oracle prices, positions, balances) are coalesced to the
 *   newest value per channel within one step, like the live server's turn.
 *
 * A connection decides when a message arrives (its market-data latency);
 * the world only says what was sent, and when.
 *
 * A message is built once per channel and spelling of its name and handed
 * to every subscriber, so it is deeply frozen first (envelope and data): an
 * agent that modifies what it receives gets a TypeError instead of changing
 * what the other agents see, or the Exchange's own records (an execution's
 * stream item is the record the reads list). Live, each client parses its
 * own copy; freezing in place costs less than a copy per agent (see the
 * commit that made it so for the bench figures).
 */
import { Fingerprint } from "../core/fingerprint.ts";
import type { Micros } from "../core/time.ts";
import { microsToMillis } from "../core/time.ts";
import { Exchange, type ExchangeAnswer } from "../exchange/exchange.ts";
import type { ExchangeConfig } from "../exchange/config.ts";
import type { ExchangeInput } from "../exchange/inputs.ts";
import type { ExchangeOutput, OutputListener } from "../exchange/outputs.ts";
import { ExchangeQueries } from "../exchange/queries.ts";
import { ChannelRegistry, type Channel } from "../exchange/stream-channels.ts";
import { routeOutput, type ChannelSink } from "../exchange/stream-routes.ts";
import type { ChannelKind } from "../spec/channels.ts";
import type { StreamChannelData } from "../spec/stream-envelopes.ts";
import { Simulation } from "./kernel.ts";

/** Something that receives channel_data messages (an agent's stream connection). */
export interface StreamReceiver {
  receive(message: StreamChannelData): void;
}

export type InputListener = (atMicros: Micros, input: ExchangeInput) => void;
/** A step where only the Exchange's timers ran (`advanceTo` that time). */
export type AdvanceListener = (atMicros: Micros) => void;

export interface WorldOptions {
  config: ExchangeConfig;
  startMicros: Micros;
  seed: number | string;
}

/**
 * A world around an Exchange that someone else drives (the live server):
 * inputs go through `handle` (the live driver stamps them with its clock),
 * the driver fires the Exchange's timers itself, and the kernel only runs
 * the agents' events, moved up to the driver's time by the caller. Call
 * `flush()` after the driver advances, so coalesced values go out.
 */
export interface DrivenWorldOptions {
  exchange: Exchange;
  startMicros: Micros;
  handle: (input: ExchangeInput) => ExchangeAnswer;
}

export class SimWorld implements ChannelSink {
  readonly kernel: Simulation;
  readonly exchange: Exchange;
  readonly queries: ExchangeQueries;
  readonly channels = new ChannelRegistry<StreamReceiver>();
  readonly fingerprint = new Fingerprint();
  private readonly inputListeners: InputListener[] = [];
  private readonly advanceListeners: AdvanceListener[] = [];
  private readonly latest = new Map<Channel<StreamReceiver>, unknown>();
  private timerEvent: number | undefined;
  private timerAt = Infinity;
  private inputCount = 0;
  private outputCount = 0;
  private timerStepCount = 0;
  /** Driven worlds hand inputs to their driver and leave the Exchange's timers to it. */
  private readonly driven: ((input: ExchangeInput) => ExchangeAnswer) | undefined;

  constructor(options: WorldOptions | DrivenWorldOptions) {
    this.kernel = new Simulation({ startMicros: options.startMicros });
    if ("exchange" in options) {
      this.exchange = options.exchange;
      this.driven = options.handle;
    } else {
      this.exchange = new Exchange({ config: options.config, startMicros: options.startMicros, seed: options.seed });
      this.driven = undefined;
    }
    this.queries = new ExchangeQueries(this.exchange);
    this.exchange.subscribe((output) => this.onOutput(output));
  }

  now(): Micros {
    return this.kernel.now();
  }

  get inputs(): number {
    return this.inputCount;
  }

  get outputs(): number {
    return this.outputCount;
  }

  /** Steps where only the Exchange's own timers ran (blocks, summaries, expiries): one kernel event each. */
  get timerSteps(): number {
    return this.timerStepCount;
  }

  /**
   * Sees every input, with its time, before the Exchange handles it. With
   * `onAdvance` (the timer-only steps), the input log: it replays to the
   * same outputs, step for step.
   */
  onInput(listener: InputListener): void {
    this.inputListeners.push(listener);
  }

  /** Sees every step where only the Exchange's timers run, before they run. */
  onAdvance(listener: AdvanceListener): void {
    this.advanceListeners.push(listener);
  }

  /** Sees every output, in order (after the fingerprint and the routing to channels). */
  observe(listener: OutputListener): () => void {
    return this.exchange.subscribe(listener);
  }

  /** Hands `input` to the Exchange now. */
  handle(input: ExchangeInput): ExchangeAnswer {
    if (this.driven !== undefined) {
      this.inputCount++;
      const answer = this.driven(input);
      this.flush();
      return answer;
    }
    const at = this.kernel.now();
    for (const listener of this.inputListeners) listener(at, input);
    this.inputCount++;
    const answer = this.exchange.handle(input, at);
    this.endStep();
    return answer;
  }

  /** Schedules the Exchange's next timer as a kernel event (call once at the start; not for a driven world). */
  start(): void {
    if (this.driven === undefined) this.syncTimer();
  }

  /** Sends the coalesced latest values of the step (runs by itself after each input of a simulated world). */
  flush(): void {
    if (this.latest.size === 0) return;
    const batch = [...this.latest];
    this.latest.clear();
    for (const [channel, data] of batch) this.send(channel, data);
  }

  // -- ChannelSink -------------------------------------------------------------------

  listening(kind: ChannelKind): boolean {
    return this.channels.hasAny(kind);
  }

  publish(kind: ChannelKind, key: string, data: unknown): void {
    const channel = this.channels.find(kind, key);
    if (channel !== undefined) this.send(channel, data);
  }

  publishItem(kind: ChannelKind, key: string, item: unknown): void {
    const channel = this.channels.find(kind, key);
    if (channel !== undefined) this.send(channel, [item]);
  }

  publishLatest(kind: ChannelKind, key: string, data: unknown): void {
    const channel = this.channels.find(kind, key);
    if (channel !== undefined) this.latest.set(channel, data);
  }

  // -- internals ---------------------------------------------------------------------

  private onOutput(output: ExchangeOutput): void {
    this.outputCount++;
    this.fingerprint.update(output);
    routeOutput(output, this);
  }

  private send(channel: Channel<StreamReceiver>, data: unknown): void {
    const timestamp = microsToMillis(this.kernel.now());
    let message: StreamChannelData | undefined;
    for (const [receiver, name] of channel.subscribers) {
      if (message === undefined) deepFreeze(data);
      if (message === undefined || message.channel !== name) message = Object.freeze({ type: "channel_data", timestamp, channel: name, data }) as StreamChannelData;
      receiver.receive(message);
    }
  }

  /** After each step: coalesced latest values go out, and the timer event follows the Exchange's next timer. */
  private endStep(): void {
    this.flush();
    this.syncTimer();
  }

  private syncTimer(): void {
    const next = Math.max(this.exchange.nextTimerAt(), this.kernel.now());
    if (next >= this.timerAt) return;
    if (this.timerEvent !== undefined) this.kernel.cancel(this.timerEvent);
    this.timerAt = next;
    if (next === Infinity) {
      this.timerEvent = undefined;
      return;
    }
    this.timerEvent = this.kernel.schedule(next, () => this.runTimers());
  }

  private runTimers(): void {
    this.timerEvent = undefined;
    this.timerAt = Infinity;
    this.timerStepCount++;
    const at = this.kernel.now();
    for (const listener of this.advanceListeners) listener(at);
    this.exchange.advanceTo(at);
    this.endStep();
  }
}

/**
 * Freezes `value` and everything it holds (plain wire data: objects, arrays,
 * primitives), children first, so a frozen object's contents are frozen
 * too and one met again (a record on a market's and its wallets' channels,
 * a summary in the list and its own channel) is skipped. Used for stream
 * messages (here) and for the snapshots a subscription answers with
 * (transport.ts); nothing else freezes wire data.
 */
export function deepFreeze(value: unknown): void {
  if (typeof value !== "object" || value === null || Object.isFrozen(value)) return;
  if (Array.isArray(value)) for (const item of value) deepFreeze(item);
  else for (const key in value) deepFreeze((value as Record<string, unknown>)[key]);
  Object.freeze(value);
}
