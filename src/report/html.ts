/**
 * report.html: one self-contained page per run: the run's scenario, seed,
 * signature mode, fingerprint, code (src/record/code-id.ts) and figures,
 * the summary tables, and charts drawn as inline SVG in Node by vega-lite
 * (compiled to vega) and vega's headless SVG renderer. No script,
 * stylesheet, font or image is loaded from anywhere: the page opens offline.
 *
 * Source of the data: what the summary observer collected during the run
 * (RunSummaryObserver.summarize() and .series()), not the Arrow files, so
 * the report costs no re-read.
 *
 * Charts (x axis: minutes since the start of the run):
 * - equity change per agent (mark-to-market equity net of deposits, withdrawals and transfers, minus its first sample);
 * - positions per agent, one panel per perp market (signed base units);
 * - mark vs oracle vs index, one panel per perp market;
 * - funding rate per perp market (hourly, percent) and open interest;
 * - top of book (best bid, best ask, index), one panel per market;
 * - sampled liquidity: quantity in the top N levels of each side, per market.
 *
 * Long series are downsampled to at most `maxPoints` points per line
 * (bucketed first/min/max, see series.ts), so an hour sampled every second
 * makes a page of a few hundred kB.
 */
import { writeFileSync } from "node:fs";
import * as vega from "vega";
import { compile, type TopLevelSpec } from "vega-lite";
import { formatMicros, millisToMicros } from "../core/time.ts";
import type { RunSeries } from "./series.ts";
import { downsampleIndices } from "./series.ts";
import { AGENT_COLUMNS, agentRows, formatNumber, MARKET_COLUMNS, marketRows, type RunSummary } from "./summary.ts";

export const DEFAULT_MAX_POINTS = 600;

/**
 * Text widths by vega's estimate (0.8 em per character), never by a canvas.
 * vega-canvas imports the optional `canvas` package when it resolves (from
 * node_modules or any parent folder's), and vega then measures every title,
 * label and legend entry with that machine's fonts: the layout, and so the
 * bytes of report.html, would follow what else is installed where. The
 * estimate is the same everywhere (test/determinism-machines.test.ts).
 * (vega exports textMetrics from vega-scenegraph; its typings leave it out.)
 */
(vega as unknown as { textMetrics: { canvas(use: boolean): void } }).textMetrics.canvas(false);

export interface ReportOptions {
  /** Most points per drawn line (default 600). */
  readonly maxPoints?: number;
  /** Levels per side the depth series sum (shown in a chart title). */
  readonly depthLevels?: number;
}

interface Row {
  readonly t: number;
  readonly series: string;
  readonly panel: string;
  readonly value: number;
}

/** Rows of one line, downsampled, NaN points left out. */
function lineRows(series: RunSeries, values: Float64Array, name: string, panel: string, maxPoints: number, offset = 0): Row[] {
  const rows: Row[] = [];
  for (const i of downsampleIndices(values.length, maxPoints, values)) {
    const value = values[i]!;
    if (!Number.isFinite(value)) continue;
    rows.push({ t: (series.timesMs[i]! - series.startMs) / 60_000, series: name, panel, value: value - offset });
  }
  return rows;
}

const WIDTH = 820;

function lineSpec(title: string, yTitle: string, rows: readonly Row[], options: { facet?: boolean; legend?: string } = {}): TopLevelSpec {
  const encoding = {
    x: { field: "t", type: "quantitative", title: "minutes" },
    y: { field: "value", type: "quantitative", title: yTitle, scale: { zero: false } },
    color: { field: "series", type: "nominal", title: options.legend ?? null },
  } as const;
  const config = { font: "sans-serif", axis: { labelFontSize: 11, titleFontSize: 11 }, legend: { labelFontSize: 11 } };
  if (options.facet === true) {
    return {
      title,
      data: { values: rows as Row[] },
      facet: { row: { field: "panel", type: "nominal", title: null } },
      spec: { width: WIDTH, height: 170, mark: { type: "line", strokeWidth: 1.2, interpolate: "step-after" }, encoding },
      resolve: { scale: { y: "independent" } },
      config,
    } as TopLevelSpec;
  }
  return {
    title,
    width: WIDTH,
    height: 240,
    data: { values: rows as Row[] },
    mark: { type: "line", strokeWidth: 1.2, interpolate: "step-after" },
    encoding,
    config,
  } as TopLevelSpec;
}

/** Renders a vega-lite spec to an SVG string, headless. */
export async function renderSvg(spec: TopLevelSpec): Promise<string> {
  const view = new vega.View(vega.parse(compile(spec).spec), { renderer: "none" });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}

interface Chart {
  readonly id: string;
  readonly title: string;
  readonly spec: TopLevelSpec | undefined;
}

