// The request-id middleware, on a bare Hono app as the app and the Cloudflare Worker both mount it.

import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { type RequestIdEnv, requestId } from "../../src/http/request-id.js";

function app(answer: (id: string) => Response | Promise<Response>) {
  const hono = new Hono<RequestIdEnv>();
  hono.use("*", requestId());
  hono.get("*", (c) => answer(c.var.requestId));
  return hono;
}

describe("requestId", () => {
  it("keeps a plain caller request id and replaces anything else", async () => {
    const echo = app((id) => Response.json({ id }));
    const kept = await echo.request("/", { headers: { "x-request-id": "trace-1.a_b" } });
    expect(kept.headers.get("x-request-id")).toBe("trace-1.a_b");
    expect(await kept.json()).toEqual({ id: "trace-1.a_b" });
    for (const given of ["has space", "x".repeat(129), "semi;colon"]) {
      const replaced = await echo.request("/", { headers: { "x-request-id": given } });
      const id = replaced.headers.get("x-request-id");
      expect(id, given).toMatch(/^[0-9a-f-]{36}$/);
      expect(await replaced.json()).toEqual({ id });
    }
  });

  it("sets the header on an answer built without it, even one whose headers are immutable", async () => {
    // Response.redirect's headers are immutable, as a fetch answer's are in workerd.
    const redirect = Response.redirect("https://memoria.example/elsewhere", 302);
    expect(() => redirect.headers.set("x-test", "1")).toThrow(TypeError);
    const response = await app(() => Response.redirect("https://memoria.example/elsewhere", 302)).request(
      "/",
      { headers: { "x-request-id": "trace-2" } },
    );
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toBe("https://memoria.example/elsewhere");
    expect(response.headers.get("x-request-id")).toBe("trace-2");
  });

  it("leaves an answer that already carries the id as it is", async () => {
    let answered: Response | undefined;
    const response = await app((id) => {
      answered = new Response("ok", { headers: { "x-request-id": id } });
      return answered;
    }).request("/", { headers: { "x-request-id": "trace-3" } });
    expect(response).toBe(answered);
    expect(response.headers.get("x-request-id")).toBe("trace-3");
  });
});
