/**
 * The live server's input log over real sockets (`serve --record`,
 * src/record/live-input-log.ts):
 *  - a recorded session (manual clock; REST and WebSocket order entry, clock
 *    advances, admin actions) replays to the server's own fingerprint,
 *    matching after every step;
 *  - with sync durability an answer leaves only once its request is on
 *    disk; with async it leaves at once;
 *  - a server killed with SIGKILL while answering many concurrent requests
 *    leaves a log that holds every answered request and replays, step for
 *    step, to the fingerprints it recorded.
 *
 * The two durability tests run at the same time (each mostly waits out its
 * group-commit window), and the SIGKILL test's server is started with the
 * file, so that it boots while the in-process tests run.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { LiveInputLog, type Durability } from "../../src/record/live-input-log.ts";
import { readInputLog, replayInputLog } from "../../src/record/replay.ts";
import { startLiveServer } from "../../src/live/serve.ts";
import { createOrderPlan } from "../../src/client/actions/createOrder.ts";
import { ETH, Party, RestWorld, signedConfig, START_MICROS } from "./helpers/rest-world.ts";
import { privateKey } from "../exchange/gateway/harness.ts";
import { spawnServe, type ServeProcess } from "../helpers/serve-process.ts";

function directory(): string {
  return mkdtempSync(join(tmpdir(), "shadowbook-record-"));
}

/** A recording server in-process (signed mode, manual clock) with the three parties funded and prices set. */
async function recordingWorld(durability: Durability, groupCommitMs?: number): Promise<{ w: RestWorld; log: LiveInputLog }> {
  const config = signedConfig();
  const log = new LiveInputLog(directory(), {
    config,
    seed: 7,
    startMicros: START_MICROS,
    scenario: "serve",
    signatures: "signed",
    durability,
    ...(groupCommitMs === undefined ? {} : { groupCommitMs }),
  });
  const running = await startLiveServer({ config, seed: 7, port: 0, clock: "manual", startMicros: START_MICROS, log });
  const w = new RestWorld(running, config, []);
  await w.admin("accounts", { wallet: w.alice.address, accountId: 2, deposits: { rUSD: "10000" } });
  await w.admin("accounts", { wallet: w.bob.address, accountId: 3, deposits: { rUSD: "10000" } });
  await w.admin("accounts", { wallet: w.carol.address, accountId: 4, deposits: { rUSD: "1000", WETH: "2" } });
  await w.prices();
  return { w, log };
}

/** Sends exec frames on one socket and resolves with the answers by id, once every id is answered. */
async function execRound(url: string, frames: { id: string; type: string; payload: unknown }[]): Promise<Map<string, any>> {
  const socket = new WebSocket(url);
  await new Promise((resolve, reject) => socket.once("open", resolve).once("error", reject));
  const answers = new Map<string, any>();
  const done = new Promise<void>((resolve) =>
    socket.on("message", (data) => {
      const frame = JSON.parse(data.toString()) as { id: string };
      answers.set(frame.id, frame);
      if (answers.size === frames.length) resolve();
    }),
  );
  for (const frame of frames) socket.send(JSON.stringify(frame));
  await done;
  socket.close();
  return answers;
}

