/**
 * Queue-position models: where an own resting order stands in the replayed
 * level it joined, estimated from L2 data only (who is ahead is not
 * recorded). Each model is three small functions over a `QueuePosition`,
 * as hftbacktest's `QueueModel` trait (`new_order`, `trade`, `depth`;
 * nkaz001/hftbacktest, hftbacktest/src/backtest/models/queue.rs):
 *
 * - `start`: the order reached the book; the whole level's quantity is ahead of it;
 * - `trade`: a recorded trade at the order's price consumed `lots` from the front;
 * - `depth`: the level's quantity went from `previousLots` to `lots`.
 *
 * Models:
 * - riskAverse (hftbacktest RiskAdverseQueueModel): only trades at the
 *   order's price advance it; a level that shrinks below the queue ahead
 *   caps it (`ahead = min(ahead, lots)`), since the lots ahead cannot exceed
 *   the level. Cancels never help, unless they must have been ahead.
 * - probabilistic (hftbacktest ProbQueueModel): a decrease of the level that
 *   the trades placed before its frame do not explain is a cancel, split
 *   ahead and behind the order: with p the probability it was behind,
 *   `ahead' = ahead - (1 - p) * cancelled + min(0, behind - p * cancelled)`
 *   (the part put behind that exceeds what is behind comes from ahead too),
 *   capped at the new level. p = 1 - split(ahead, behind), where the split
 *   gives the probability that the cancel was ahead: power
 *   f(x) = x^n (PowerProbQueueFunc) or log f(x) = ln(1 + x)
 *   (LogProbQueueFunc), split = f(ahead) / (f(ahead) + f(behind)); or a
 *   user function. A larger n puts a cancel more surely on the longer side
 *   of the order: near the back of its level (more ahead than behind) that
 *   favours the order (cancels come from ahead), near the front (more
 *   behind than ahead) it favours it less (cancels fall behind and it keeps
 *   its place without advancing).
 *
 * ## Trades and depth changes
 *
 * A trade at the order's price advances it at once (`trade`); the decrease
 * of the level it caused arrives in a depth frame, where the probabilistic
 * model must not take it for a cancel. The tape places each trade just
 * before the depth frame that carried its decrease (tape.ts, "Trade
 * timing"), so the trade's lots (`tradedLots`) are netted out of the
 * level's change in that frame and in no other: the replay drops what is
 * left of them at the frame's end (replay.ts, frameEnd), and a decrease of
 * the level in a later frame is a cancel, split as above. A trade placed at
 * its print (the tape found no frame for it, or `tradeTiming:
 * "publication"`) is netted out of the next frame of its market.
 * hftbacktest's ProbQueueModel keeps the traded quantity until the level's
 * next change, however late (`cum_trade_qty`). On an L2 feed a trade need
 * not change its level at all: joiners at its price within the same frame
 * can make up for it, and the stream then sends nothing for the level
 * (src/engine/depth.ts sends only levels whose quantity differs). Kept, the
 * traded lots would wait for the level's next change and take a genuine
 * cancel ahead, any number of frames later, for the trade's decrease: the
 * order would not advance.
 *
 * What the feed does not carry, and no rule here recovers: how a level's
 * net change within one frame splits into trades, cancels and joiners (a
 * trade and a cancel in the same frame are one decrease, of which the trade
 * is netted and the rest split; joiners in it hide as much of either), and,
 * for a trade the tape found no decrease for, whether its decrease really is
 * in the frame it was placed before (if its market's depth reported it in
 * a later frame, the trade advances the order and the decrease is split as
 * a cancel too).
 *
 * ## Depth window
 *
 * The depth feed carries the best 100 levels a side (spec 6.2,
 * DEPTH_STREAM_LEVELS): a level pushed out of them by better ones is sent
 * with quantity 0 although its orders still rest, and sent again with its
 * whole quantity when it comes back (src/engine/depth.ts). Beyond the
 * window a 0 means unknown, not empty. Taken for empty, it put the order at
 * the front (risk-averse: the cap at 0; probabilistic: the whole level
 * cancelled, capped at 0), and it stayed there when the level came back, as
 * if everything ahead of it had been cancelled; hftbacktest's models, fed
 * such a 0, do the same.
 *
 * The replay tells the two apart once the frame is whole (replay.ts,
 * settleWindow): a level sent as 0 left the window when its side still
 * holds a full window of levels and the price is worse than the worst of
 * them (ReplayBook.beyondWindow); otherwise it emptied, and the models see
 * the change as before. The rule for a level out of the window:
 * - it left (`leaveWindow`): the order keeps its queue ahead; only trades at
 *   its price move it while the level is out of sight (a trade there comes
 *   just before the frame that shows the level again);
 * - it is shown again (`reenterWindow`): the time out of sight is one depth
 *   change, from the quantity last shown to the quantity shown now, under
 *   the model's own rule, as a frame already nets whatever happened between
 *   two publications. Risk-averse: the queue ahead is kept, capped by the
 *   visible level. Probabilistic: a net decrease is split as cancels, growth
 *   joins behind, and the result is capped by the visible level;
 * - its side no longer fills the window and the level was not sent: it is
 *   empty, and it is shown again with 0;
 * - an order that reaches the book at a price beyond the window has nothing
 *   known ahead of it (`startOutsideWindow`: an unbounded queue ahead, so no
 *   trade fills it there) and starts behind the whole level when the level
 *   is first shown (`start`), as any order starts behind what it finds.
 * A snapshot is one depth change per level and follows the same rule.
 *
 * Positions are in lots and may be fractional (the probabilistic split);
 * the fill rules round down (replay.ts).
 */
