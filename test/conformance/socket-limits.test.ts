/**
 * The server's own limits where the specification shows none (8.5: "Limits
 * on subscriptions or connections per client: not shown"), over real
 * sockets: open WebSocket connections per source IP (/ws and /exec
 * together; beyond it the upgrade is answered 429 with no body, and a closed
 * connection makes room), and channels per /ws connection (beyond it an
 * error envelope naming the channel; the connection stays open, a held
 * channel can be subscribed again, and an unsubscribe makes room).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { WebSocket } from "ws";
import { closeWebSocket, openWebSocket } from "./helpers/sockets.ts";
import { startLiveServer, type RunningServer } from "../../src/live/serve.ts";
import { STREAM_ERROR_SUBSCRIPTION_LIMIT, SUBSCRIPTIONS_PER_CONNECTION_MAX } from "../../src/live/stream.ts";
import { signedConfig, START_MICROS } from "./helpers/rest-world.ts";

const PER_IP = 3;
let running: RunningServer;

beforeAll(async () => {
  running = await startLiveServer({ config: signedConfig(), seed: 7, port: 0, clock: "manual", startMicros: START_MICROS, websocketsPerIp: PER_IP });
});

afterAll(async () => {
  await running.close();
});

/** A wallet channel of the i-th made-up address (wallet channels name any address). */
const walletChannel = (i: number) => `/v2/wallet/0x${i.toString(16).padStart(40, "0")}/positions`;

describe("WebSocket connections per source IP", () => {
  it("admits the limit across /ws and /exec, answers 429 beyond it, and admits again once one closed", async () => {
    const { stream, exec } = running.urls;
    const admitted = await Promise.all([openWebSocket(stream), openWebSocket(exec), openWebSocket(stream)]);
    const sockets = admitted.map((outcome) => {
      expect(outcome).toHaveProperty("socket");
      return (outcome as { socket: WebSocket }).socket;
    });
    expect(await openWebSocket(stream)).toEqual({ status: 429, body: "" });
    expect(await openWebSocket(exec)).toEqual({ status: 429, body: "" });
    // The open ones still work.
    sockets[0]!.send('{"type":"ping"}');
    expect(JSON.parse((await new Promise<Buffer>((resolve) => sockets[0]!.once("message", resolve))).toString())).toEqual({ type: "pong" });
    await closeWebSocket(sockets[1]!);
    // The server sees the close a moment after the client does.
    let again = await openWebSocket(exec);
    for (let tries = 0; "status" in again && tries < 50; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      again = await openWebSocket(exec);
    }
    expect(again).toHaveProperty("socket");
    await Promise.all([sockets[0]!, sockets[2]!, (again as { socket: WebSocket }).socket].map(closeWebSocket));
  });
});

describe("channels per /ws connection", () => {
  let socket: WebSocket;
  const frames: Record<string, unknown>[] = [];

  beforeAll(async () => {
    let outcome = await openWebSocket(running.urls.stream);
    for (let tries = 0; "status" in outcome && tries < 50; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      outcome = await openWebSocket(running.urls.stream);
    }
    socket = (outcome as { socket: WebSocket }).socket;
    socket.on("message", (data: Buffer) => frames.push(JSON.parse(data.toString()) as Record<string, unknown>));
  });

  afterAll(async () => {
    await closeWebSocket(socket);
  });

  /** Sends a frame and waits for the answer that ends `count` frames from now. */
  async function answers(sent: readonly object[]): Promise<Record<string, unknown>[]> {
    const from = frames.length;
    for (const frame of sent) socket.send(JSON.stringify(frame));
    for (let waited = 0; frames.length < from + sent.length; waited += 10) {
      if (waited > 10_000) throw new Error(`${frames.length - from} of ${sent.length} answers`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    return frames.slice(from, from + sent.length);
  }

  it("subscribes up to the limit, then answers an error naming the channel; a held channel and an unsubscribe still work", async () => {
    const subscribes = Array.from({ length: SUBSCRIPTIONS_PER_CONNECTION_MAX }, (_, i) => ({ type: "subscribe", channel: walletChannel(i) }));
    const subscribed = await answers(subscribes);
    expect(subscribed.every((frame, i) => frame["type"] === "subscribed" && frame["channel"] === walletChannel(i))).toBe(true);

    const beyond = walletChannel(SUBSCRIPTIONS_PER_CONNECTION_MAX);
    expect(await answers([{ type: "subscribe", channel: beyond }])).toEqual([{ type: "error", message: STREAM_ERROR_SUBSCRIPTION_LIMIT, channel: beyond }]);
    expect(STREAM_ERROR_SUBSCRIPTION_LIMIT).toContain(String(SUBSCRIPTIONS_PER_CONNECTION_MAX));
    // A channel already held is not a new one: subscribing again answers subscribed.
    expect(await answers([{ type: "subscribe", channel: walletChannel(7) }])).toEqual([{ type: "subscribed", channel: walletChannel(7) }]);
    // The connection stays open; an unsubscribe makes room for exactly one more.
    expect(await answers([{ type: "unsubscribe", channel: walletChannel(0) }, { type: "subscribe", channel: beyond }, { type: "subscribe", channel: walletChannel(0) }])).toEqual([
      { type: "unsubscribed", channel: walletChannel(0) },
      { type: "subscribed", channel: beyond },
      { type: "error", message: STREAM_ERROR_SUBSCRIPTION_LIMIT, channel: walletChannel(0) },
    ]);
  });
});
