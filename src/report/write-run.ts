/**
 * Everything `shadowbook run --out DIR` writes, wired in one place:
 *
 *   const outputs = createRunOutputs("runs/default");
 *   const { run, figures } = await runScenario(scenario, { observers: outputs.observers });
 *   const written = await outputs.finish(figures);
 *   console.log(written.table);          // the terminal summary
 *   // written.files: the paths, written.summary: the RunSummary
 *
 * Files in DIR: executions, busts, orders, ledger, positions, balances,
 * equity, prices and depth as .arrow (record/run-outputs.ts documents the columns),
 * summary.json (summary.ts) and report.html (html.ts).
 *
 * The recorder and the summary share one sampler, so each observer sample
 * reads the exchange once. `finish` takes a last sample when the run ended
 * after the last scheduled one, then writes the files.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { RunOutputsRecorder } from "../record/run-outputs.ts";
import { DEFAULT_DEPTH_LEVELS, RunSampler } from "../record/sampler.ts";
import type { RunObserver } from "../sim/run.ts";
import type { RunFigures } from "../sim/runner.ts";
import { writeReportHtml } from "./html.ts";
import { formatSummaryTable, RunSummaryObserver, writeSummaryJson, type RunSummary } from "./summary.ts";

export interface RunOutputsSettings {
  /** Depth levels per side sampled (default 10). */
  readonly depthLevels?: number;
  /** Rows per Arrow RecordBatch (default 65,536). */
  readonly batchRows?: number;
  /** Most points per chart line (default 600). */
  readonly maxChartPoints?: number;
  /** Write the Arrow files (default true); summary.json and report.html are always written. */
  readonly arrow?: boolean;
  /** The run's `--set` overrides, path to value: summary.json and report.html record them. */
  readonly overrides?: Readonly<Record<string, unknown>>;
  /** Write the Arrow files while the run runs, a batch at a time (RunOutputsRecorder `stream`; default false: at `finish`). */
  readonly stream?: boolean;
}

export interface WrittenRunOutputs {
  readonly summary: RunSummary;
  /** The plain-text summary for the terminal. */
  readonly table: string;
  /** Every file written, Arrow files first, then summary.json and report.html. */
  readonly files: readonly string[];
}

export interface RunOutputs {
  /** Pass these to runScenario / SimRun (`observers`). */
  readonly observers: readonly RunObserver[];
  readonly summary: RunSummaryObserver;
  readonly recorder: RunOutputsRecorder | undefined;
  /** Writes every file into the output directory once the run is over. */
  finish(figures: RunFigures): Promise<WrittenRunOutputs>;
  /** After a run that failed: closes and removes the Arrow files streamed so far (nothing to do unless `stream`). */
  abandon(): void;
}

export function createRunOutputs(outDir: string, settings: RunOutputsSettings = {}): RunOutputs {
  const depthLevels = settings.depthLevels ?? DEFAULT_DEPTH_LEVELS;
  const sampler = new RunSampler(depthLevels);
  const summary = new RunSummaryObserver({ sampler, ...(settings.overrides === undefined ? {} : { overrides: settings.overrides }) });
  const recorder =
    settings.arrow === false
      ? undefined
      : new RunOutputsRecorder(outDir, { sampler, stream: settings.stream === true, ...(settings.batchRows === undefined ? {} : { batchRows: settings.batchRows }) });
  const observers: RunObserver[] = recorder === undefined ? [summary] : [recorder, summary];
  return {
    observers,
    summary,
    recorder,
    async finish(figures) {
      // The final sample goes to both observers, before either writes.
      if (recorder !== undefined && summary.sampler.latest() !== undefined) {
        const before = summary.sampler.latest()!.atMicros;
        summary.finalSample();
        const after = summary.sampler.latest()!.atMicros;
        if (after !== before) recorder.sample(after);
      }
      const result = summary.summarize(figures);
      mkdirSync(outDir, { recursive: true });
      const files = recorder === undefined ? [] : recorder.write();
      const summaryPath = join(outDir, "summary.json");
      writeSummaryJson(summaryPath, result);
      const reportPath = join(outDir, "report.html");
      await writeReportHtml(reportPath, result, summary.series(), {
        depthLevels,
        ...(settings.maxChartPoints === undefined ? {} : { maxPoints: settings.maxChartPoints }),
      });
      return { summary: result, table: formatSummaryTable(result), files: [...files, summaryPath, reportPath] };
    },
    abandon: () => recorder?.abandon(),
  };
}
