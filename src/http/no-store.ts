// `Cache-Control: no-store` for an answer that carries a secret (a new API key, a webhook secret, a
// verification token): no browser, proxy or CDN may keep a copy of it (RFC 9111 §5.2.2.5).

import type { MiddlewareHandler } from "hono";

export function noStore(): MiddlewareHandler {
  return async (c, next) => {
    await next();
    c.header("Cache-Control", "no-store");
  };
}
