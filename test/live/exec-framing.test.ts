import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseExecFrame } from "../../src/live/exec-framing.ts";

const none = new Set<string>();

describe("parseExecFrame", () => {
  it("accepts the five operations with their payload and ping with or without id", () => {
    expect(parseExecFrame('{"type":"cancelAll","id":"7","payload":{"accountId":1}}', none)).toEqual({
      kind: "request", type: "cancelAll", id: "7", payload: { accountId: 1 },
    });
    expect(parseExecFrame('{"type":"ping","id":"p1"}', none)).toEqual({ kind: "ping", id: "p1" });
    expect(parseExecFrame('{"type":"ping"}', none)).toEqual({ kind: "ping" });
  });

  it("answers malformed frames with MALFORMED_JSON, with the id only when the frame had one", () => {
    expect(parseExecFrame("{not json", none)).toMatchObject({ kind: "error", code: "MALFORMED_JSON" });
    expect(parseExecFrame("[1,2]", none)).toMatchObject({ code: "MALFORMED_JSON" });
    expect(parseExecFrame('{"type":"createOrder"}', none)).not.toHaveProperty("id");
    expect(parseExecFrame('{"id":"9"}', none)).toMatchObject({ code: "MALFORMED_JSON", id: "9" });
    expect(parseExecFrame('{"type":"createOrder","id":9}', none)).toMatchObject({ code: "MALFORMED_JSON" });
  });

  it("answers unknown types, a client pong included, with UNKNOWN_TYPE", () => {
    expect(parseExecFrame('{"type":"pong","id":"1"}', none)).toMatchObject({ code: "UNKNOWN_TYPE", id: "1" });
    expect(parseExecFrame('{"type":"subscribe","id":"2"}', none)).toMatchObject({ code: "UNKNOWN_TYPE", id: "2" });
  });

  it("refuses an id already in flight and accepts it again once answered", () => {
    const inFlight = new Set(["a"]);
    expect(parseExecFrame('{"type":"cancelAll","id":"a","payload":{}}', inFlight)).toMatchObject({ code: "DUPLICATE_REQUEST_ID", id: "a" });
    inFlight.delete("a");
    expect(parseExecFrame('{"type":"cancelAll","id":"a","payload":{}}', inFlight)).toMatchObject({ kind: "request" });
  });

  it("never throws, whatever the frame", () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.jsonValue().map((v) => JSON.stringify(v))), (text) => {
        const frame = parseExecFrame(text, none);
        expect(["request", "ping", "error"]).toContain(frame.kind);
      }),
      { seed: 42, numRuns: 2000 },
    );
  });
});
