// A link to this instance for a person to open elsewhere (an invite): this request's host, and `https` when a
// TLS terminator in front said the request came over it (the app itself then sees plain http).

import type { Context } from "hono";

export function publicUrl(c: Context, path: string): string {
  const url = new URL(path, c.req.url);
  if (c.req.header("x-forwarded-proto") === "https") url.protocol = "https:";
  return url.toString();
}
