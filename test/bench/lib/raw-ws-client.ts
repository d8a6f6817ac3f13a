/**
 * A lean WebSocket client for the live benchmark's load generator
 * (test/bench/live.ts): the generator shares the machine's two cores with
 * the server it measures, so every microsecond it spends per request is
 * taken from the server. The `ws` client costs ~25-45 us of CPU per
 * request there (a frame header and a fresh random mask per send, the
 * Receiver stream, a 'message' event and a Buffer per answer); this client
 * does the same protocol with almost nothing per request:
 *
 * - The opening handshake is the one `ws` does (node:http's Upgrade
 *   request, the same headers, no extensions offered: permessage-deflate
 *   off; the Sec-WebSocket-Accept digest checked), and TCP_NODELAY is set
 *   on the socket as `ws` sets it.
 * - Frames are built before they are sent, all at once (buildClientFrames):
 *   text frames, FIN set, masked with a key of their own from
 *   crypto.randomBytes (RFC 6455 5.3: a client masks every frame with a
 *   fresh unpredictable key), laid end to end in one Buffer, so that the
 *   frames due together go out as one write of a slice of it: the same
 *   bytes `ws` would send, without any work per send.
 * - Server frames are parsed from the socket's 'data' chunks
 *   (WsFrameReader): several frames in a chunk and a frame split over
 *   chunks alike; a message's payload is handed over as a slice of the
 *   chunk when it lies within one (no copy). Fragmented messages are
 *   joined; a ping is answered with a pong carrying its payload; a pong is
 *   ignored; a close frame is answered with a close frame and ends the
 *   connection; anything that breaks the protocol (a masked server frame,
 *   RSV bits, an unknown opcode) ends it too.
 */
import { createHash, randomBytes } from "node:crypto";
import { request } from "node:http";
import { connect, type NetConnectOpts, type Socket } from "node:net";

const GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";

export const OPCODE_CONTINUATION = 0x0;
export const OPCODE_TEXT = 0x1;
export const OPCODE_BINARY = 0x2;
export const OPCODE_CLOSE = 0x8;
export const OPCODE_PING = 0x9;
export const OPCODE_PONG = 0xa;

/** Frames laid end to end: frame i is bytes[offsets[i], offsets[i + 1]). */
export interface ClientFrames {
  bytes: Buffer;
  /** One more than there are frames. */
  offsets: Uint32Array;
}

function headerBytes(payloadBytes: number, masked: boolean): number {
  return (payloadBytes < 126 ? 2 : payloadBytes < 65536 ? 4 : 10) + (masked ? 4 : 0);
}

/**
 * Writes one frame at `at` of `out` (FIN set, `opcode`, masked with the 4
 * bytes of `key` at `keyAt` when `key` is given) and returns where it ends.
 * The payload is `out[at + header, end)` already: it is masked in place.
 */
function writeFrameHeaderAndMask(out: Buffer, at: number, opcode: number, payloadBytes: number, key: Buffer | undefined, keyAt: number): number {
  out[at] = 0x80 | opcode;
  const maskBit = key === undefined ? 0 : 0x80;
  let p = at + 2;
  if (payloadBytes < 126) out[at + 1] = maskBit | payloadBytes;
  else if (payloadBytes < 65536) {
    out[at + 1] = maskBit | 126;
    out.writeUInt16BE(payloadBytes, p);
    p += 2;
  } else {
    out[at + 1] = maskBit | 127;
    out.writeUInt32BE(Math.floor(payloadBytes / 2 ** 32), p);
    out.writeUInt32BE(payloadBytes >>> 0, p + 4);
    p += 8;
  }
  if (key !== undefined) {
    const k0 = key[keyAt]!, k1 = key[keyAt + 1]!, k2 = key[keyAt + 2]!, k3 = key[keyAt + 3]!;
    out[p] = k0;
    out[p + 1] = k1;
    out[p + 2] = k2;
    out[p + 3] = k3;
    p += 4;
    const end = p + payloadBytes;
    let i = p;
    for (; i + 3 < end; i += 4) {
      out[i] = out[i]! ^ k0;
      out[i + 1] = out[i + 1]! ^ k1;
      out[i + 2] = out[i + 2]! ^ k2;
      out[i + 3] = out[i + 3]! ^ k3;
    }
    for (let j = 0; i < end; i++, j++) out[i] = out[i]! ^ (j === 0 ? k0 : j === 1 ? k1 : k2);
  }
  return p + payloadBytes;
}