/** The report's chart specs (undefined where the run has nothing to draw). */
export function chartSpecs(series: RunSeries, options: ReportOptions = {}): Chart[] {
  const maxPoints = options.maxPoints ?? DEFAULT_MAX_POINTS;
  const perps = [...series.markets].filter(([, s]) => [...(s.get("mark") ?? [])].some(Number.isFinite) || [...(s.get("fundingRate") ?? [])].some(Number.isFinite));
  const equity: Row[] = [];
  for (const [agent, values] of series.equity) {
    const first = values.find(Number.isFinite) ?? 0;
    equity.push(...lineRows(series, values, agent, "", maxPoints, first));
  }
  const positions: Row[] = [];
  for (const [agent, bySymbol] of series.positions) {
    for (const [symbol, values] of bySymbol) positions.push(...lineRows(series, values, agent, symbol, maxPoints));
  }
  const prices: Row[] = [];
  const funding: Row[] = [];
  const interest: Row[] = [];
  for (const [symbol, s] of perps) {
    for (const [name, key] of [
      ["mark", "mark"],
      ["oracle", "oracle"],
      ["index", "index"],
    ] as const) {
      prices.push(...lineRows(series, s.get(key)!, name, symbol, maxPoints));
    }
    funding.push(...lineRows(series, s.get("fundingRate")!, symbol, "", maxPoints));
    interest.push(...lineRows(series, s.get("openInterest")!, symbol, symbol, maxPoints));
  }
  const book: Row[] = [];
  const liquidity: Row[] = [];
  for (const [symbol, s] of series.markets) {
    book.push(...lineRows(series, s.get("bestBid")!, "best bid", symbol, maxPoints));
    book.push(...lineRows(series, s.get("bestAsk")!, "best ask", symbol, maxPoints));
    book.push(...lineRows(series, s.get("index")!, "index", symbol, maxPoints));
    liquidity.push(...lineRows(series, s.get("bidDepth")!, "bids", symbol, maxPoints));
    liquidity.push(...lineRows(series, s.get("askDepth")!, "asks", symbol, maxPoints));
  }
  const levels = options.depthLevels === undefined ? "top levels" : `top ${options.depthLevels} levels`;
  const chart = (id: string, title: string, rows: Row[], make: () => TopLevelSpec): Chart => ({ id, title, spec: rows.length === 0 ? undefined : make() });
  return [
    chart("equity", "Equity change per agent", equity, () => lineSpec("Equity change per agent (mark-to-market, net of deposits and withdrawals, from the first sample)", "rUSD", equity, { legend: "agent" })),
    chart("positions", "Positions per agent", positions, () => lineSpec("Positions per agent (signed, base units)", "position", positions, { facet: true, legend: "agent" })),
    chart("prices", "Mark vs oracle", prices, () => lineSpec("Mark vs oracle vs index, per perp market", "price", prices, { facet: true })),
    chart("funding", "Funding rate", funding, () => lineSpec("Funding rate (hourly, %)", "% per hour", funding, { legend: "market" })),
    chart("open-interest", "Open interest", interest, () => lineSpec("Open interest (base units)", "open interest", interest, { facet: true, legend: "market" })),
    chart("book", "Top of book", book, () => lineSpec("Best bid and ask vs index, per market", "price", book, { facet: true })),
    chart("liquidity", "Sampled liquidity", liquidity, () => lineSpec(`Sampled liquidity: quantity in the ${levels} of each side`, "base units", liquidity, { facet: true, legend: "side" })),
  ];
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);
}

function htmlTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const numeric = (cell: string) => /^[-+]?[\d,.]+%?$|^-$/.test(cell);
  const head = header.map((h) => `<th>${escapeHtml(h)}</th>`).join("");
  const body = rows.map((row) => `<tr>${row.map((cell) => `<td${numeric(cell) ? ' class="n"' : ""}>${escapeHtml(cell)}</td>`).join("")}</tr>`).join("\n");
  return `<table><thead><tr>${head}</tr></thead><tbody>\n${body}\n</tbody></table>`;
}

const STYLE = `
body { font-family: system-ui, -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; margin: 24px auto; max-width: 1100px; color: #222; }
h1 { font-size: 22px; margin-bottom: 4px; } h2 { font-size: 17px; margin-top: 32px; border-bottom: 1px solid #ddd; padding-bottom: 4px; }
p.desc { color: #555; margin-top: 0; }
table { border-collapse: collapse; font-size: 12.5px; margin: 8px 0; }
th, td { padding: 3px 8px; border-bottom: 1px solid #eee; text-align: left; white-space: nowrap; }
th { background: #f6f6f6; } td.n { text-align: right; font-variant-numeric: tabular-nums; }
dl.figures { display: grid; grid-template-columns: max-content 1fr; gap: 2px 16px; font-size: 13px; }
dl.figures dt { color: #666; } dl.figures dd { margin: 0; font-family: ui-monospace, Menlo, Consolas, monospace; }
figure { margin: 16px 0; } figure svg { max-width: 100%; height: auto; }
p.note { color: #666; font-size: 12px; }
`;

