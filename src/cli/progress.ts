/**
 * A progress bar on the virtual clock, on stderr: the share of simulated
 * time done, the virtual time reached, and events per second so far. On a
 * terminal it redraws one line; otherwise (CI logs) it prints a line at
 * every tenth of the run.
 */
import { formatMicros } from "../core/time.ts";
import type { Progress } from "../sim/runner.ts";

const WIDTH = 30;

export function progressBar(stream: NodeJS.WriteStream = process.stderr): { update(progress: Progress): void; done(): void } {
  let lastTenth = -1;
  let drawn = false;
  return {
    update(progress) {
      const span = progress.endMicros - progress.startMicros;
      const share = span === 0 ? 1 : Math.min(1, (progress.atMicros - progress.startMicros) / span);
      const rate = progress.wallSeconds > 0 ? Math.round(progress.events / progress.wallSeconds) : 0;
      const text = `${formatMicros(progress.atMicros)}  ${(share * 100).toFixed(0).padStart(3)}%  ${progress.events.toLocaleString("en-US")} events  ${rate.toLocaleString("en-US")} events/s`;
      if (stream.isTTY) {
        const filled = Math.round(share * WIDTH);
        stream.write(`\r[${"#".repeat(filled)}${".".repeat(WIDTH - filled)}] ${text}`);
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
