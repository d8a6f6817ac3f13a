/**
 * WebSocket order entry with signature work off the main thread, against
 * the same server checking every signature inline in its gateway: the same
 * frames, sent in bursts or one at a time on one connection, get the same
 * answers in the same order, and the Exchange ends with the same
 * fingerprint and the same input count.
 * - Signatures recovered by worker threads (signer-pool.ts): only a frame
 *   arriving behind a backlog goes to a worker (exec.ts, OFFLOAD_BACKLOG).
 * - Signatures of known signers checked early on the add-on's confirmer
 *   thread (early-confirm.ts), the default.
 */
import { afterAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { defaultExchangeConfig } from "../../src/exchange/config.ts";
import { CLOSED_MESSAGE, type InputLog } from "../../src/live/driver.ts";
import { startLiveServer, type RunningServer } from "../../src/live/serve.ts";
import { DEFAULT_SIGNING_CONFIG } from "../../src/signing/domain.ts";
import { knownSignerReady } from "../../src/signing/verify.ts";
import { KEYS, setupInputs, signedFrames, START_MICROS, walletOf, type Frame } from "../live/helpers/signed-frames.ts";

const servers: RunningServer[] = [];

afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
});

/** A signed server on a manual clock with the two funded accounts, and `count` frames over them. */
async function server(
  signerThreads: number,
  earlyConfirm: boolean,
  more: { log?: InputLog; drainMs?: number; count?: number } = {},
): Promise<{ running: RunningServer; frames: Frame[] }> {
  const { count = 120, ...options } = more;
  const running = await startLiveServer({
    config: defaultExchangeConfig(DEFAULT_SIGNING_CONFIG),
    seed: 3,
    clock: "manual",
    startMicros: START_MICROS,
    port: 0,
    signerThreads,
    earlyConfirm,
    ...options,
  });
  servers.push(running);
  const accountIds: number[] = [];
  for (const input of setupInputs()) {
    const answer = running.context.driver.handle(input);
    if (!answer.ok) throw new Error(answer.error.message);
    if (input.kind === "admin") accountIds.push(Number(answer.payload["accountId"]));
  }
  return { running, frames: signedFrames([accountIds[0]!, accountIds[1]!], count) };
}

async function connect(url: string): Promise<WebSocket> {
  const socket = new WebSocket(url);
  await new Promise((resolve, reject) => {
    socket.once("open", resolve);
    socket.once("error", reject);
  });
  return socket;
}

/** Sends the frames in bursts of `burst` (each burst in one write), waiting for a burst's answers before the next; answers in arrival order. */
async function exchangeFrames(socket: WebSocket, frames: readonly Frame[], burst: number): Promise<Record<string, unknown>[]> {
  const answers: Record<string, unknown>[] = [];
  const raw = (socket as unknown as { _socket: { cork(): void; uncork(): void } })._socket;
  for (let start = 0; start < frames.length; start += burst) {
    const slice = frames.slice(start, start + burst);
    const done = new Promise<void>((resolve) => {
      let left = slice.length;
      const onMessage = (data: WebSocket.RawData): void => {
        answers.push(JSON.parse(data.toString()) as Record<string, unknown>);
        if (--left === 0) {
          socket.off("message", onMessage);
          resolve();
        }
      };
      socket.on("message", onMessage);
    });
    raw.cork();
    for (const frame of slice) socket.send(frame.text);
    raw.uncork();
    await done;
  }
  return answers;
}

/** Both frame signers' comb tables are built on this thread (known-signers.ts), whatever other signers' tables exist. */
function bothSignersReady(): boolean {
  return KEYS.every((privateKey) => knownSignerReady(walletOf(privateKey)));
}

async function until(condition: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return true;
}

