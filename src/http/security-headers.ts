// The headers every answer carries, errors included (the middleware runs outside onError's answer):
// `nosniff`, `no-referrer`, and no framing at all. One definition for the app and the Cloudflare Worker,
// which mounts it over the answers it forwards from a container as well as over its own.

import type { MiddlewareHandler } from "hono";
import { secureHeaders } from "hono/secure-headers";

export function securityHeaders(): MiddlewareHandler {
  const setHeaders = secureHeaders({
    // An API is never framed; DENY rather than hono's SAMEORIGIN.
    xFrameOptions: "DENY",
    // HSTS is the TLS terminator's to send: memoria usually serves plain HTTP behind one, and a pin with
    // includeSubDomains sent from here would bind every sibling host of whoever runs it.
    strictTransportSecurity: false,
    // hono's other defaults stay: nosniff, Referrer-Policy no-referrer, Cross-Origin-Resource-Policy and
    // -Opener-Policy same-origin (neither touches CORS fetches of the API nor /docs' same-origin assets).
    // No Content-Security-Policy yet: a later issue adds a strict one, which /docs already allows (it loads
    // only same-origin files and runs no inline script).
  });
  return (c, next) =>
    setHeaders(c, async () => {
      await next();
      // secureHeaders sets the headers on the answer itself, which throws when its headers are immutable: a
      // fetch answer's are in workerd, so every container answer the Worker forwards. Such an answer is
      // copied first (status, headers and body stream as they are; the body is not read).
      if (headersImmutable(c.res)) c.res = new Response(c.res.body, c.res);
    });
}

/** Whether the answer's headers refuse changes; X-Powered-By is removed by secureHeaders anyway. */
function headersImmutable(response: Response): boolean {
  try {
    response.headers.delete("X-Powered-By");
    return false;
  } catch {
    return true;
  }
}