/**
 * Client frames (masked, FIN set) of `texts`, end to end in one Buffer,
 * each with its own masking key from crypto.randomBytes.
 */
export function buildClientFrames(texts: readonly string[], opcode = OPCODE_TEXT): ClientFrames {
  const lengths = new Uint32Array(texts.length);
  let total = 0;
  for (let i = 0; i < texts.length; i++) {
    const bytes = Buffer.byteLength(texts[i]!, "utf8");
    lengths[i] = bytes;
    total += headerBytes(bytes, true) + bytes;
  }
  if (total > 2 ** 32 - 1) throw new RangeError(`frames of ${total} bytes do not fit one buffer's 32-bit offsets`);
  const bytes = Buffer.allocUnsafe(total);
  const offsets = new Uint32Array(texts.length + 1);
  const keys = randomBytes(4 * texts.length);
  let at = 0;
  for (let i = 0; i < texts.length; i++) {
    offsets[i] = at;
    const payloadAt = at + headerBytes(lengths[i]!, true);
    bytes.write(texts[i]!, payloadAt, "utf8");
    at = writeFrameHeaderAndMask(bytes, at, opcode, lengths[i]!, keys, 4 * i);
  }
  offsets[texts.length] = at;
  return { bytes, offsets };
}

/** One masked client frame of `payload` (control frames: a pong, a close). */
export function clientFrame(opcode: number, payload: Buffer): Buffer {
  const frame = Buffer.allocUnsafe(headerBytes(payload.length, true) + payload.length);
  payload.copy(frame, frame.length - payload.length);
  writeFrameHeaderAndMask(frame, 0, opcode, payload.length, randomBytes(4), 0);
  return frame;
}

/** What a WsFrameReader hands over. */
export interface WsFrameEvents {
  /** A whole text or binary message: a slice of the chunk when it lay within one (valid only during the call). */
  message(payload: Buffer, opcode: number): void;
  /** A ping: answer it with a pong carrying `payload`. */
  ping(payload: Buffer): void;
  /** A close frame (`payload`: its status code and reason), or a protocol error: nothing after it is read. */
  close(payload: Buffer, error?: string): void;
}

/**
 * Parses server frames (unmasked) from a byte stream fed chunk by chunk.
 * A chunk's complete frames are read in place; an incomplete tail is kept
 * (with the chunks after it, joined only once enough bytes are there to
 * read past it) and read when the rest arrives.
 */
export class WsFrameReader {
  private readonly events: WsFrameEvents;
  private readonly maxMessageBytes: number;
  /** Bytes of an incomplete frame, waiting for more. */
  private held: Buffer[] = [];
  private heldBytes = 0;
  /** How many bytes must be held before reading again is worth it. */
  private neededBytes = 0;
  /** Fragments of a message not yet finished (FIN unset). */
  private fragments: Buffer[] = [];
  private fragmentBytes = 0;
  private fragmentOpcode = -1;
  private ended = false;

  constructor(events: WsFrameEvents, maxMessageBytes = 64 * 1024 * 1024) {
    this.events = events;
    this.maxMessageBytes = maxMessageBytes;
  }

  /** Whether a close frame or a protocol error ended the stream. */
  get closed(): boolean {
    return this.ended;
  }

