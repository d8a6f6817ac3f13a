/**
 * The exec answer frame is built as text (exec.ts answerFrame): its bytes
 * must be exactly those of JSON.stringify over the wrapper object.
 */
import { describe, expect, it } from "vitest";
import type { ExchangeAnswer } from "../../src/exchange/exchange.ts";
import { answerFrame } from "../../src/live/exec.ts";
import { ORDER_ENTRY_OPERATIONS } from "../../src/spec/exec-envelopes.ts";

const ANSWERS: ExchangeAnswer[] = [
  { ok: true, payload: { orderId: "12", status: "OPEN", nested: { a: [1, "x", null], b: undefined }, text: 'q"uote\\ \u0001 \u2028 \ud800' } },
  { ok: true, payload: {} },
  { ok: false, error: { error: "INVALID_NONCE_ERROR", message: 'nonce "5" is not above "7"' } },
  { ok: false, error: { error: "RATE_LIMITED_ERROR", message: "slow down", retryAfterMs: 250 } },
];
const IDS = ["1", "", 'id "quoted" \\ back', "ünï\u0000code \ud83d\ude00", "9".repeat(40)];

describe("exec answer frames", () => {
  it("are the bytes JSON.stringify gives the wrapper object", () => {
    for (const type of ORDER_ENTRY_OPERATIONS) {
      for (const id of IDS) {
        for (const answer of ANSWERS) {
          const wrapper = answer.ok ? { type, id, ok: true, payload: answer.payload } : { type, id, ok: false, error: answer.error };
          expect(answerFrame(type, id, answer)).toBe(JSON.stringify(wrapper));
        }
      }
    }
  });
});
