/**
 * Renders a vega-lite spec to SVG: the spec as JSON on stdin, the SVG on
 * stdout (`npx tsx scripts/render-svg.ts < spec.json > chart.svg`).
 *
 * The notebooks use it: the tslab kernel runs cells as CommonJS in a vm
 * context, where vega (an ES module with top-level await) cannot be
 * loaded, so a notebook renders its charts in a child process with the same
 * renderer as report.html (src/report/html.ts).
 */
import { readFileSync } from "node:fs";
import { renderSvg } from "../src/report/html.ts";

const spec = JSON.parse(readFileSync(0, "utf8")) as Parameters<typeof renderSvg>[0];
process.stdout.write(await renderSvg(spec));