import type { QueueSettings, QueueSplit } from "../sim/scenario.ts";

/** An own order's place in its level. */
export interface QueuePosition {
  /** Lots ahead of the order (may be fractional; negative while a trade overflows onto it). */
  ahead: number;
  /** Traded lots at the level placed before the current depth frame (netted out of the level's change in it; dropped at its end). */
  tradedLots: number;
}

export interface QueueModel {
  /** "riskAverse", "probabilistic power n=2", ... (summaries). */
  readonly name: string;
  start(position: QueuePosition, levelLots: number): void;
  trade(position: QueuePosition, lots: number): void;
  depth(position: QueuePosition, previousLots: number, lots: number): void;
}

/** `WindowedPosition.hiddenLots` of an order whose level is in the depth window. */
export const IN_WINDOW = -1;

/** An own order's place in a level that may leave the recorded depth window ("Depth window" above). */
export interface WindowedPosition extends QueuePosition {
  /** IN_WINDOW while the level is in the window; else the level's quantity last shown (NaN: never shown to the order). */
  hiddenLots: number;
}

/** The order's level left the window holding `lastLots`: unknown, not emptied; the queue ahead is kept. */
export function leaveWindow(position: WindowedPosition, lastLots: number): void {
  position.hiddenLots = lastLots;
}

/** The order reached the book at a price beyond the window: nothing is known ahead of it until its level is shown. */
export function startOutsideWindow(position: WindowedPosition): void {
  position.ahead = Infinity;
  position.tradedLots = 0;
  position.hiddenLots = NaN;
}

/**
 * The order's level is in the window again, holding `lots` (0: known
 * empty): one depth change from the quantity last shown, or, for an order
 * that never saw the level, a start behind all of it.
 */
export function reenterWindow(model: QueueModel, position: WindowedPosition, lots: number): void {
  const last = position.hiddenLots;
  position.hiddenLots = IN_WINDOW;
  if (Number.isNaN(last)) model.start(position, lots);
  else model.depth(position, last, lots);
}

export class QueueSettingsError extends Error {
  override readonly name = "QueueSettingsError";
}

export const riskAverseQueue: QueueModel = {
  name: "riskAverse",
  start(position, levelLots) {
    position.ahead = levelLots;
    position.tradedLots = 0;
  },
  trade(position, lots) {
    position.ahead -= lots;
  },
  depth(position, _previousLots, lots) {
    if (lots < position.ahead) position.ahead = lots;
  },
};

/** The probability that a cancel at the level was ahead of the order, from the lots ahead and behind. */
export type SplitFunction = (aheadLots: number, behindLots: number) => number;

export function powerSplit(n: number): SplitFunction {
  if (!(Number.isFinite(n) && n > 0)) throw new QueueSettingsError(`queue split n "${n}" must be a number greater than 0`);
  return (ahead, behind) => {
    const front = ahead ** n;
    return front / (front + behind ** n);
  };
}

export const logSplit: SplitFunction = (ahead, behind) => {
  const front = Math.log1p(ahead);
  return front / (front + Math.log1p(behind));
};

export function probabilisticQueue(split: SplitFunction, name = "probabilistic custom"): QueueModel {
  return {
    name,
    start(position, levelLots) {
      position.ahead = levelLots;
      position.tradedLots = 0;
    },
    trade(position, lots) {
      position.ahead -= lots;
      position.tradedLots += lots;
    },
    depth(position, previousLots, lots) {
      const cancelled = previousLots - lots - position.tradedLots;
      position.tradedLots = 0;
      if (cancelled <= 0) {
        // Growth, or no more decrease than the trades explain: joiners queue behind.
        if (lots < position.ahead) position.ahead = lots;
        return;
      }
      const front = position.ahead > 0 ? position.ahead : 0;
      const back = previousLots - front > 0 ? previousLots - front : 0;
      let pAhead = front === 0 ? 0 : back === 0 ? 1 : split(front, back);
      if (!(pAhead >= 0 && pAhead <= 1)) {
        throw new QueueSettingsError(`queue split(${front}, ${back}) "${pAhead}" must be a probability between 0 and 1`);
      }
      const pBehind = 1 - pAhead;
      const overflow = back - pBehind * cancelled;
      const estimate = position.ahead - pAhead * cancelled + (overflow < 0 ? overflow : 0);
      position.ahead = estimate < lots ? estimate : lots;
    },
  };
}

function splitOf(split: QueueSplit): { fn: SplitFunction; name: string } {
  switch (split.fn) {
    case "power":
      return { fn: powerSplit(split.n), name: `probabilistic power n=${split.n}` };
    case "log":
      return { fn: logSplit, name: "probabilistic log" };
    case "custom":
      if (typeof split.probabilityAhead !== "function") throw new QueueSettingsError(`queue split probabilityAhead must be a function (aheadLots, behindLots) => probability`);
      return { fn: split.probabilityAhead, name: "probabilistic custom" };
    default:
      throw new QueueSettingsError(`queue split fn "${(split as { fn: unknown }).fn}" must be power, log or custom`);
  }
}

/** The model of a scenario's settings (default: riskAverse). */
export function queueModel(settings: QueueSettings | undefined): QueueModel {
  if (settings === undefined || settings.model === "riskAverse") return riskAverseQueue;
  if (settings.model === "probabilistic") {
    const { fn, name } = splitOf(settings.split);
    return probabilisticQueue(fn, name);
  }
  throw new QueueSettingsError(`queue model "${(settings as { model: unknown }).model}" must be riskAverse or probabilistic`);
}
