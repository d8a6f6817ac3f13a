import { describe, expect, test } from "vitest";
import * as spec from "../../src/spec/index.ts";
import * as fx from "./fixtures.ts";
import { rejectedPaths } from "./issues.ts";

describe("order-entry envelopes (spec 4.3)", () => {
  test("the accepted request types are the five operations and ping", () => {
    expect(spec.ORDER_ENTRY_OPERATIONS).toStrictEqual(["createOrder", "modifyOrder", "cancelOrder", "cancelAll", "cancelAllAfter"]);
    expect(spec.EXEC_REQUEST_TYPES).toStrictEqual([...spec.ORDER_ENTRY_OPERATIONS, "ping"]);
    expect(spec.orderEntryRestPath("cancelAllAfter")).toBe("/v2/cancelAllAfter");
  });

  test("every client frame parses through ExecClientFrame", () => {
    const frames = [
      fx.execFrames.createOrderRequest,
      fx.execFrames.modifyOrderRequest,
      fx.execFrames.cancelOrderRequest,
      fx.execFrames.cancelAllRequest,
      fx.execFrames.cancelAllAfterRequest,
      fx.execFrames.ping,
      { type: "ping" },
    ];
    for (const frame of frames) expect(spec.ExecClientFrame.parse(frame)).toStrictEqual(frame);
  });

  test("every server frame parses through ExecServerFrame and narrows on type and ok", () => {
    const frames = [
      fx.execFrames.createOrderSuccess,
      fx.execFrames.createOrderFailure,
      fx.execFrames.modifyOrderSuccess,
      fx.execFrames.modifyOrderFailure,
      fx.execFrames.cancelOrderSuccess,
      fx.execFrames.cancelOrderFailure,
      fx.execFrames.cancelAllSuccess,
      fx.execFrames.cancelAllFailure,
      fx.execFrames.cancelAllAfterSuccess,
      fx.execFrames.cancelAllAfterFailure,
      fx.execFrames.pong,
      { type: "pong" },
      fx.execFrames.error,
      { type: "error", error: { error: "MALFORMED_JSON", message: "frame is not valid JSON" } },
    ];
    for (const frame of frames) expect(spec.ExecServerFrame.parse(frame)).toStrictEqual(frame);
    const parsed = spec.ExecServerFrame.parse(fx.execFrames.createOrderSuccess);
    if (parsed.type !== "createOrder" || !parsed.ok) throw new Error("expected a createOrder success");
    expect(parsed.payload.orderId).toBe("7340032000000001240");
  });

  test("an operation request needs its payload and an id; ping needs neither", () => {
    expect(rejectedPaths(spec.ExecClientFrame, { type: "cancelAll", id: "1" })).toContain("payload");
    expect(rejectedPaths(spec.ExecClientFrame, { type: "cancelAll", payload: fx.cancelAllRequest })).toContain("id");
    expect(rejectedPaths(spec.ExecClientFrame, { ...fx.execFrames.ping, id: 5 })).toContain("id");
  });

  test("the payload is validated against the operation's request body", () => {
    const frame = { type: "cancelAll", id: "1", payload: fx.createLimitRequest };
    expect(spec.ExecClientFrame.safeParse(frame).success).toBe(true); // extra properties are allowed...
    const wrong = { type: "cancelAllAfter", id: "1", payload: fx.cancelAllRequest };
    expect(rejectedPaths(spec.ExecClientFrame, wrong)).toContain("payload.timeoutMs"); // ...missing ones are not
  });

  test("a response must say ok as a boolean literal", () => {
    const frame = { ...fx.execFrames.cancelAllSuccess, ok: "true" };
    expect(spec.ExecServerFrame.safeParse(frame).success).toBe(false);
  });

  test("a failed response carries a RequestError", () => {
    const frame = { ...fx.execFrames.cancelAllFailure, error: { error: "MALFORMED_JSON", message: "x" } };
    expect(rejectedPaths(spec.ExecServerFrame, frame)).toContain("error.error");
  });

  test("the request and response bodies table covers every operation", () => {
    expect(Object.keys(spec.ORDER_ENTRY_BODIES)).toStrictEqual([...spec.ORDER_ENTRY_OPERATIONS]);
    expect(spec.ORDER_ENTRY_BODIES.createOrder.request).toBe(spec.CreateOrderRequest);
    expect(spec.ORDER_ENTRY_BODIES.cancelAllAfter.response).toBe(spec.CancelAllAfterResponse);
  });
});

describe("streaming envelopes (spec 4.4)", () => {
  test("client frames", () => {
    const frames = [
      fx.streamFrames.subscribe,
      { type: "subscribe", channel: "/v2/assetOraclePrices", id: "s-1" },
      fx.streamFrames.unsubscribe,
      fx.streamFrames.ping,
    ];
    for (const frame of frames) expect(spec.StreamClientFrame.parse(frame)).toStrictEqual(frame);
    expect(spec.STREAM_CLIENT_TYPES).toStrictEqual(["subscribe", "unsubscribe", "ping"]);
  });

  test("server frames", () => {
    const frames = [
      fx.streamFrames.subscribed,
      { type: "subscribed", channel: "/v2/wallet/0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed/positions" },
      fx.streamFrames.unsubscribed,
      fx.streamFrames.channelData,
      fx.streamFrames.error,
      { type: "error", message: "Invalid JSON" },
      fx.streamFrames.pong,
    ];
    for (const frame of frames) expect(spec.StreamServerFrame.parse(frame)).toStrictEqual(frame);
  });

  test("a subscribe frame needs a string channel; the channel's validity is parseChannel's job", () => {
    expect(rejectedPaths(spec.StreamClientFrame, { type: "subscribe", channel: 5 })).toContain("channel");
    const invalidName = { type: "subscribe", channel: "/v2/market/ETH-PERP/depth" };
    expect(spec.StreamClientFrame.safeParse(invalidName).success).toBe(true);
    expect(spec.parseChannel(invalidName.channel)).toBeUndefined();
  });

  test("the client id may be a string or a number, nothing else", () => {
    expect(rejectedPaths(spec.StreamClientFrame, { ...fx.streamFrames.subscribe, id: { n: 1 } })).toContain("id");
  });

  test("typed channel data: the envelope then the catalogue's payload", () => {
    const frame = spec.StreamChannelData.parse(fx.streamFrames.channelData);
    const parsed = spec.parseChannel(frame.channel);
    if (parsed?.kind !== "marketDepth") throw new Error("expected a depth channel");
    const depth = spec.CHANNELS[parsed.kind].data.parse(frame.data);
    expect(depth.bids[0]?.px).toBe("3150.25");
  });
});
