/**
 * `shadowbook record`, through the real CLI (bin/shadowbook.mjs) against a
 * tiny streaming server that answers `subscribe` as shadowbook's does (a
 * `subscribed` frame and data, or "Invalid channel name" for an unknown
 * channel):
 * - a refused channel (exit 1) leaves no file, and no directory made for it
 *   (it used to leave a one-row recording of the error frame);
 * - the summary names the flag that stopped the recording (`stopped by
 *   --max-rows`, not `maxRows`);
 * - `--out` naming an existing file is refused before connecting, naming
 *   --out and the file; the file is left as it was;
 * - `--help` says so.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocketServer } from "ws";
import { readMdRecording } from "../../src/record/md-recording.ts";
import { formatSummary, type RecordSummary } from "../../src/record/ws-recorder.ts";
import { shadowbook, type Ran } from "./shadowbook-process.ts";

const DIR = mkdtempSync(join(tmpdir(), "shadowbook-record-s29-"));
const ORACLE = "/v2/assetOraclePrices";
let server: WebSocketServer;
let url: string;

beforeAll(async () => {
  server = new WebSocketServer({ port: 0, host: "127.0.0.1" });
  await new Promise((resolve) => server.once("listening", resolve));
  url = `ws://127.0.0.1:${(server.address() as { port: number }).port}/ws`;
  server.on("connection", (socket) => {
    socket.on("message", (raw) => {
      const { channel } = JSON.parse(raw.toString()) as { channel: string };
      if (channel !== ORACLE) {
        socket.send(JSON.stringify({ type: "error", message: "Invalid channel name", channel }));
        return;
      }
      socket.send(`{"type":"subscribed","channel":${JSON.stringify(channel)}}`);
      for (let i = 0; i < 20; i++) socket.send(`{"type":"channel_data","timestamp":${i},"channel":${JSON.stringify(channel)},"data":[]}`);
    });
  });
  writeFileSync(EXISTING, "an earlier recording");
  // The commands at once (each takes seconds to start); the --out one must not connect.
  const ids = Object.keys(CASES());
  const done = await Promise.all(Object.values(CASES()).map((args) => shadowbook(args)));
  ids.forEach((id, i) => ran.set(id, done[i]!));
}, 120_000);

const EXISTING = join(DIR, "existing.arrow");
const REFUSED_OUT = join(DIR, "made", "for", "it", "refused.arrow");
const AMONG_OUT = join(DIR, "refused-among.arrow");
const MAX_OUT = join(DIR, "max.arrow");
const CASES = (): Record<string, string[]> => ({
  refused: ["record", "--url", url, "--channels", "/v2/nonsense", "--out", REFUSED_OUT, "--quiet"],
  refusedAmong: ["record", "--url", url, "--channels", `${ORACLE},/v2/nonsense`, "--out", AMONG_OUT, "--quiet"],
  maxRows: ["record", "--url", url, "--channels", ORACLE, "--out", MAX_OUT, "--max-rows", "5", "--quiet"],
  existing: ["record", "--url", url.replace(/:\d+\//, ":1/"), "--channels", ORACLE, "--out", EXISTING, "--max-rows", "5", "--quiet"],
  help: ["record", "--help"],
});
const ran = new Map<string, Ran>();
function outcome(id: string): Ran {
  expect(ran.has(id), `case ${id} did not run`).toBe(true);
  return ran.get(id)!;
}

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  rmSync(DIR, { recursive: true, force: true });
});

describe("shadowbook record", () => {
  it("a refused channel: exit 1 naming it, and no file left behind, nor the directory made for it", () => {
    const refused = outcome("refused");
    expect(refused.status).toBe(1);
    expect(refused.stderr).toBe('channel "/v2/nonsense" was refused: Invalid channel name\n');
    expect(refused.stdout).toBe("");
    expect(existsSync(REFUSED_OUT)).toBe(false);
    expect(existsSync(join(DIR, "made"))).toBe(false);
  });

  it("one channel refused among good ones: no file either", () => {
    const among = outcome("refusedAmong");
    expect(among.status).toBe(1);
    expect(among.stderr).toBe('channel "/v2/nonsense" was refused: Invalid channel name\n');
    expect(existsSync(AMONG_OUT)).toBe(false);
  });

  it("the summary names the flag that stopped it: --max-rows (and the command exits, though the rows came with the first session)", () => {
    const max = outcome("maxRows");
    expect(max.status, max.stderr).toBe(0);
    expect(max.stdout.split("\n")[0]).toBe(`recorded ${url} -> ${MAX_OUT} (stopped by --max-rows)`);
    expect(readMdRecording(MAX_OUT).length).toBe(5);
  });

  it("the summary names --duration, and a signal, likewise", () => {
    const summary = (stoppedBy: RecordSummary["stoppedBy"]): RecordSummary => ({
      url: "ws://x/ws",
      out: "r.arrow",
      rows: 0,
      byKind: { subscribed: 0, data: 0, error: 0, gap: 0 },
      sessions: 1,
      gaps: 0,
      ignored: 0,
      frameBytes: 0,
      fileBytes: 0,
      seconds: 1,
      rowsPerSecond: 0,
      stoppedBy,
    });
    expect(formatSummary(summary("duration"))[0]).toBe("recorded ws://x/ws -> r.arrow (stopped by --duration)");
    expect(formatSummary(summary("maxRows"))[0]).toBe("recorded ws://x/ws -> r.arrow (stopped by --max-rows)");
    expect(formatSummary(summary("signal"))[0]).toBe("recorded ws://x/ws -> r.arrow (stopped by a signal (SIGINT or SIGTERM))");
  });

  it("--out naming an existing file: refused before connecting (its URL is a closed port), naming --out and the file, which is left as it was", () => {
    const existing = outcome("existing");
    expect(existing.status).toBe(1);
    expect(existing.stderr).toBe(`--out "${EXISTING}" already exists: record does not replace it; remove it or choose another path\n`);
    expect(existing.stdout).toBe("");
    expect(readFileSync(EXISTING, "utf8")).toBe("an earlier recording");
  });

  it("the directory holds only the recording that ran and the existing file", () => {
    expect(readdirSync(DIR).sort()).toEqual(["existing.arrow", "max.arrow"]);
  });

  it("--help says --out must be a new file and that a failed start leaves none", () => {
    const help = outcome("help");
    expect(help.status).toBe(0);
    const text = help.stdout.replace(/\s+/g, " ");
    expect(text).toContain("--out <file> the recording to write, a new file (an existing one is refused), e.g. data/eth.arrow; none is left when the first connection or a channel fails");
    expect(text).not.toMatch(/--force|--overwrite/);
  });
});
