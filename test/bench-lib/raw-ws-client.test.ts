/**
 * The live benchmark's raw WebSocket client (test/bench/lib/raw-ws-client.ts)
 * against the `ws` library: the frames it builds are byte for byte what
 * ws's Sender builds with the same masking key and are read by a ws server;
 * it reads ws's server frames whatever the chunking (several per chunk, a
 * frame split anywhere, fragmented messages with a ping between the
 * fragments); it answers pings and the closing handshake. (test/bench/ is
 * left out of vitest's run: this lives beside it.)
 */
import fc from "fast-check";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import * as wsModule from "ws";
import { WebSocketServer, type WebSocket } from "ws";
import {
  buildClientFrames,
  clientFrame,
  OPCODE_BINARY,
  OPCODE_CONTINUATION,
  OPCODE_PING,
  OPCODE_PONG,
  OPCODE_TEXT,
  openRawWs,
  WsFrameReader,
  type RawWsClient,
} from "../bench/lib/raw-ws-client.ts";

/** ws's frame builder (exported by the package, not declared by @types/ws). */
interface FrameOptions {
  fin: boolean;
  opcode: number;
  mask: boolean;
  readOnly: boolean;
  rsv1: boolean;
  generateMask?: (mask: Buffer) => void;
  maskBuffer?: Buffer;
}
const Sender = (wsModule as unknown as { Sender: { frame(data: Buffer | string, options: FrameOptions): Buffer[] } }).Sender;

function wsFrame(data: Buffer | string, opcode: number, fin = true, maskKey?: Buffer): Buffer {
  const options: FrameOptions = { fin, opcode, mask: maskKey !== undefined, readOnly: false, rsv1: false };
  if (maskKey !== undefined) {
    options.maskBuffer = Buffer.alloc(4);
    options.generateMask = (mask) => maskKey.copy(mask);
  }
  return Buffer.concat(Sender.frame(typeof data === "string" ? Buffer.from(data) : Buffer.from(data), options));
}

/** Texts at every length boundary of the frame header (7-bit, 16-bit, 64-bit lengths), and multi-byte UTF-8. */
const TEXTS = ["", "a", "x".repeat(125), "y".repeat(126), "z".repeat(127), "é€𝄞 ok", "w".repeat(65535), "v".repeat(65536), "u".repeat(70001), '{"type":"createOrder","id":"17"}'];

interface Read {
  messages: { text: string; opcode: number }[];
  pings: string[];
  closes: { payload: Buffer; error: string | undefined }[];
}

function reader(): { read: Read; reader: WsFrameReader } {
  const read: Read = { messages: [], pings: [], closes: [] };
  return {
    read,
    reader: new WsFrameReader({
      message: (payload, opcode) => read.messages.push({ text: payload.toString(), opcode }),
      ping: (payload) => read.pings.push(payload.toString()),
      close: (payload, error) => read.closes.push({ payload: Buffer.from(payload), error }),
    }),
  };
}

/** `bytes` cut at `cuts` (positions, any order, repeats allowed). */
function split(bytes: Buffer, cuts: number[]): Buffer[] {
  const at = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const chunks: Buffer[] = [];
  let from = 0;
  for (const cut of at) {
    chunks.push(bytes.subarray(from, cut));
    from = cut;
  }
  chunks.push(bytes.subarray(from));
  // A chunk is the socket's: copies, so that a reader keeping a slice past push() would be caught by the reuse below.
  return chunks.filter((c) => c.length > 0).map((c) => Buffer.from(c));
}

function feed(r: WsFrameReader, chunks: Buffer[]): void {
  for (const chunk of chunks) {
    r.push(chunk);
    chunk.fill(0xee); // the socket may reuse a chunk's memory once 'data' returns
  }
}

const servers: { close(): void }[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.close();
});

async function wsServer(onConnection: (socket: WebSocket) => void): Promise<string> {
  const wss = new WebSocketServer({ host: "127.0.0.1", port: 0 });
  wss.on("connection", onConnection);
  await new Promise<void>((resolve) => wss.once("listening", () => resolve()));
  servers.push({ close: () => { for (const c of wss.clients) c.terminate(); wss.close(); } });
  return `ws://127.0.0.1:${(wss.address() as AddressInfo).port}/exec?x=1`;
}

function until(check: () => boolean, timeoutMs = 5_000): Promise<void> {
  const start = Date.now();
  return new Promise((resolve, reject) => {
    const poll = (): void => {
      if (check()) resolve();
      else if (Date.now() - start > timeoutMs) reject(new Error("timed out"));
      else setTimeout(poll, 5);
    };
    poll();
  });
}