  push(chunk: Buffer): void {
    if (this.ended) return;
    let data = chunk;
    if (this.heldBytes > 0) {
      this.held.push(Buffer.from(chunk)); // kept past this call: a copy (the chunk is the socket's)
      this.heldBytes += chunk.length;
      if (this.heldBytes < this.neededBytes) return;
      data = Buffer.concat(this.held, this.heldBytes);
      this.held = [];
      this.heldBytes = 0;
    }
    let at = 0;
    const length = data.length;
    while (at < length && !this.ended) {
      if (length - at < 2) {
        this.hold(data, at, 2);
        return;
      }
      const b0 = data[at]!;
      const b1 = data[at + 1]!;
      let payloadBytes = b1 & 0x7f;
      let header = 2;
      if (payloadBytes === 126) header = 4;
      else if (payloadBytes === 127) header = 10;
      if (length - at < header) {
        this.hold(data, at, header);
        return;
      }
      if (header === 4) payloadBytes = data.readUInt16BE(at + 2);
      else if (header === 10) {
        const high = data.readUInt32BE(at + 2);
        if (high > 0x1fffff) return this.fail("a frame's 64-bit length is over 2^53");
        payloadBytes = high * 2 ** 32 + data.readUInt32BE(at + 6);
      }
      if ((b0 & 0x70) !== 0) return this.fail("RSV bits are set (no extension was negotiated)");
      if ((b1 & 0x80) !== 0) return this.fail("a server frame is masked");
      if (payloadBytes > this.maxMessageBytes) return this.fail(`a frame of ${payloadBytes} bytes is over ${this.maxMessageBytes}`);
      const end = at + header + payloadBytes;
      if (end > length) {
        this.hold(data, at, header + payloadBytes);
        return;
      }
      this.frame((b0 & 0x80) !== 0, b0 & 0x0f, data.subarray(at + header, end));
      at = end;
    }
  }

  private hold(data: Buffer, at: number, neededBytes: number): void {
    const rest = data.subarray(at);
    // A slice of a chunk the reader will hold past this call: copy it, the chunk is the socket's.
    this.held = [Buffer.from(rest)];
    this.heldBytes = rest.length;
    this.neededBytes = neededBytes;
  }

  private frame(fin: boolean, opcode: number, payload: Buffer): void {
    if (opcode >= 0x8) {
      if (!fin || payload.length > 125) return this.fail("a control frame is fragmented or over 125 bytes");
      if (opcode === OPCODE_PING) this.events.ping(payload);
      else if (opcode === OPCODE_CLOSE) {
        this.ended = true;
        this.events.close(payload);
      } else if (opcode !== OPCODE_PONG) this.fail(`opcode ${opcode} is reserved`);
      return;
    }
    if (opcode === OPCODE_CONTINUATION) {
      if (this.fragmentOpcode < 0) return this.fail("a continuation frame starts no message");
    } else if (opcode === OPCODE_TEXT || opcode === OPCODE_BINARY) {
      if (this.fragmentOpcode >= 0) return this.fail("a new message starts inside a fragmented one");
      if (fin) return this.events.message(payload, opcode);
      this.fragmentOpcode = opcode;
    } else return this.fail(`opcode ${opcode} is reserved`);
    this.fragmentBytes += payload.length;
    if (this.fragmentBytes > this.maxMessageBytes) return this.fail(`a message of over ${this.maxMessageBytes} bytes`);
    this.fragments.push(Buffer.from(payload));
    if (!fin) return;
    const message = Buffer.concat(this.fragments, this.fragmentBytes);
    const messageOpcode = this.fragmentOpcode;
    this.fragments = [];
    this.fragmentBytes = 0;
    this.fragmentOpcode = -1;
    this.events.message(message, messageOpcode);
  }

  private fail(reason: string): void {
    this.ended = true;
    this.held = [];
    this.heldBytes = 0;
    this.events.close(Buffer.alloc(0), reason);
  }
}

/** What a RawWsClient's owner handles; set with `client.handler = ...` (it may change between phases). */
export interface RawWsHandler {
  /** A whole text or binary message (its payload valid only during the call). */
  message(payload: Buffer, opcode: number): void;
  /** After the messages of one 'data' chunk: the moment to write what they made due, in one write. */
  chunkEnd(): void;
  /** The connection ended (a close frame, a protocol error, the socket closed). Called once. */
  closed(): void;
}

const IDLE: RawWsHandler = { message: () => undefined, chunkEnd: () => undefined, closed: () => undefined };

/** A WebSocket client connection over a raw TCP socket; see the module comment. */
export class RawWsClient {
  handler: RawWsHandler = IDLE;
  private readonly socket: Socket;
  private readonly reader: WsFrameReader;
  private isClosed = false;