describe("WebSocket order entry with off-thread signature recovery", () => {
  it("answers exactly as inline recovery does, in order, with the same fingerprint", async () => {
    const inline = await server(0, false);
    // Workers with early confirm on, as `serve --signer-threads N` runs them: frames behind a backlog go to a worker, the rest may be checked early.
    const pooled = await server(1, true);
    expect(pooled.frames.map((f) => f.text)).toEqual(inline.frames.map((f) => f.text));

    const inlineSocket = await connect(inline.running.urls.exec);
    const pooledSocket = await connect(pooled.running.urls.exec);
    const exec = pooled.running.server.surfaces.exec;
    // The workers start with the first connection and load the sources: give them time (a slow machine may take seconds).
    const ready = await until(() => exec.signerThreadsReady, 30_000);
    expect(ready).toBe(true);

    const expected = await exchangeFrames(inlineSocket, inline.frames, 16);
    const answers = await exchangeFrames(pooledSocket, pooled.frames, 16);
    inlineSocket.close();
    pooledSocket.close();

    expect(answers).toEqual(expected);
    // Answers come back in request order (one connection, one queue).
    expect(answers.map((a) => a["id"])).toEqual(inline.frames.map((f) => f.id));
    expect(answers.filter((a) => a["ok"] === true).length).toBeGreaterThan(40);
    expect(answers.some((a) => (a["error"] as { error?: string } | undefined)?.error === "UNAUTHORIZED_SIGNATURE_ERROR")).toBe(true);
    expect(exec.recoveredOffThread).toBeGreaterThan(pooled.frames.length / 2);
    expect(inline.running.server.surfaces.exec.recoveredOffThread).toBe(0);
    expect(pooled.running.context.fingerprint()).toBe(inline.running.context.fingerprint());
    expect(pooled.running.context.counts()).toEqual(inline.running.context.counts());
  });

  it("recovers inline when nothing waits: one request at a time never goes to a worker", async () => {
    const pooled = await server(1, false);
    const socket = await connect(pooled.running.urls.exec);
    const exec = pooled.running.server.surfaces.exec;
    expect(await until(() => exec.signerThreadsReady, 30_000)).toBe(true);
    const frames = pooled.frames.slice(0, 24);
    const answers = await exchangeFrames(socket, frames, 1);
    expect(answers.map((a) => a["id"])).toEqual(frames.map((f) => f.id));
    expect(answers.filter((a) => a["ok"] === true).length).toBeGreaterThan(10);
    expect(exec.recoveredOffThread).toBe(0);
    // A burst behind it does go to the worker (all but the first few of the burst).
    const burst = pooled.frames.slice(24, 40);
    await exchangeFrames(socket, burst, burst.length);
    expect(exec.recoveredOffThread).toBeGreaterThan(burst.length / 2);
    socket.close();
  });
});

describe("WebSocket order entry with signatures checked early on the confirmer thread", () => {
  it("answers exactly as the gateway's inline check does, in order, with the same fingerprint", async () => {
    const inline = await server(0, false);
    const inlineSocket = await connect(inline.running.urls.exec);
    // Inline, one at a time first: each signer is recovered until its comb table is built (known-signers.ts).
    const expectedOneByOne = await exchangeFrames(inlineSocket, inline.frames, 1);
    expect(await until(() => bothSignersReady(), 10_000)).toBe(true);

    for (const burst of [1, 16]) {
      const early = await server(0, true);
      expect(early.frames.map((f) => f.text)).toEqual(inline.frames.map((f) => f.text));
      const socket = await connect(early.running.urls.exec);
      const answers = await exchangeFrames(socket, early.frames, burst);
      socket.close();
      expect(answers, `bursts of ${burst}`).toEqual(expectedOneByOne);
      expect(answers.map((a) => a["id"])).toEqual(early.frames.map((f) => f.id));
      // Most frames were checked early: every signed one whose signer (named, or the account's last) has a table, and whose signature is its.
      const exec = early.running.server.surfaces.exec;
      expect(exec.confirmedEarly, `bursts of ${burst}`).toBeGreaterThan(40);
      expect(early.running.context.fingerprint()).toBe(inline.running.context.fingerprint());
      expect(early.running.context.counts()).toEqual(inline.running.context.counts());
    }
    inlineSocket.close();
    expect(expectedOneByOne.filter((a) => a["ok"] === true).length).toBeGreaterThan(40);
    expect(expectedOneByOne.some((a) => (a["error"] as { error?: string } | undefined)?.error === "UNAUTHORIZED_SIGNATURE_ERROR")).toBe(true);
    expect(inline.running.server.surfaces.exec.confirmedEarly).toBe(0);
  });
});

