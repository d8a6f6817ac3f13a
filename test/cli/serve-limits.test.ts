/**
 * The per-source-IP and per-connection limits of `shadowbook serve` from the
 * command line: `--websockets-per-ip`, `--connections-per-ip` and
 * `--subscriptions-per-connection`, on the real command (bin/shadowbook.mjs
 * in a child process):
 *  - each bad value, and a connection limit below the WebSocket limit, is
 *    refused with its one-line message before anything binds or is written
 *    (the port given is in use and `--record` names a directory: the
 *    refusal is the flag's, not the port's, and no log appears); every case
 *    through `serve()` in-process (as serve-flags.test.ts does), two through
 *    the real command (a process each costs seconds);
 *  - over real sockets, a server started with small limits answers the 4th
 *    WebSocket 429, drops the 6th TCP connection unanswered and refuses the
 *    3rd channel of a /ws connection, where a server with the defaults
 *    admits each of them;
 *  - `serve --help` shows the defaults, which are the exported constants.
 * And the same rule through startLiveServer's options (checkPerIpLimits,
 * one source for the CLI and the server).
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { canBind, closeWebSocket, openWebSocket } from "../conformance/helpers/sockets.ts";
import { serve, type ServeOptions } from "../../src/cli/serve.ts";
import { millisToMicros } from "../../src/core/time.ts";
import { defaultExchangeConfig } from "../../src/exchange/config.ts";
import { startLiveServer } from "../../src/live/serve.ts";
import { checkPerIpLimits, CONNECTIONS_PER_IP_MAX, WEBSOCKETS_PER_IP_MAX } from "../../src/live/server.ts";
import { streamErrorSubscriptionLimit, SUBSCRIPTIONS_PER_CONNECTION_MAX } from "../../src/live/stream.ts";
import { DEFAULT_SIGNING_CONFIG } from "../../src/signing/domain.ts";
import { hasResponse, keepAliveGet, RawConnection, statusOf } from "../conformance/helpers/raw-http.ts";
import { StreamClient } from "../conformance/helpers/stream-client.ts";
import { spawnServe, type ServeProcess } from "../helpers/serve-process.ts";
import { shadowbook, type Ran } from "./shadowbook-process.ts";

const START_MS = 1_767_225_600_000;
const MANUAL = ["--port", "0", "--signer-threads", "0", "--clock", "manual", "--start", String(START_MS)];
const WEBSOCKETS = 3;
const CONNECTIONS = 5;
const SUBSCRIPTIONS = 2;

/**
 * Each socket test connects from its own source address where the machine
 * has them: the limits are per source IP, so one test's connections, still
 * closing on the server's side, never count against the next test's.
 */
const SEPARATE_SOURCES = (await canBind("127.0.0.2")) && (await canBind("127.0.0.3"));
const WEBSOCKET_SOURCE = SEPARATE_SOURCES ? "127.0.0.2" : "127.0.0.1";
const CONNECTION_SOURCE = SEPARATE_SOURCES ? "127.0.0.3" : "127.0.0.1";

/** A keep-alive connection that answered GET /health/live (and stays open), or "dropped" when closed unanswered. */
async function probe(port: number): Promise<RawConnection | "dropped"> {
  const connection = new RawConnection(port, { localAddress: CONNECTION_SOURCE });
  await connection.connected;
  connection.write(keepAliveGet("/health/live"));
  const text = await connection.until(hasResponse);
  if (!hasResponse(text)) return "dropped";
  expect(statusOf(text)).toBe(200);
  return connection;
}

/** Holds `count` admitted connections (each answered), then probes one more. */
async function holdThenProbe(port: number, count: number): Promise<"dropped" | "admitted"> {
  const held: RawConnection[] = [];
  try {
    for (let i = 0; i < count; i++) {
      const connection = await probe(port);
      expect(connection, `connection ${i + 1} of ${count}`).not.toBe("dropped");
      held.push(connection as RawConnection);
    }
    const next = await probe(port);
    if (next === "dropped") return "dropped";
    held.push(next);
    return "admitted";
  } finally {
    for (const connection of held) connection.socket.destroy();
    await Promise.all(held.map((connection) => connection.closed));
  }
}

