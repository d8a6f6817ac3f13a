/**
 * `shadowbook replay`'s flags: a time that does not exist is refused, not
 * rolled over into another; with --serve, --port and --host are checked
 * (the address bound once, as `shadowbook serve` does) before the log is
 * read, so a refused command replays nothing and writes no state file;
 * without --serve they are refused.
 */
import { mkdtempSync, readdirSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import scenario from "../../scenarios/default.ts";
import { parseTimeArgument, replayCommand } from "../../src/cli/replay.ts";
import { InputLogRecorder } from "../../src/record/input-log.ts";
import { runScenario } from "../../src/sim/runner.ts";

describe("parseTimeArgument", () => {
  it("takes a time that exists, as Date.parse reads it", () => {
    for (const text of ["2024-02-29T00:00:00Z", "2000-02-29T12:00Z", "2026-12-31T23:59:59.999Z", "2026-01-01T05:30:00+05:30", "2026-06-30T00:00:00-11:59"]) {
      expect(parseTimeArgument(text), text).toBe(Date.parse(text) * 1_000);
    }
  });

  it("refuses a day the month does not have, naming it (Date.parse would roll it over)", () => {
    expect(() => parseTimeArgument("2026-02-30T00:00:00Z")).toThrow('--until "2026-02-30T00:00:00Z" is not a valid ISO-8601 time: day 30 is not within 01-28 (2026-02 has 28 days)');
    expect(() => parseTimeArgument("2026-02-29T00:00:00Z")).toThrow(/day 29 is not within 01-28/);
    expect(() => parseTimeArgument("2100-02-29T00:00:00Z")).toThrow(/day 29 is not within 01-28 \(2100-02 has 28 days\)/);
    expect(() => parseTimeArgument("2026-04-31T00:00:00Z")).toThrow(/day 31 is not within 01-30/);
    expect(() => parseTimeArgument("2026-01-00T00:00:00Z")).toThrow(/day 00 is not within 01-31/);
  });

  it("refuses a month, hour, minute, second or zone offset out of range", () => {
    expect(() => parseTimeArgument("2026-13-01T00:00:00Z")).toThrow(/is not a valid ISO-8601 time: month 13 is not within 01-12/);
    expect(() => parseTimeArgument("2026-01-01T24:00:00Z")).toThrow(/hour 24 is not within 00-23/);
    expect(() => parseTimeArgument("2026-01-01T23:60Z")).toThrow(/minute 60 is not within 00-59/);
    expect(() => parseTimeArgument("2026-01-01T23:59:60Z")).toThrow(/second 60 is not within 00-59/);
    expect(() => parseTimeArgument("2026-01-01T00:00:00+24:00")).toThrow(/zone offset 24:00 is not within 00:00-23:59/);
    expect(() => parseTimeArgument("2026-13-45T99:99:99Z", "--at")).toThrow(/^--at "2026-13-45T99:99:99Z" is not a valid ISO-8601 time/);
  });

  it("refuses a time before the Unix epoch", () => {
    expect(() => parseTimeArgument("1969-12-31T23:59:59Z")).toThrow('--until "1969-12-31T23:59:59Z" is before 1970-01-01T00:00:00Z (Unix time 0)');
  });
});

describe("replay --serve checks --port and --host before it reads the log", () => {
  let dir: string;
  let busy: Server;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "shadowbook-replay-command-"));
    const recorder = new InputLogRecorder();
    await runScenario(scenario, { durationSeconds: 2, observers: [recorder] });
    recorder.write(join(dir, "inputs.arrow"));
    busy = await new Promise<Server>((done, fail) => {
      const server = createServer();
      server.once("error", fail);
      server.listen(0, "127.0.0.1", () => done(server));
    });
    vi.spyOn(console, "log").mockImplementation(() => {});
  }, 120_000);

  afterAll(() => {
    busy?.close();
    vi.restoreAllMocks();
  });

  const log = () => join(dir, "inputs.arrow");

  it("a bad --port is refused before the log is read: even a log that does not exist", async () => {
    await expect(replayCommand(join(dir, "no-such.arrow"), { serve: true, port: "abc" })).rejects.toThrow('--port "abc" must be an integer within [0, 65535]');
    await expect(replayCommand(log(), { serve: true, port: "70000", until: "1767225601000" })).rejects.toThrow('--port "70000" must be an integer within [0, 65535]');
    expect(readdirSync(dir)).toEqual(["inputs.arrow"]);
  });

  it("a --host that is not an address of this machine, and a --port in use, write no state file", async () => {
    await expect(replayCommand(log(), { serve: true, port: "0", host: "not a host" })).rejects.toThrow('--host "not a host" is not an address of this machine');
    const port = (busy.address() as { port: number }).port;
    await expect(replayCommand(log(), { serve: true, port: String(port), host: "127.0.0.1" })).rejects.toThrow(`--port ${port} is in use on 127.0.0.1`);
    expect(readdirSync(dir)).toEqual(["inputs.arrow"]);
  });

  it("an impossible --until is refused before the log is read", async () => {
    await expect(replayCommand(join(dir, "no-such.arrow"), { until: "2026-02-30T00:00:00Z" })).rejects.toThrow(/--until "2026-02-30T00:00:00Z" is not a valid ISO-8601 time/);
    expect(readdirSync(dir)).toEqual(["inputs.arrow"]);
  });

  it("without --serve, --port and --host are refused before the log is read (they would do nothing)", async () => {
    await expect(replayCommand(log(), { port: "9000", until: "1767225601000" })).rejects.toThrow('--port "9000" only applies with --serve');
    await expect(replayCommand(log(), { host: "127.0.0.1", until: "1767225601000" })).rejects.toThrow('--host "127.0.0.1" only applies with --serve');
    expect(readdirSync(dir)).toEqual(["inputs.arrow"]);
    const result = await replayCommand(log(), {});
    expect(result.diverged).toBe(false);
    expect(readdirSync(dir)).toEqual(["inputs.arrow"]);
  });
});
