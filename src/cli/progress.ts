/**
 * Progress bars on stderr. On a terminal one line is redrawn; otherwise
 * (CI logs) a line is printed at every tenth of the work.
 *
 * - progressBar: a run on the virtual clock: the share of simulated time
 *   done, the virtual time reached, and events per second so far.
 * - countProgress: work counted in items: fuzz's seeds, sweep's runs;
 * - replayProgress: a replay: the check of the log (steps read so far),
 *   then the steps replayed of the log's, the virtual time reached, and
 *   steps per second; silent for its first REPLAY_QUIET_SECONDS, so that a
 *   short replay prints nothing.
 */
import { formatMicros, type Micros } from "../core/time.ts";
import type { Progress } from "../sim/runner.ts";

const WIDTH = 30;
/** A replay that ends sooner shows no progress. */
export const REPLAY_QUIET_SECONDS = 2;

interface Bar {
  update(progress: Progress): void;
  done(): void;
}

/**
 * Redraws one line of a terminal in place: `\r`, the line, and spaces over
 * whatever of the line before it was longer (a rate that loses a digit
 * would otherwise leave the old last characters on screen). Plain spaces
 * rather than an erase escape, so that any terminal shows it right.
 */
function terminalLine(stream: NodeJS.WriteStream): (line: string) => void {
  let shown = 0;
  return (line) => {
    stream.write(`\r${line}${" ".repeat(Math.max(0, shown - line.length))}`);
    shown = line.length;
  };
}

/** Draws a share of the work and a text: a redrawn bar on a terminal, a line per tenth elsewhere. */
function lineDrawer(stream: NodeJS.WriteStream): { draw(share: number, text: string): void; done(): void } {
  let lastTenth = -1;
  let drawn = false;
  const redraw = terminalLine(stream);
  return {
    draw(share, text) {
      if (stream.isTTY) {
        const filled = Math.round(share * WIDTH);
        redraw(`[${"#".repeat(filled)}${".".repeat(WIDTH - filled)}] ${text}`);
        drawn = true;
        return;
      }
      const tenth = Math.floor(share * 10);
      if (tenth > lastTenth) {
        lastTenth = tenth;
        stream.write(`${text}\n`);
      }
    },
    done() {
      if (drawn) stream.write("\n");
    },
  };
}

export function progressBar(stream: NodeJS.WriteStream = process.stderr): Bar {
  const drawer = lineDrawer(stream);
  return {
    update(progress) {
      const span = progress.endMicros - progress.startMicros;
      const share = span === 0 ? 1 : Math.min(1, (progress.atMicros - progress.startMicros) / span);
      const rate = progress.wallSeconds > 0 ? Math.round(progress.events / progress.wallSeconds) : 0;
      drawer.draw(share, `${formatMicros(progress.atMicros)}  ${(share * 100).toFixed(0).padStart(3)}%  ${progress.events.toLocaleString("en-US")} events  ${rate.toLocaleString("en-US")} events/s`);
    },
    done: () => drawer.done(),
  };
}

/**
 * The progress of work counted in items (fuzz's seeds, sweep's runs): how
 * many of `total` are done, and `detail` (e.g. "2 failed"). A redrawn bar
 * on a terminal, a line per tenth elsewhere, as a run's.
 */
export function countProgress(total: number, noun: string, stream: NodeJS.WriteStream = process.stderr): { update(done: number, detail?: string): void; done(): void } {
  const drawer = lineDrawer(stream);
  return {
    update(done, detail) {
      const share = total === 0 ? 1 : Math.min(1, done / total);
      drawer.draw(share, `${done.toLocaleString("en-US")}/${total.toLocaleString("en-US")} ${noun}${detail === undefined ? "" : `, ${detail}`}`);
    },
    done: () => drawer.done(),
  };
}

/** Off a terminal, how often a line says how the check of a log goes (its steps are not known before it ends). */
export const CHECK_LINE_SECONDS = 10;

/**
 * The progress of a replay: first the check of the log (openInputLog reads
 * every step once: `checked`), then the replay of its `total` steps
 * (`replaying`, then `replayed`). `nowSeconds` is the wall clock (a
 * driver's: the replay itself runs on the log's virtual times).
 */
export function replayProgress(stream: NodeJS.WriteStream = process.stderr, nowSeconds: () => number = () => performance.now() / 1_000): {
  checked(steps: number, atMicros: Micros): void;
  replaying(total: number): void;
  replayed(steps: number, atMicros: Micros): void;
  done(): void;
} {
  const drawer = lineDrawer(stream);
  const redrawCheck = terminalLine(stream);
  const started = nowSeconds();
  let phaseStarted = started;
  let total = 0;
  let checkLineAt = -Infinity;
  let checkDrawn = false;
  let replaying = false;
  const rate = (steps: number, seconds: number) => `${(seconds > 0 ? Math.round(steps / seconds) : 0).toLocaleString("en-US")} steps/s`;
  return {
    checked(steps, atMicros) {
      const now = nowSeconds();
      if (now - started < REPLAY_QUIET_SECONDS) return;
      const text = `checking the log: step ${steps.toLocaleString("en-US")}  ${formatMicros(atMicros)}  ${rate(steps, now - phaseStarted)}`;
      if (stream.isTTY) {
        redrawCheck(text);
        checkDrawn = true;
      } else if (now - checkLineAt >= CHECK_LINE_SECONDS) {
        checkLineAt = now;
        stream.write(`${text}\n`);
      }
    },
    replaying(steps) {
      total = steps;
      replaying = true;
      phaseStarted = nowSeconds();
      // The check's line stays as it was last drawn; the replay's bar starts below it.
      if (checkDrawn) stream.write("\n");
    },
    replayed(steps, atMicros) {
      const now = nowSeconds();
      if (now - started < REPLAY_QUIET_SECONDS) return;
      const share = total === 0 ? 1 : Math.min(1, steps / total);
      drawer.draw(share, `step ${steps.toLocaleString("en-US")} of ${total.toLocaleString("en-US")}  ${(share * 100).toFixed(0).padStart(3)}%  ${formatMicros(atMicros)}  ${rate(steps, now - phaseStarted)}`);
    },
    done() {
      if (checkDrawn && !replaying) stream.write("\n");
      drawer.done();
    },
  };
}
