// The client's address, for counting failed authentications per client (src/http/rate-limit.ts).
//
// By default it is the socket's peer address, which a client cannot choose. Behind a proxy every request
// comes from the proxy, so MEMORIA_TRUST_PROXY names the header that proxy writes the client's address in
// (`cf-connecting-ip`, `x-real-ip`, `x-forwarded-for`); only set it when every request passes that proxy,
// since anyone reaching the port directly could write the header too. A list (`x-forwarded-for`) counts its
// right-most entry: the one the nearest proxy appended, where everything left of it came from the client.
// A request without the header falls back to its socket address. Decision: docs/decisions/0018-rate-limits.md.

import type { Context } from "hono";

/**
 * The socket's peer address as the runtime hands it to the app, without importing either runtime: Node's
 * @hono/node-server passes `{ incoming }` as the app's env (what its getConnInfo reads), Deno.serve passes
 * its handler info, `{ remoteAddr: { hostname } }` (what hono/deno's getConnInfo reads).
 */
export function socketAddress(env: unknown): string | null {
  if (typeof env !== "object" || env === null) return null;
  const node = (env as { incoming?: { socket?: { remoteAddress?: unknown } } }).incoming?.socket
    ?.remoteAddress;
  if (typeof node === "string" && node !== "") return node;
  const deno = (env as { remoteAddr?: { hostname?: unknown } }).remoteAddr?.hostname;
  if (typeof deno === "string" && deno !== "") return deno;
  return null;
}

/** The address named by a trusted header: its right-most comma-separated entry, or null when empty. */
export function headerAddress(value: string | undefined): string | null {
  if (value === undefined) return null;
  const last = value.split(",").pop()?.trim() ?? "";
  return last === "" ? null : last;
}

/**
 * The key an address is counted under. One IPv6 host usually holds a whole /64 and may use any address in
 * it, so IPv6 addresses are counted by their /64 (as express-rate-limit and Cloudflare's rate limiting do);
 * IPv4, and IPv4 mapped into IPv6, by the address itself.
 */
export function addressKey(address: string): string {
  const bare = address.replace(/^\[|\]$/g, "").replace(/%.*$/, "");
  const mapped = bare.match(/^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i);
  if (mapped?.[1]) return mapped[1];
  if (!bare.includes(":")) return bare;
  const groups = expandIpv6(bare);
  return groups ? `${groups.slice(0, 4).join(":")}::/64` : bare;
}

/** The eight 16-bit groups of an IPv6 address, lower-case without leading zeros, or null if it is not one. */
function expandIpv6(address: string): string[] | null {
  const halves = address.toLowerCase().split("::");
  if (halves.length > 2) return null;
  const part = (text: string | undefined) => (text ? text.split(":") : []);
  const head = part(halves[0]);
  const tail = part(halves[1]);
  // An embedded IPv4 tail (::1.2.3.4) is two groups; /64 never reaches it, so it only has to be counted.
  const last = tail.length > 0 ? tail : head;
  if (last.at(-1)?.includes(".")) last.splice(-1, 1, "0", "0");
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return null;
  const groups = [...head, ...Array<string>(halves.length === 1 ? 0 : missing).fill("0"), ...tail];
  if (!groups.every((group) => /^[0-9a-f]{1,4}$/.test(group))) return null;
  return groups.map((group) => group.replace(/^0+(?=.)/, ""));
}

/**
 * The client's address by the configured rule, as the key it is counted under; null when the runtime gives
 * none (app.request() in process).
 */
export function clientAddress(c: Context, trustedHeader: string | null): string | null {
  const address = (trustedHeader ? headerAddress(c.req.header(trustedHeader)) : null) ?? socketAddress(c.env);
  return address === null ? null : addressKey(address);
}