const walletChannel = (i: number) => `/v2/wallet/0x${i.toString(16).padStart(40, "0")}/positions`;

// -- refusals --------------------------------------------------------------------------------

const CROSS = "every WebSocket is also a connection, so the WebSocket limit could never be reached";

/** Flags (as ServeOptions fields) and the refusal each gets. */
const REFUSALS: readonly (readonly [Partial<ServeOptions>, string])[] = [
  [{ websocketsPerIp: "0" }, '--websockets-per-ip "0" must be an integer of at least 1'],
  [{ websocketsPerIp: "-3" }, '--websockets-per-ip "-3" must be an integer of at least 1'],
  [{ websocketsPerIp: "2.5" }, '--websockets-per-ip "2.5" must be an integer of at least 1'],
  [{ connectionsPerIp: "0" }, '--connections-per-ip "0" must be an integer of at least 1'],
  [{ connectionsPerIp: "many" }, '--connections-per-ip "many" must be an integer of at least 1'],
  [{ connectionsPerIp: "99999999999999999" }, '--connections-per-ip "99999999999999999" must be an integer of at least 1'],
  [{ subscriptionsPerConnection: "0" }, '--subscriptions-per-connection "0" must be an integer of at least 1'],
  [{ subscriptionsPerConnection: "1e3" }, '--subscriptions-per-connection "1e3" must be an integer of at least 1'],
  // Below an explicit WebSocket limit, and a WebSocket limit above the default connection limit (1024). A connection
  // limit alone below the default WebSocket limit is accepted (it caps WebSockets too): see "accepts" below.
  [{ websocketsPerIp: "10", connectionsPerIp: "9" }, `--connections-per-ip "9" is below --websockets-per-ip "10": ${CROSS}`],
  [{ websocketsPerIp: "2000" }, `--connections-per-ip "1024" is below --websockets-per-ip "2000": ${CROSS}`],
];

/** The same refusals through the real command: the flags' spelling as commander maps it. */
const CLI_REFUSALS = [
  [["--subscriptions-per-connection", "0"], '--subscriptions-per-connection "0" must be an integer of at least 1'],
  [["--websockets-per-ip", "10", "--connections-per-ip", "9"], `--connections-per-ip "9" is below --websockets-per-ip "10": ${CROSS}`],
] as const;

let taken: Server;
let takenPort: number;
let directory: string;
let cliRefused: Ran[];
let help: Ran;
/** --websockets-per-ip 3 --connections-per-ip 5 --subscriptions-per-connection 2. */
let limited: ServeProcess;
/** The defaults. */
let plain: ServeProcess;

beforeAll(async () => {
  taken = createServer();
  await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
  takenPort = (taken.address() as { port: number }).port;
  directory = mkdtempSync(join(tmpdir(), "shadowbook-serve-limits-"));
  const refusals = Promise.all(
    CLI_REFUSALS.map(([flags], i) => shadowbook(["serve", "--port", String(takenPort), "--record", join(directory, `cli-${i}`), "--signer-threads", "0", ...flags])),
  );
  [cliRefused, help, limited, plain] = await Promise.all([
    refusals,
    shadowbook(["serve", "--help"]),
    spawnServe({ via: "bin", args: [...MANUAL, "--websockets-per-ip", String(WEBSOCKETS), "--connections-per-ip", String(CONNECTIONS), "--subscriptions-per-connection", String(SUBSCRIPTIONS)], readyTimeoutMs: 30_000 }),
    spawnServe({ via: "bin", args: MANUAL, readyTimeoutMs: 30_000 }),
  ]);
}, 40_000);

