/**
 * Admin API edges found by an audit (session 21), over a real socket: a
 * clock move once the server began shutting down is refused (it could not
 * be logged, so a replay would not have it); a "__proto__" deposit key is
 * refused rather than dropped; errors name the field the client sent (an
 * unknown asset names `asset`, a fractional advanceMs is refused, and an
 * exhausted account-id counter says so).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startRestWorld, type RestWorld } from "./helpers/rest-world.ts";

let w: RestWorld;

beforeAll(async () => {
  w = await startRestWorld();
});

afterAll(async () => {
  await w?.close();
});

describe("admin API edges", () => {
  it("refuses a deposits key of __proto__, naming it, and creates no account", async () => {
    const before = (await w.ok("/admin/state")).fingerprint;
    const body = JSON.parse(`{"wallet":"${w.alice.address}","accountId":40,"deposits":{"__proto__":"not-a-number"}}`);
    const answer = await w.post("/admin/accounts", body);
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ error: "INPUT_VALIDATION_ERROR", message: expect.stringContaining('deposits: key "__proto__" is not an asset') });
    expect((await w.ok("/admin/state")).fingerprint).toBe(before);
  });

  it("names the asset field for an unknown asset", async () => {
    const answer = await w.post("/admin/deposits", { accountId: 2, asset: "DOGE", amount: "1" });
    expect(answer.body).toEqual({ error: "INPUT_VALIDATION_ERROR", message: 'asset: asset "DOGE" is not a configured asset' });
  });

  it("names the rule of a pattern, not its regex, and lists the keys a body takes beside an unknown one", async () => {
    const negative = await w.post("/admin/deposits", { accountId: 2, asset: "RUSD", amount: "-5" });
    expect(negative).toMatchObject({ status: 400, body: { error: "INPUT_VALIDATION_ERROR", message: 'amount: must be an unsigned decimal string, e.g. "100" or "2.5"' } });
    const unknown = await w.post("/admin/deposits", { accountId: 2, asset: "RUSD", amount: "5", note: "x" });
    expect(unknown).toMatchObject({ status: 400, body: { error: "INPUT_VALIDATION_ERROR", message: 'body: Unrecognized key: "note" (it takes accountId, asset, amount)' } });
    const fault = await w.post("/admin/faults", { fault: "nope" });
    expect(fault.status).toBe(400);
    expect(fault.body.message).toMatch(/^body: Unrecognized key: "fault" \(it takes bustNext, bustProbability, delayBlocksMs, engineUnavailableMs, /);
  });

  it("refuses a fractional advanceMs", async () => {
    const answer = await w.post("/admin/clock", { advanceMs: 0.5 });
    expect(answer.status).toBe(400);
    expect(answer.body.message).toMatch(/^advanceMs: /);
  });

  it("says so when no account id is left to assign", async () => {
    expect(await w.admin("accounts", { wallet: w.bob.address, accountId: Number.MAX_SAFE_INTEGER })).toMatchObject({ accountId: Number.MAX_SAFE_INTEGER });
    const answer = await w.post("/admin/accounts", { wallet: w.bob.address });
    expect(answer.body).toEqual({ error: "INPUT_VALIDATION_ERROR", message: expect.stringContaining("accountId: none is left to assign") });
  });

  it("refuses a clock move once the driver is closed (shutting down), and leaves the clock where it was", async () => {
    const other = await startRestWorld({ bare: true });
    try {
      const before = (await other.ok("/admin/state")).virtualTime;
      await other.running.context.driver.close();
      const answer = await other.post("/admin/clock", { advanceMs: 1_000 });
      expect(answer.body).toEqual({ error: "SERVICE_DISABLED_ERROR", message: expect.stringContaining("shutting down") });
      expect((await other.ok("/admin/state")).virtualTime).toBe(before);
    } finally {
      await other.close();
    }
  });
});