describe("a recorded live session", () => {
  it("replays to the server's fingerprint, matching every step: REST and WebSocket orders, clock advances, admin actions", async () => {
    const { w, log } = await recordingWorld("sync");
    await w.rest(w.bob, { isBuy: false, qty: "0.05", limitPx: "2001" });
    expect((await w.entry("createOrder", w.create(w.alice, { symbol: ETH, isBuy: true, qty: "0.02", limitPx: "2001", timeInForce: "IOC" }))).status).toBe("FILLED");
    const resting = await w.rest(w.alice, { isBuy: true, qty: "0.01", limitPx: "1990" });
    await w.entry("modifyOrder", w.modify(w.alice, { orderId: resting, symbol: ETH, isBuy: true, qty: "0.02", limitPx: "1991", postOnly: false, timeInForce: "GTC" }));
    expect((await w.post("/v2/createOrder", { ...w.create(w.alice, { symbol: ETH, isBuy: true, qty: "0.01", limitPx: "1990", timeInForce: "GTC" }), limitPx: "1995" })).status).toBe(400);
    await w.advance(200); // a block: the fill settles
    const frames = [
      ...[0, 1, 2].map((i) => ({ id: `c${i}`, type: "createOrder", payload: w.create(w.carol, { symbol: ETH, isBuy: true, qty: "0.01", limitPx: String(1980 + i), timeInForce: "GTC" }) })),
      { id: "x", type: "cancelAll", payload: w.cancelAll(w.bob, { symbol: ETH }) },
      { id: "after", type: "cancelAllAfter", payload: w.cancelAllAfter(w.carol, { timeoutMs: 5_000 }) },
    ];
    const answers = await execRound(w.running.urls.exec, frames);
    expect([...answers.values()].every((answer) => answer.ok === true)).toBe(true);
    await w.admin(`wallets/${w.alice.address}`, { rateTier: 2 });
    await w.admin("deposits", { accountId: 3, asset: "rUSD", amount: "500" });
    await w.admin("faults", { bustNext: { count: 1 } });
    await w.trade(w.alice, w.bob, "0.01"); // settles as a bust
    await w.admin("faults", { dropResponses: 1 });
    await expect(w.post("/v2/createOrder", w.create(w.alice, { symbol: ETH, isBuy: true, qty: "0.01", limitPx: "1900", timeInForce: "GTC" }))).rejects.toThrow();
    await w.advance(6_000); // carol's cancelAllAfter fires; blocks, summaries
    await w.prices("2010", "60100");
    await w.entry("cancelOrder", w.cancel(w.alice, { symbol: ETH, orderId: resting }));
    const state = await w.ok("/admin/state");
    await w.close();

    const recorded = readInputLog(log.path);
    expect(recorded.scenario).toBe("serve");
    expect(recorded.seed).toBe(7);
    const kinds = new Set(recorded.steps.map((step) => step.kind));
    expect([...kinds].sort()).toEqual(["admin", "advance", "fault", "prices", "request"]);
    expect(recorded.steps.filter((step) => step.kind !== "advance")).toHaveLength(state.counts.inputs);
    expect(recorded.steps.at(-1)!.fingerprint).toBe(state.fingerprint);
    const result = replayInputLog(recorded);
    expect(result.divergence).toBeUndefined();
    expect(result.steps).toBe(recorded.steps.length);
    expect(result.fingerprint).toBe(state.fingerprint);
  }, 60_000);
});

describe.concurrent("durability", () => {
  it("sync: an order-entry answer leaves once its request is on disk, and waits for the group-commit window", async ({ expect }) => {
    const { w, log } = await recordingWorld("sync", 400);
    for (let i = 0; i < 3; i++) {
      const started = performance.now();
      const answer = await w.post("/v2/createOrder", w.create(w.alice, { symbol: ETH, isBuy: true, qty: "0.01", limitPx: "1900", timeInForce: "GTC" }));
      expect(answer.status).toBe(200);
      expect(log.stats.durableSteps).toBe(log.stats.steps);
      if (i > 0) expect(performance.now() - started).toBeGreaterThanOrEqual(300);
    }
    const answers = await execRound(w.running.urls.exec, [{ id: "1", type: "cancelAll", payload: w.cancelAll(w.alice, { symbol: ETH }) }]);
    expect(answers.get("1").ok).toBe(true);
    expect(log.stats.durableSteps).toBe(log.stats.steps);
    await w.close();
  }, 60_000);

  it("async: answers leave at once, before their requests are on disk", async ({ expect }) => {
    const { w, log } = await recordingWorld("async", 3_000);
    await w.post("/v2/createOrder", w.create(w.alice, { symbol: ETH, isBuy: true, qty: "0.01", limitPx: "1900", timeInForce: "GTC" }));
    const answer = await w.post("/v2/createOrder", w.create(w.alice, { symbol: ETH, isBuy: true, qty: "0.01", limitPx: "1901", timeInForce: "GTC" }));
    expect(answer.status).toBe(200);
    expect(log.stats.durableSteps).toBeLessThan(log.stats.steps);
    const answers = await execRound(w.running.urls.exec, [{ id: "1", type: "cancelAll", payload: w.cancelAll(w.alice, { symbol: ETH }) }]);
    expect(answers.get("1").ok).toBe(true);
    expect(log.stats.durableSteps).toBeLessThan(log.stats.steps);
    await w.close(); // the close commits the rest
    expect(log.stats.durableSteps).toBe(log.stats.steps);
    expect(replayInputLog(readInputLog(log.path)).divergence).toBeUndefined();
  }, 60_000);
});

// -- kill -9 ----------------------------------------------------------------------------------

const START_MS = 1_767_225_600_000;

/** `shadowbook serve` in a child process (one process: node with tsx's loader, so SIGKILL reaches the server itself). */
function spawnServer(dir: string): Promise<ServeProcess> {
  // A wide group-commit window (2 ms by default): with --durability async the kill below loses about a third of
  // the answered requests; a server that answers only once the log is on disk loses none.
  return spawnServe({
    via: "tsx",
    args: ["--clock", "manual", "--port", "0", "--start", String(START_MS), "--record", dir],
    env: { SHADOWBOOK_GROUP_COMMIT_MS: "200" },
  });
}

/** The SIGKILL test's server and its log directory, started with the file (it boots in seconds: tsx compiles the CLI). */
let killDir: string;
let killServer: Promise<ServeProcess>;

beforeAll(() => {
  killDir = directory();
  killServer = spawnServer(killDir);
  killServer.catch(() => {}); // a failure to start is the test's to report
});