/** The whole page. */
export async function renderReportHtml(summary: RunSummary, series: RunSeries, options: ReportOptions = {}): Promise<string> {
  const charts = chartSpecs(series, options);
  const figures: string[] = [];
  for (const chart of charts) {
    if (chart.spec === undefined) {
      figures.push(`<section id="${chart.id}"><h2>${escapeHtml(chart.title)}</h2><p class="note">Nothing to draw in this run.</p></section>`);
      continue;
    }
    const svg = await renderSvg(chart.spec);
    figures.push(`<section id="${chart.id}"><h2>${escapeHtml(chart.title)}</h2><figure>${svg}</figure></section>`);
  }
  const t = summary.totals;
  const facts: [string, string][] = [
    ["scenario", summary.scenario],
    ["seed", String(summary.seed)],
    ...(summary.overrides === undefined ? [] : [["overrides (--set)", Object.entries(summary.overrides).map(([path, value]) => `${path}=${JSON.stringify(value)}`).join(" ")] as [string, string]]),
    ["signatures", summary.signatures],
    ["fingerprint", summary.fingerprint],
    ...(summary.code === undefined ? [] : [["code", summary.code] as [string, string]]),
    ["virtual time", `${formatMicros(millisToMicros(summary.startMs))} to ${formatMicros(millisToMicros(summary.endMs))} (${formatNumber(summary.simulatedSeconds, 0)} s)`],
    ["wall time", `${summary.wallSeconds.toFixed(2)} s (x${formatNumber(summary.speedup, 0)} real time)`],
    ["events", `${formatNumber(summary.events, 0)} (${formatNumber(summary.eventsPerSecond, 0)} per second)`],
    ["inputs / outputs", `${formatNumber(summary.inputs, 0)} / ${formatNumber(summary.outputs, 0)}`],
    ["samples", formatNumber(summary.samples, 0)],
    ["blocks", `${formatNumber(t.blocks, 0)} (${formatNumber(t.settledMatches, 0)} matches settled, ${formatNumber(t.bustedMatches, 0)} busted)`],
    ["totals", `${formatNumber(t.trades, 0)} trades, volume ${formatNumber(t.volume)} ${summary.settlementAsset}, fees ${formatNumber(t.fees)}, ${t.liquidations} liquidations, ${t.adl} ADL, ${t.busts} busts`],
  ];
  const detailHeader = ["agent", "account", "taker", "maker", "orders", "fees", "penalties", "accrued funding", "equity start", "equity end", "net PnL", "other PnL", "max DD %", "liq fills", "ADL fills", "busts"];
  const detailRows = summary.agents.map((a) => [
    a.name,
    String(a.accountId),
    formatNumber(a.takerTrades, 0),
    formatNumber(a.makerTrades, 0),
    formatNumber(a.orders, 0),
    formatNumber(a.fees, 4),
    formatNumber(a.penalties),
    formatNumber(a.unrealizedFunding),
    formatNumber(a.equityStart),
    formatNumber(a.equityEnd),
    formatNumber(a.netPnl),
    formatNumber(a.otherPnl),
    a.maxDrawdownFraction === null ? "-" : `${(a.maxDrawdownFraction * 100).toFixed(2)}%`,
    formatNumber(a.liquidationFills, 0),
    formatNumber(a.adlFills, 0),
    formatNumber(a.busts, 0),
  ]);
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>shadowbook run: ${escapeHtml(summary.scenario)} seed ${summary.seed}</title>
<style>${STYLE}</style>
</head>
<body>
<h1>shadowbook run: ${escapeHtml(summary.scenario)}, seed ${summary.seed}</h1>
<p class="desc">${escapeHtml(summary.description)}</p>
<dl class="figures">
${facts.map(([k, v]) => `<dt>${escapeHtml(k)}</dt><dd>${escapeHtml(v)}</dd>`).join("\n")}
</dl>
<h2>Agents</h2>
${htmlTable(AGENT_COLUMNS, agentRows(summary))}
${htmlTable(detailHeader, detailRows)}
<p class="note">Money in ${escapeHtml(summary.settlementAsset)}${summary.exact ? " (exact sums)" : " (some values converted at an index price)"}. Net PnL = equity change net of deposits and withdrawals; other PnL = net PnL minus (realized - fees - penalties + change in unrealized): spot trading, spot inventory revaluation and referral or pool fee credits received. Funding paid and received are realized funding; accrued funding is what open positions owe (negative) or are owed at the end, part of unrealized PnL. Fill ratio: settled filled over ordered quantity, weighted by limit price (a busted match does not count as filled).</p>
<h2>Markets</h2>
${htmlTable(MARKET_COLUMNS, marketRows(summary))}
${figures.join("\n")}
</body>
</html>
`;
}

export async function writeReportHtml(path: string, summary: RunSummary, series: RunSeries, options: ReportOptions = {}): Promise<void> {
  writeFileSync(path, await renderReportHtml(summary, series, options));
}
