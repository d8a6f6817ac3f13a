/**
 * The network-edge limit of spec 8.4 over a real socket: a fixed window of
 * requests per source across the /v2 REST routes (reads, order entry,
 * documents, even unknown /v2 paths), then HTTP 429 with no body until the
 * window ends; /admin and /health are exempt. Configured small through
 * startLiveServer's edgeLimit option; the default is 1,000 per 60 s.
 */
import { afterAll, describe, expect, it } from "vitest";
import { ETH, startRestWorld, type RestWorld } from "./helpers/rest-world.ts";

const worlds: RestWorld[] = [];

async function world(edgeLimit?: { requestsPerWindow: number; windowMs: number }): Promise<RestWorld> {
  const started = await startRestWorld({ bare: true, ...(edgeLimit === undefined ? {} : { edgeLimit }) });
  worlds.push(started);
  return started;
}

afterAll(async () => {
  await Promise.all(worlds.map((started) => started.close()));
});

function expectLimited(answer: { status: number; text: string; headers: Headers }): void {
  expect(answer.status).toBe(429);
  expect(answer.text).toBe("");
  expect(answer.headers.get("content-type")).toBeNull();
  // Readable by a browser client, as every /v2 answer is: without it, fetch sees a CORS failure, not the 429 to back off from.
  expect(answer.headers.get("access-control-allow-origin")).toBe("*");
}

describe("The network-edge limit", () => {
  it("counts every /v2 route, then answers 429 with no body; /admin and /health stay open", async () => {
    const w = await world({ requestsPerWindow: 5, windowMs: 60_000 });
    const paths = ["/v2/feeTiers", `/v2/market/${ETH}/depth`, "/v2/nothing", "/v2/openapi-spec.yaml"];
    for (const path of paths) expect((await w.get(path)).status).not.toBe(429);
    expect((await w.post("/v2/createOrder", {})).status).toBe(400); // the fifth request: a RequestError, still counted
    expectLimited(await w.get("/v2/feeTiers"));
    expectLimited(await w.get(`/v2/wallet/${w.alice.address}/openOrders`));
    expectLimited(await w.post("/v2/createOrder", {}));
    expectLimited(await w.get("/v2/nothing"));
    expect((await w.get("/admin/state")).status).toBe(200);
    expect((await w.post("/admin/prices", { prices: [{ asset: "WETH", price: "2000" }] })).status).toBe(200);
    expect((await w.get("/health/live")).status).toBe(200);
    expect((await w.get("/health/ready")).status).toBe(200);
    expectLimited(await w.get("/v2/feeTiers"));
  });

  it("opens again when the fixed window ends", async () => {
    const w = await world({ requestsPerWindow: 2, windowMs: 1_500 });
    expect((await w.get("/v2/feeTiers")).status).toBe(200);
    expect((await w.get("/v2/feeTiers")).status).toBe(200);
    expectLimited(await w.get("/v2/feeTiers"));
    await new Promise((resolve) => setTimeout(resolve, 1_600));
    expect((await w.get("/v2/feeTiers")).status).toBe(200);
  });

  it("admits 1,000 requests per window by default, and refuses the 1,001st", async () => {
    const w = await world();
    let admitted = 0;
    for (let batch = 0; batch < 20; batch++) {
      const answers = await Promise.all(Array.from({ length: 50 }, () => w.get("/v2/feeTiers")));
      admitted += answers.filter((answer) => answer.status === 200).length;
    }
    expect(admitted).toBe(1_000);
    expectLimited(await w.get("/v2/feeTiers"));
  });
});