afterAll(async () => {
  const served = await killServer.catch(() => undefined);
  if (served !== undefined && served.child.exitCode === null && served.child.signalCode === null) served.child.kill("SIGKILL");
});

describe("a live server killed with SIGKILL", () => {
  it("leaves a log that holds every answered request and replays to every recorded fingerprint", async () => {
    const dir = killDir;
    const served = await killServer;
    expect(served.banner).toContain("(durability: sync, group commit every ≤200 ms)");
    const { child, origin: base, exec, exited } = served;
    let nowMicros = START_MS * 1_000;
    const clock = { now: () => nowMicros };
    const post = async (path: string, body: unknown): Promise<{ status: number; body: any }> => {
      const response = await fetch(base + path, { method: "POST", body: JSON.stringify(body), headers: { "content-type": "application/json" } });
      return { status: response.status, body: JSON.parse(await response.text()) };
    };
    try {
      nowMicros = (await post("/admin/clock", { advanceMs: 1_000 })).body.virtualTimeMicros; // the house quotes and prices
      const parties = Array.from({ length: 6 }, (_, i) => new Party(`p${i}`, privateKey(0x100 + i), 100 + i, clock));
      // The parties at once (each admin answer waits for its group commit, up to 200 ms): one party's steps in order.
      await Promise.all(
        parties.map(async (party) => {
          expect((await post("/admin/accounts", { wallet: party.address, accountId: party.accountId, deposits: { rUSD: "1000000" } })).status).toBe(200);
          expect((await post(`/admin/wallets/${party.address}`, { rateTier: 3 })).status).toBe(200);
        }),
      );
      /** A resting order far from the house's quotes (buys low, sells high), really signed. */
      const order = (party: Party, n: number): Record<string, unknown> => {
        const isBuy = n % 2 === 0;
        const limitPx = String(isBuy ? 1000 + (n % 500) : 9000 - (n % 500));
        const built = createOrderPlan(party.client, { symbol: ETH, isBuy, qty: "0.01", limitPx, timeInForce: "GTC" }).build({ nowMicros: clock.now(), nonce: party.nextNonce() });
        built.body.signature = party.sign(built.signed);
        return built.body as unknown as Record<string, unknown>;
      };

      const answered: string[] = [];
      const KILL_AFTER = 400;
      let killed = false;
      const answer = (signature: string) => {
        if (killed) return;
        answered.push(signature);
        if (answered.length >= KILL_AFTER) {
          killed = true;
          child.kill("SIGKILL");
        }
      };
      // Four REST loops (two requests in flight each) and two WebSocket connections (16 frames in flight each).
      const restLoop = async (party: Party) => {
        for (let n = 0; !killed; n++) {
          const bodies = [order(party, n * 2), order(party, n * 2 + 1)];
          await Promise.all(
            bodies.map((body) =>
              post("/v2/createOrder", body).then(
                (reply) => {
                  if (reply.status === 200 || reply.status === 400) answer(body["signature"] as string);
                },
                () => undefined,
              ),
            ),
          );
        }
      };
      const execLoop = async (party: Party) => {
        const socket = new WebSocket(exec);
        await new Promise((resolve) => socket.once("open", resolve));
        const sent = new Map<string, string>();
        let n = 0;
        const sendOne = () => {
          if (killed || socket.readyState !== WebSocket.OPEN) return;
          const payload = order(party, n);
          const id = `${party.name}-${n++}`;
          sent.set(id, payload["signature"] as string);
          socket.send(JSON.stringify({ type: "createOrder", id, payload }));
        };
        await new Promise<void>((resolve) => {
          socket.on("message", (data) => {
            const frame = JSON.parse(data.toString()) as { id?: string };
            if (frame.id !== undefined && sent.has(frame.id)) answer(sent.get(frame.id)!);
            sendOne();
          });
          socket.on("close", () => resolve());
          socket.on("error", () => resolve());
          for (let i = 0; i < 16; i++) sendOne();
        });
      };
      await Promise.all([...parties.slice(0, 4).map(restLoop), ...parties.slice(4).map(execLoop)]);
      await exited;
      expect(killed).toBe(true);

      const recorded = readInputLog(join(dir, "inputs.arrow"));
      const logged = new Set(recorded.steps.flatMap((step) => (step.input?.kind === "request" ? [(step.input.body as { signature: string }).signature] : [])));
      const missing = answered.filter((signature) => !logged.has(signature));
      expect(missing, `${missing.length} of ${answered.length} answered requests are not in the log`).toEqual([]);
      const result = replayInputLog(recorded);
      expect(result.divergence).toBeUndefined();
      expect(result.steps).toBe(recorded.steps.length);
      expect(result.fingerprint).toBe(recorded.steps.at(-1)!.fingerprint);
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    }
  }, 180_000);
});
