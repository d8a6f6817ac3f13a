/**
 * `shadowbook run --verify-signatures`, as a user runs it (the real CLI,
 * `node bin/shadowbook.mjs`, in child processes).
 *
 * The claim (README "Backtest a scenario", src/sim/agent-host.ts): shipped
 * scenarios run in trusted mode, where the gateway skips only the signature
 * check; `--verify-signatures` turns on signed mode (agents sign with their
 * keys, the gateway verifies every signature), the outputs, and so the
 * fingerprint, are the same as in trusted mode, and the run summary says
 * which mode was used. Held here:
 *  - twelve simulated seconds of the default scenario (which declares
 *    `signatures: "trusted"`) give the same fingerprint, the same counts
 *    and the same summary table with and without the flag, each agent got
 *    the same answers (`--verbose` counters), and the summary names the
 *    mode: "signed mode: every signature verified" and "signatures signed"
 *    with the flag, "trusted mode" and "signatures trusted" without;
 *  - the flag really turns verification on in the gateway (an equal
 *    fingerprint alone would also hold if it were ignored): in
 *    test/cli/fixtures/forged-signature-scenario.ts an agent signs with a
 *    key that is not its account's; its order is accepted without the flag
 *    and refused with UNAUTHORIZED_SIGNATURE_ERROR with it, while an honest
 *    agent's order is accepted in both.
 */
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { ROOT, shadowbook, type Ran } from "./shadowbook-process.ts";

const FORGED = join(ROOT, "test/cli/fixtures/forged-signature-scenario.ts");
/** Simulated seconds of the default scenario: enough for fills and the chaos agent's first probe (at 10 s). */
const DURATION = "12";


function fingerprintOf(stdout: string): string {
  const match = /^fingerprint ([0-9a-f]{64})$/m.exec(stdout);
  if (match === null) throw new Error(`no fingerprint line in:\n${stdout}`);
  return match[1]!;
}

function countOf(stdout: string, name: "events" | "inputs" | "outputs"): number {
  const match = new RegExp(`(?:^|\\s)${name} ([\\d,]+)`, "m").exec(stdout);
  if (match === null) throw new Error(`no "${name}" figure in:\n${stdout}`);
  return Number(match[1]!.replaceAll(",", ""));
}

/** The summary without its wall-clock figures: the per-agent and per-market tables, totals and fingerprint. */
function tables(stdout: string): string {
  const lines = stdout.split("\n");
  const start = lines.findIndex((line) => line.startsWith("agent "));
  expect(start).toBeGreaterThan(0);
  return lines.slice(start).join("\n");
}

/** The `--verbose` counters of one agent (the line after the tables). */
function countersOf(stdout: string, agent: string): string {
  const match = new RegExp(`^  ${agent.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\s+(.*)$`, "m").exec(stdout);
  if (match === null) throw new Error(`no counters of agent "${agent}" in:\n${stdout}`);
  return match[1]!.trim();
}

let trusted: Ran;
let signed: Ran;
let forgedTrusted: Ran;
let forgedSigned: Ran;

beforeAll(async () => {
  [trusted, signed, forgedTrusted, forgedSigned] = await Promise.all([
    shadowbook(["run", "default", "--duration", DURATION, "--no-progress", "--verbose"]),
    shadowbook(["run", "default", "--duration", DURATION, "--no-progress", "--verbose", "--verify-signatures"]),
    shadowbook(["run", FORGED, "--no-progress", "--verbose"]),
    shadowbook(["run", FORGED, "--no-progress", "--verbose", "--verify-signatures"]),
  ]);
  for (const ran of [trusted, signed, forgedTrusted, forgedSigned]) {
    if (ran.status !== 0) throw new Error(`shadowbook run exited with ${ran.status}:\n${ran.stdout}\n${ran.stderr}`);
  }
});

describe("shadowbook run --verify-signatures on the default scenario", () => {
  it("says signed mode in the run summary with the flag, trusted mode without", () => {
    expect(signed.stdout).toContain("shadowbook run default (seed 1, signed mode: every signature verified)");
    expect(signed.stdout).toMatch(/^scenario default +seed 1 +signatures signed +simulated 12 s /m);
    expect(signed.stdout).not.toContain("trusted");
    expect(trusted.stdout).toContain("shadowbook run default (seed 1, trusted mode: signatures not checked)");
    expect(trusted.stdout).toMatch(/^scenario default +seed 1 +signatures trusted +simulated 12 s /m);
    expect(trusted.stdout).not.toMatch(/signatures signed|signed mode/);
  });

  it("gives the same fingerprint and the same counts as trusted mode, over a run that trades", () => {
    expect(countOf(trusted.stdout, "inputs")).toBeGreaterThan(50);
    expect(trusted.stdout).toMatch(/^totals: trades [1-9]/m);
    expect(fingerprintOf(signed.stdout)).toBe(fingerprintOf(trusted.stdout));
    for (const name of ["events", "inputs", "outputs"] as const) expect(countOf(signed.stdout, name), name).toBe(countOf(trusted.stdout, name));
  });

  it("prints the same summary tables, and every agent got the same answers", () => {
    expect(tables(signed.stdout)).toBe(tables(trusted.stdout));
    for (const agent of ["mm-eth", "mm-btc", "mm-weth-spot", "noise-eth-1", "arbitrageur", "chaos"]) {
      expect(countersOf(signed.stdout, agent), agent).toBe(countersOf(trusted.stdout, agent));
    }
    // The chaos agent ran a probe in the window, so rejected requests are compared too.
    expect(countersOf(signed.stdout, "chaos")).toMatch(/probe:/);
  });
});

describe("shadowbook run --verify-signatures turns on the gateway's signature check", () => {
  it("refuses a forged signature with the flag and accepts it without", () => {
    expect(forgedTrusted.stdout).toContain("trusted mode: signatures not checked");
    expect(countersOf(forgedTrusted.stdout, "forger")).toBe("ok 1");
    expect(forgedSigned.stdout).toContain("signed mode: every signature verified");
    expect(countersOf(forgedSigned.stdout, "forger")).toBe("error:UNAUTHORIZED_SIGNATURE_ERROR 1");
  });

  it("accepts an honest agent's signature in both modes", () => {
    expect(countersOf(forgedTrusted.stdout, "honest")).toBe("ok 1");
    expect(countersOf(forgedSigned.stdout, "honest")).toBe("ok 1");
    // The forged order rests in one run and not the other: the outputs differ.
    expect(fingerprintOf(forgedSigned.stdout)).not.toBe(fingerprintOf(forgedTrusted.stdout));
  });
});
