// The idempotency claim itself, driven step by step over real storage: while a key's first request is being
// answered, a second with the same key is told so (409 at the edge) and never claims it; an abandoned claim
// goes stale and is taken over; a completed one replays; a released one is claimed afresh.

import { afterEach, describe, expect, it } from "vitest";
import { silentLogger } from "../../src/logger.js";
import {
  IdempotencyService,
  type IdempotentRequest,
  PENDING_STALE_MS,
} from "../../src/services/idempotency.js";
import { buildTestApp, makeTeam, type TestApp } from "../support/app.js";

const request = (body: string): IdempotentRequest => ({
  method: "POST",
  target: "/v1/entries",
  contentType: "application/json",
  body: new TextEncoder().encode(body),
});

describe("IdempotencyService", () => {
  const open: TestApp[] = [];
  afterEach(() => {
    for (const a of open.splice(0)) a.close();
  });

  async function setUp() {
    let now = Date.parse("2026-05-01T00:00:00.000Z");
    const clock = { now: () => new Date(now) };
    const app = await buildTestApp({ clock });
    open.push(app);
    const { apiKey } = await makeTeam(app);
    const key = await app.memoria.directory.authenticate(apiKey);
    if (!key) throw new Error("no key");
    const service = new IdempotencyService({ storage: app.storage, clock, logger: silentLogger });
    return { service, key, advance: (ms: number) => (now += ms) };
  }

  it("lets one request hold a key: a second meanwhile is in progress, or a mismatch with another body", async () => {
    const { service, key } = await setUp();
    const first = await service.begin(key, "k", request('{"title":"A"}'));
    expect(first.kind).toBe("claimed");
    expect((await service.begin(key, "k", request('{"title":"A"}'))).kind).toBe("in_progress");
    expect((await service.begin(key, "k", request('{"title":"B"}'))).kind).toBe("mismatch");
    if (first.kind !== "claimed") throw new Error("unreachable");
    await service.complete(first.claim, { status: 201, contentType: "application/json", body: '{"ok":1}' });
    const replay = await service.begin(key, "k", request('{"title":"A"}'));
    expect(replay).toEqual({
      kind: "replay",
      answer: { status: 201, contentType: "application/json", body: '{"ok":1}' },
    });
  });

  it("a released key is claimed afresh, by any body", async () => {
    const { service, key } = await setUp();
    const first = await service.begin(key, "k", request("one"));
    if (first.kind !== "claimed") throw new Error("expected a claim");
    await service.release(first.claim);
    expect((await service.begin(key, "k", request("two"))).kind).toBe("claimed");
  });

  it("an abandoned claim is taken over once stale, and the late first request cannot store its answer", async () => {
    const { service, key, advance } = await setUp();
    const first = await service.begin(key, "k", request("one"));
    if (first.kind !== "claimed") throw new Error("expected a claim");
    advance(PENDING_STALE_MS - 1000);
    expect((await service.begin(key, "k", request("one"))).kind).toBe("in_progress");
    advance(2000);
    const second = await service.begin(key, "k", request("one"));
    expect(second.kind).toBe("claimed");
    // The first claim's answer and release no longer touch the key: it belongs to the second.
    await service.complete(first.claim, { status: 201, contentType: null, body: "late" });
    await service.release(first.claim);
    expect((await service.begin(key, "k", request("one"))).kind).toBe("in_progress");
    if (second.kind !== "claimed") throw new Error("unreachable");
    await service.complete(second.claim, { status: 201, contentType: null, body: "second" });
    const replay = await service.begin(key, "k", request("one"));
    expect(replay.kind === "replay" && replay.answer.body).toBe("second");
  });

  it("a stored answer moved onto another key's row fails to open", async () => {
    const { service, key } = await setUp();
    const one = await service.begin(key, "one", request("x"));
    const two = await service.begin(key, "two", request("x"));
    if (one.kind !== "claimed" || two.kind !== "claimed") throw new Error("expected claims");
    await service.complete(one.claim, { status: 201, contentType: null, body: "one's answer" });
    await service.complete(two.claim, { status: 201, contentType: null, body: "two's answer" });
    const app = open[0] as TestApp;
    await app.storage.client.execute({
      sql: "UPDATE idempotency_keys SET sealed = (SELECT sealed FROM idempotency_keys WHERE key_ref = ?) WHERE key_ref = ?",
      args: [one.claim.keyRef, two.claim.keyRef],
    });
    await expect(service.begin(key, "two", request("x"))).rejects.toMatchObject({ code: "unreadable" });
  });
});
