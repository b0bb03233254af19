// The headers every answer carries, errors included (the middleware runs outside onError's answer):
// `nosniff`, `no-referrer`, and no framing at all.

import type { MiddlewareHandler } from "hono";
import { secureHeaders } from "hono/secure-headers";

export function securityHeaders(): MiddlewareHandler {
  return secureHeaders({
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
}
