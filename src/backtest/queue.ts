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