afterAll(async () => {
  for (const served of [limited, plain]) {
    if (served === undefined || served.child.exitCode !== null) continue;
    served.child.kill("SIGTERM");
    await Promise.race([served.exited, new Promise((resolve) => setTimeout(resolve, 5_000))]);
    if (served.child.exitCode === null) served.child.kill("SIGKILL");
  }
  taken?.close();
  if (directory !== undefined) rmSync(directory, { recursive: true, force: true });
}, 15_000);

describe("refusals", () => {
  const valid: ServeOptions = {
    port: "0",
    host: "127.0.0.1",
    seed: "1",
    clock: "manual",
    exchangeId: "1",
    signerThreads: "0",
    edgeLimit: "1000",
    slowConsumerBytes: "1048576",
    websocketsPerIp: String(WEBSOCKETS_PER_IP_MAX),
    connectionsPerIp: String(CONNECTIONS_PER_IP_MAX),
    subscriptionsPerConnection: String(SUBSCRIPTIONS_PER_CONNECTION_MAX),
  };

  it.each(REFUSALS.map(([flags, message], i) => [JSON.stringify(flags), message, flags, i] as const))("refuses %s before anything binds or is written", async (_name, message, flags, i) => {
    const record = join(directory, `serve-${i}`);
    // The port is in use: a check after the address check would be refused for the port instead.
    await expect(serve({ ...valid, ...flags, port: String(takenPort), record })).rejects.toMatchObject({ message });
    expect(existsSync(join(record, "inputs.arrow"))).toBe(false);
  });

  it("accepts a connection limit alone below the default WebSocket limit (it caps WebSockets too): only the busy port is refused", async () => {
    const { websocketsPerIp: _default, ...withoutWebsocketLimit } = valid;
    const record = join(directory, "serve-connections-alone");
    await expect(serve({ ...withoutWebsocketLimit, connectionsPerIp: "100", port: String(takenPort), record })).rejects.toThrow(/--port|address|in use/i);
    await expect(serve({ ...withoutWebsocketLimit, connectionsPerIp: "100", port: String(takenPort), record })).rejects.not.toThrow(/--websockets-per-ip/);
  });

  it.each(CLI_REFUSALS.map(([flags, message], i) => [flags.join(" "), message, i] as const))("`shadowbook serve %s` exits 1 with the one-line refusal, serving nothing", (_flags, message, i) => {
    const outcome = cliRefused[i]!;
    expect(outcome.status).toBe(1);
    expect(outcome.stderr.trim()).toBe(message);
    expect(outcome.stdout).toBe("");
    expect(existsSync(join(directory, `cli-${i}`, "inputs.arrow"))).toBe(false);
  });
});

describe("--help", () => {
  it("lists the three flags with the server's defaults", () => {
    expect(help.status).toBe(0);
    const text = help.stdout.replace(/\s+/g, " ");
    expect(text).toContain(`--websockets-per-ip <n> open WebSocket connections (/ws and /exec together) per source IP; an upgrade beyond it is answered HTTP 429 (default: "${WEBSOCKETS_PER_IP_MAX}")`);
    expect(text).toContain(`--connections-per-ip <n> open TCP connections per source IP, HTTP and WebSocket alike (at least --websockets-per-ip); one beyond it is closed unanswered (default: "${CONNECTIONS_PER_IP_MAX}")`);
    expect(text).toContain(`--subscriptions-per-connection <n> channels one streaming (/ws) connection may hold at once; a subscribe beyond it gets an error frame (default: "${SUBSCRIPTIONS_PER_CONNECTION_MAX}")`);
    expect([WEBSOCKETS_PER_IP_MAX, CONNECTIONS_PER_IP_MAX, SUBSCRIPTIONS_PER_CONNECTION_MAX]).toEqual([256, 1_024, 1_000]);
  });
});