  /** Takes over `socket` after a completed handshake; `head`: bytes the server sent after its 101 response. */
  constructor(socket: Socket, head: Buffer) {
    this.socket = socket;
    socket.setTimeout(0);
    socket.setNoDelay(true);
    this.reader = new WsFrameReader({
      message: (payload, opcode) => this.handler.message(payload, opcode),
      ping: (payload) => this.write(clientFrame(OPCODE_PONG, payload)),
      close: (payload, error) => {
        if (error === undefined && !socket.destroyed) {
          // The closing handshake (RFC 6455 5.5.1): echo the status code, then end.
          socket.end(clientFrame(OPCODE_CLOSE, payload.subarray(0, Math.min(payload.length, 2))));
        } else socket.destroy();
        this.end();
      },
    });
    socket.on("data", (chunk: Buffer) => {
      this.reader.push(chunk);
      if (!this.isClosed) this.handler.chunkEnd();
    });
    socket.on("error", () => undefined);
    socket.once("close", () => this.end());
    if (head.length > 0) {
      // The socket's first chunk, read with the 101 response (not emitted as 'data').
      process.nextTick(() => {
        this.reader.push(head);
        if (!this.isClosed) this.handler.chunkEnd();
      });
    }
  }

  get closed(): boolean {
    return this.isClosed;
  }

  /** Writes `bytes` (already framed and masked: a slice of buildClientFrames' buffer). */
  write(bytes: Buffer): void {
    if (!this.isClosed) this.socket.write(bytes);
  }

  /** Closes the connection at once (no closing handshake), as ws's terminate(). */
  terminate(): void {
    this.socket.destroy();
    this.end();
  }

  private end(): void {
    if (this.isClosed) return;
    this.isClosed = true;
    this.handler.closed();
  }
}

/**
 * Opens a WebSocket connection to `url` (ws:// only) with the handshake
 * `ws` does, no extensions offered; rejects on anything but a 101 with the
 * right Sec-WebSocket-Accept.
 */
export function openRawWs(url: string, handshakeTimeoutMs = 10_000): Promise<RawWsClient> {
  const parsed = new URL(url);
  if (parsed.protocol !== "ws:") return Promise.reject(new Error(`url "${url}" must be ws:// (the raw client has no TLS)`));
  const key = randomBytes(16).toString("base64");
  const expected = createHash("sha1").update(key + GUID).digest("base64");
  return new Promise((resolve, reject) => {
    const req = request({
      host: parsed.hostname.startsWith("[") ? parsed.hostname.slice(1, -1) : parsed.hostname,
      port: parsed.port === "" ? 80 : Number(parsed.port),
      path: parsed.pathname + parsed.search,
      // As `ws` connects: a socket of its own, no agent.
      createConnection: (options) => connect(options as unknown as NetConnectOpts),
      timeout: handshakeTimeoutMs,
      headers: {
        "Sec-WebSocket-Version": "13",
        "Sec-WebSocket-Key": key,
        Connection: "Upgrade",
        Upgrade: "websocket",
      },
    });
    req.once("timeout", () => req.destroy(new Error(`the handshake with ${url} took over ${handshakeTimeoutMs} ms`)));
    req.once("error", reject);
    req.once("response", (res) => {
      req.destroy(new Error(`the server answered the handshake with ${res.statusCode}, not 101`));
      res.resume();
    });
    req.once("upgrade", (res, socket: Socket, head: Buffer) => {
      const upgrade = res.headers["upgrade"];
      if (typeof upgrade !== "string" || upgrade.toLowerCase() !== "websocket") {
        socket.destroy();
        return reject(new Error(`the handshake's Upgrade header "${String(upgrade)}" is not websocket`));
      }
      if (res.headers["sec-websocket-accept"] !== expected) {
        socket.destroy();
        return reject(new Error(`the handshake's Sec-WebSocket-Accept "${String(res.headers["sec-websocket-accept"])}" is not "${expected}"`));
      }
      if (res.headers["sec-websocket-extensions"] !== undefined) {
        socket.destroy();
        return reject(new Error(`the server accepted extensions "${res.headers["sec-websocket-extensions"]}" none of which were offered`));
      }
      resolve(new RawWsClient(socket, head));
    });
    req.end();
  });
}
