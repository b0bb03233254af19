// The real suite's bare HTTP server (bench/bare-server.ts): a process of its own that answers every request
// with the same small JSON, and is gone once closed.

import { describe, expect, it } from "vitest";
import { startBareServer } from "../../bench/bare-server.js";

describe("the bare server", () => {
  it("answers any path with {ok: true} over loopback, and stops listening once closed", async () => {
    const bare = await startBareServer();
    let closed = false;
    try {
      expect(bare.base).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      for (const path of ["/", "/healthz", "/anything?x=1"]) {
        const answer = await fetch(`${bare.base}${path}`);
        expect(answer.status).toBe(200);
        expect(await answer.json()).toEqual({ ok: true });
      }
      await bare.close();
      closed = true;
      await expect(fetch(`${bare.base}/`)).rejects.toThrow();
    } finally {
      if (!closed) await bare.close();
    }
  });
});