describe("the limits over real sockets", () => {
  it(`--websockets-per-ip ${WEBSOCKETS}: the 4th WebSocket (/ws and /exec together) is answered 429; with the default it opens`, async () => {
    const sockets: WebSocket[] = [];
    try {
      for (const served of [limited, plain]) {
        for (const url of [served.stream, served.exec, served.stream]) {
          const outcome = await openWebSocket(url, WEBSOCKET_SOURCE);
          expect(outcome, url).toHaveProperty("socket");
          sockets.push((outcome as { socket: WebSocket }).socket);
        }
      }
      expect(await openWebSocket(limited.stream, WEBSOCKET_SOURCE)).toEqual({ status: 429, body: "" });
      expect(await openWebSocket(limited.exec, WEBSOCKET_SOURCE)).toEqual({ status: 429, body: "" });
      const fourth = await openWebSocket(plain.stream, WEBSOCKET_SOURCE);
      expect(fourth).toHaveProperty("socket");
      sockets.push((fourth as { socket: WebSocket }).socket);
    } finally {
      await Promise.all(sockets.map(closeWebSocket));
    }
  });

  it(`--connections-per-ip ${CONNECTIONS}: the 6th TCP connection is dropped unanswered; with the default it is served`, async () => {
    expect(await holdThenProbe(limited.port, CONNECTIONS)).toBe("dropped");
    expect(await holdThenProbe(plain.port, CONNECTIONS)).toBe("admitted");
  });

  it(`--subscriptions-per-connection ${SUBSCRIPTIONS}: the 3rd channel of a /ws connection gets the limit's error; with the default it is subscribed`, async () => {
    const [small, large] = await Promise.all([StreamClient.connect(limited.stream), StreamClient.connect(plain.stream)]);
    try {
      for (let i = 0; i < SUBSCRIPTIONS; i++) {
        expect((await small.subscribeAndWait(walletChannel(i))).type).toBe("subscribed");
        expect((await large.subscribeAndWait(walletChannel(i))).type).toBe("subscribed");
      }
      const beyond = walletChannel(SUBSCRIPTIONS);
      expect(await small.subscribeAndWait(beyond)).toEqual({ type: "error", message: streamErrorSubscriptionLimit(SUBSCRIPTIONS), channel: beyond });
      expect(streamErrorSubscriptionLimit(SUBSCRIPTIONS)).toBe("Subscription limit reached: at most 2 channels per connection");
      expect(await large.subscribeAndWait(beyond)).toEqual({ type: "subscribed", channel: beyond });
    } finally {
      await Promise.all([closeWebSocket(small.socket), closeWebSocket(large.socket)]);
    }
  });
});

describe("the same rules as startLiveServer options", () => {
  const start = (options: { websocketsPerIp?: number; connectionsPerIp?: number; subscriptionsPerConnection?: number }) =>
    startLiveServer({ config: defaultExchangeConfig(DEFAULT_SIGNING_CONFIG), seed: 1, port: 0, clock: "manual", startMicros: millisToMicros(START_MS), signerThreads: 0, ...options });

  it("refuses a connection limit below a given WebSocket limit, and a subscription limit that is not a positive integer", async () => {
    await expect(start({ websocketsPerIp: 10, connectionsPerIp: 9 })).rejects.toThrow(
      'connectionsPerIp "9" is below websocketsPerIp "10": every WebSocket is also a connection, so the WebSocket limit could never be reached',
    );
    await expect(start({ websocketsPerIp: CONNECTIONS_PER_IP_MAX + 1 })).rejects.toThrow(`connectionsPerIp "${CONNECTIONS_PER_IP_MAX}" is below websocketsPerIp "${CONNECTIONS_PER_IP_MAX + 1}"`);
    await expect(start({ subscriptionsPerConnection: 0 })).rejects.toThrow('subscriptionsPerConnection "0" is not a positive integer');
    await expect(start({ subscriptionsPerConnection: 1.5 })).rejects.toThrow('subscriptionsPerConnection "1.5" is not a positive integer');
  });

  it("admits equal limits, and one flag's names for the CLI", () => {
    expect(() => checkPerIpLimits(5, 5)).not.toThrow();
    expect(() => checkPerIpLimits(6, 5, { websocketsPerIp: "--w", connectionsPerIp: "--c" })).toThrow('--c "5" is below --w "6"');
  });
});