describe("buildClientFrames", () => {
  it("builds, frame for frame, the bytes ws's Sender builds with the same masking key", () => {
    const { bytes, offsets } = buildClientFrames(TEXTS);
    expect(offsets.length).toBe(TEXTS.length + 1);
    expect(offsets[TEXTS.length]).toBe(bytes.length);
    TEXTS.forEach((text, i) => {
      const frame = bytes.subarray(offsets[i]!, offsets[i + 1]!);
      const length = Buffer.byteLength(text);
      const keyAt = length < 126 ? 2 : length < 65536 ? 4 : 10;
      const key = Buffer.from(frame.subarray(keyAt, keyAt + 4));
      expect(frame[1]! & 0x80).toBe(0x80); // masked
      expect(frame.equals(wsFrame(text, OPCODE_TEXT, true, key))).toBe(true);
    });
  });

  it("masks every frame with a key of its own", () => {
    const texts = Array.from({ length: 200 }, () => "same text");
    const { bytes, offsets } = buildClientFrames(texts);
    const keys = new Set(texts.map((_, i) => bytes.readUInt32BE(offsets[i]! + 2)));
    expect(keys.size).toBeGreaterThan(190);
    expect(buildClientFrames(["same text"]).bytes.equals(buildClientFrames(["same text"]).bytes)).toBe(false);
  });

  it("builds control frames ws reads: a pong with its payload", () => {
    const key = Buffer.from([1, 2, 3, 4]);
    const pong = clientFrame(OPCODE_PONG, Buffer.from("hb-7"));
    expect(pong.equals(wsFrame("hb-7", OPCODE_PONG, true, Buffer.from(pong.subarray(2, 6))))).toBe(true);
    expect(wsFrame("hb-7", OPCODE_PONG, true, key).equals(pong)).toBe(false); // a random key, not a fixed one
  });
});

describe("WsFrameReader", () => {
  it("reads several frames in one chunk, in order, with their opcodes", () => {
    const { read, reader: r } = reader();
    feed(r, [Buffer.concat([wsFrame("one", OPCODE_TEXT), wsFrame("two", OPCODE_TEXT), wsFrame(Buffer.from([1, 2]), OPCODE_BINARY), wsFrame("p", OPCODE_PING), wsFrame("three", OPCODE_TEXT)])]);
    expect(read.messages).toEqual([
      { text: "one", opcode: OPCODE_TEXT },
      { text: "two", opcode: OPCODE_TEXT },
      { text: "\u0001\u0002", opcode: OPCODE_BINARY },
      { text: "three", opcode: OPCODE_TEXT },
    ]);
    expect(read.pings).toEqual(["p"]);
    expect(read.closes).toEqual([]);
  });

  it("reads ws's frames of every header size cut at every byte boundary of the header and around the payload", () => {
    for (const text of ["x".repeat(125), "y".repeat(300), "v".repeat(65536)]) {
      const stream = Buffer.concat([wsFrame("a", OPCODE_TEXT), wsFrame(text, OPCODE_TEXT), wsFrame("b", OPCODE_TEXT)]);
      for (let cut = 1; cut < 3 + 16; cut++) {
        const { read, reader: r } = reader();
        feed(r, split(stream, [cut, cut + 1, stream.length - 2]));
        expect(read.messages.map((m) => m.text)).toEqual(["a", text, "b"]);
      }
      const { read, reader: r } = reader();
      feed(r, split(stream, Array.from({ length: stream.length }, (_, i) => i))); // one byte at a time
      expect(read.messages.map((m) => m.text)).toEqual(["a", text, "b"]);
    }
  });

  it("reads any sequence of ws's frames, fragmented messages and pings included, however the stream is cut", () => {
    const piece = fc.oneof(
      { weight: 6, arbitrary: fc.string({ unit: "grapheme", maxLength: 200 }).map((text) => ({ kind: "text" as const, parts: [text] })) },
      { weight: 1, arbitrary: fc.integer({ min: 120, max: 70_000 }).map((n) => ({ kind: "text" as const, parts: ["q".repeat(n)] })) },
      { weight: 2, arbitrary: fc.array(fc.string({ maxLength: 50 }), { minLength: 2, maxLength: 4 }).map((parts) => ({ kind: "text" as const, parts })) },
      { weight: 2, arbitrary: fc.string({ maxLength: 125 }).filter((s) => Buffer.byteLength(s) <= 125).map((text) => ({ kind: "ping" as const, parts: [text] })) },
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 12 }), fc.array(fc.nat(), { maxLength: 20 }), (pieces, cuts) => {
        const frames: Buffer[] = [];
        const expected: string[] = [];
        const pings: string[] = [];
        for (const p of pieces) {
          if (p.kind === "ping") {
            frames.push(wsFrame(p.parts[0]!, OPCODE_PING));
            pings.push(p.parts[0]!);
          } else if (p.parts.length === 1) {
            frames.push(wsFrame(p.parts[0]!, OPCODE_TEXT));
            expected.push(p.parts[0]!);
          } else {
            p.parts.forEach((part, i) => {
              frames.push(wsFrame(part, i === 0 ? OPCODE_TEXT : OPCODE_CONTINUATION, i === p.parts.length - 1));
              if (i === 0) {
                frames.push(wsFrame("mid", OPCODE_PING)); // a control frame between fragments
                pings.push("mid");
              }
            });
            expected.push(p.parts.join(""));
          }
        }
        const stream = Buffer.concat(frames);
        const { read, reader: r } = reader();
        feed(r, split(stream, cuts));
        expect(read.messages.map((m) => m.text)).toEqual(expected);
        expect(read.pings).toEqual(pings);
        expect(read.closes).toEqual([]);
      }),
      { seed: 42, numRuns: 300 },
    );
  });

  it("ends at a close frame and reads nothing after it", () => {
    const { read, reader: r } = reader();
    const close = Buffer.concat(Sender.frame(Buffer.from([0x03, 0xe8, 0x62, 0x79, 0x65]), { fin: true, opcode: 0x8, mask: false, readOnly: false, rsv1: false }));
    feed(r, split(Buffer.concat([wsFrame("before", OPCODE_TEXT), close, wsFrame("after", OPCODE_TEXT)]), [9, 10]));
    expect(read.messages.map((m) => m.text)).toEqual(["before"]);
    expect(read.closes).toHaveLength(1);
    expect(read.closes[0]!.payload.readUInt16BE(0)).toBe(1000);
    expect(read.closes[0]!.error).toBeUndefined();
    expect(r.closed).toBe(true);
  });

  it("ends on a protocol error: a masked server frame, RSV bits, a reserved opcode, a stray continuation", () => {
    const masked = wsFrame("m", OPCODE_TEXT, true, Buffer.from([9, 9, 9, 9]));
    const rsv = wsFrame("r", OPCODE_TEXT);
    rsv[0]! |= 0x40;
    const reserved = wsFrame("o", 0x3);
    const stray = wsFrame("c", OPCODE_CONTINUATION);
    for (const bad of [masked, rsv, reserved, stray]) {
      const { read, reader: r } = reader();
      feed(r, [Buffer.concat([wsFrame("ok", OPCODE_TEXT), bad, wsFrame("never", OPCODE_TEXT)])]);
      expect(read.messages.map((m) => m.text)).toEqual(["ok"]);
      expect(read.closes).toHaveLength(1);
      expect(read.closes[0]!.error).toMatch(/./);
    }
  });
});