describe("order entry while the server shuts down", () => {
  it("REST order entry racing the shutdown: every input the Exchange ran is logged, and a closed driver refuses, changing nothing", async () => {
    let logged = 0;
    const log = {
      append(): void {
        logged++;
      },
      async close(): Promise<void> {},
    };
    const { running, frames } = await server(0, true, { log, drainMs: 0, count: 400 });
    const creates = frames.filter((frame) => frame.type === "createOrder");
    const base = running.urls.rest;
    let next = 0;
    let answered = 0;
    // Eight keep-alive clients posting one create after another until the server is gone.
    const clients = Array.from({ length: 8 }, async () => {
      for (;;) {
        const frame = creates[next++ % creates.length]!;
        try {
          const response = await fetch(`${base}/createOrder`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(frame.payload) });
          await response.text();
          answered++;
        } catch {
          return; // the connection was cut: the server is gone
        }
      }
    });
    while (answered < 40) await new Promise((resolve) => setTimeout(resolve, 5));
    await running.close();
    await Promise.all(clients);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(running.context.driver.inputsHandled).toBe(logged);
    // After close, an input is refused and changes nothing.
    const before = { handled: running.context.driver.inputsHandled, fingerprint: running.context.fingerprint() };
    const answer = running.context.driver.handle({ kind: "request", op: "createOrder", body: creates[0]!.payload });
    expect(answer).toEqual({ ok: false, error: { error: "SERVICE_DISABLED_ERROR", message: CLOSED_MESSAGE } });
    expect({ handled: running.context.driver.inputsHandled, fingerprint: running.context.fingerprint() }).toEqual(before);
    expect(logged).toBe(before.handled);
  });

  for (const earlyConfirm of [true, false]) {
    it(`logs every request the Exchange handles, none after the log closed (early confirm ${earlyConfirm ? "on" : "off"})`, async () => {
      let logged = 0;
      let closed = false;
      let handledAfterClose = 0;
      const log = {
        append(): void {
          if (closed) handledAfterClose++;
          else logged++;
        },
        async close(): Promise<void> {
          closed = true;
        },
      };
      const { running, frames } = await server(0, earlyConfirm, { log, drainMs: 0, count: 400 });
      // The first frames through the driver, so that both signers have tables (and later frames are checked early when on).
      for (const frame of frames.slice(0, 100)) running.context.driver.handle({ kind: "request", op: frame.type as never, body: frame.payload });
      expect(await until(() => bothSignersReady(), 10_000)).toBe(true);
      const socket = await connect(running.urls.exec);
      let answers = 0;
      const first = new Promise<void>((resolve) => socket.on("message", () => ++answers === 1 && resolve()));
      const raw = (socket as unknown as { _socket: { cork(): void; uncork(): void } })._socket;
      // Frames keep coming in small bursts while the server shuts down (after the first answer).
      const sending = (async () => {
        const rest = frames.slice(100);
        for (let i = 0; i < rest.length && socket.readyState === WebSocket.OPEN; i += 10) {
          raw.cork();
          for (const frame of rest.slice(i, i + 10)) socket.send(frame.text);
          raw.uncork();
          await new Promise((resolve) => setImmediate(resolve));
        }
      })();
      await first;
      await running.close();
      await sending;
      // Anything still on its way (a confirmer's answer, a frame ws had read) has had time to arrive.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(handledAfterClose).toBe(0);
      expect(running.context.driver.inputsHandled).toBe(logged);
      // The burst was cut short by the shutdown, not handled whole before it.
      expect(logged).toBeLessThan(setupInputs().length + frames.length);
    });
  }
});