describe("openRawWs against a ws server", () => {
  it("sends built frames, in writes cut anywhere, that the server reads as the texts", async () => {
    const received: { text: string; isBinary: boolean }[] = [];
    const url = await wsServer((socket) => socket.on("message", (data, isBinary) => received.push({ text: String(data), isBinary })));
    const client = await openRawWs(url);
    const { bytes } = buildClientFrames(TEXTS);
    for (const chunk of split(bytes, [1, 5, 200, 70_000, 70_003, 140_000])) client.write(chunk);
    await until(() => received.length === TEXTS.length);
    expect(received).toEqual(TEXTS.map((text) => ({ text, isBinary: false })));
    client.terminate();
  });

  it("reads the server's messages, answers its ping with the same payload, and completes its closing handshake", async () => {
    let serverSocket: WebSocket | undefined;
    const pongs: string[] = [];
    let serverClose: number | undefined;
    const url = await wsServer((socket) => {
      serverSocket = socket;
      socket.on("pong", (data) => pongs.push(String(data)));
      socket.on("close", (code) => (serverClose = code));
    });
    const client: RawWsClient = await openRawWs(url);
    const messages: string[] = [];
    let chunkEnds = 0;
    let closed = 0;
    client.handler = { message: (payload) => messages.push(payload.toString()), chunkEnd: () => chunkEnds++, closed: () => closed++ };
    await until(() => serverSocket !== undefined);
    const sent = ["small", "m".repeat(126), "l".repeat(100_000), '{"type":"createOrder","id":"3","ok":true}'];
    for (const text of sent) serverSocket!.send(text);
    serverSocket!.ping("are-you-there");
    await until(() => messages.length === sent.length && pongs.length === 1);
    expect(messages).toEqual(sent);
    expect(pongs).toEqual(["are-you-there"]);
    expect(chunkEnds).toBeGreaterThan(0);
    serverSocket!.close(1000, "bye");
    await until(() => closed === 1 && serverClose !== undefined);
    expect(serverClose).toBe(1000); // the server's close was answered, not cut (1006)
    expect(client.closed).toBe(true);
  });

  it("rejects a server that does not switch protocols", async () => {
    const http = createServer((_req, res) => res.writeHead(404).end());
    await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", () => resolve()));
    servers.push({ close: () => http.close() });
    await expect(openRawWs(`ws://127.0.0.1:${(http.address() as AddressInfo).port}/`)).rejects.toThrow(/404/);
  });
});
