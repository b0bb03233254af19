// An OAuth client's Client ID Metadata Document (draft-ietf-oauth-client-id-metadata-document), the way the
// MCP authorization spec (2025-11-25) has a client with no registration identify itself: its client_id is an
// https URL, and memoria GETs that URL for the client's name and redirect URIs.
//
// Whoever starts an authorization at /mcp chooses that URL, anonymously, so every fetch is a server-side
// request forgery surface and is held to:
// - https, one GET, no redirect followed, only a 200 with a JSON content type;
// - a public address only, checked inside the socket's own lookup, so the address checked is the address
//   connected to: no window for DNS rebinding between a check and the connect. An IP-literal host, which no
//   lookup sees, is checked before connecting;
// - one time limit over connect, headers and body, and a cap on the body, both ending the socket.
// Every failure is the client's (its document cannot be had, or does not hold), so each is an
// invalid_request naming the reason, never quoting the URL or the document.
//
// Only node:https, node:dns and node:net, so the same code runs under Deno's Node compatibility.

import { lookup as dnsLookup } from "node:dns";
import { isIP, type LookupFunction } from "node:net";
import { z } from "zod";
import { DomainError, isDomainError } from "../errors.js";
import { acceptableRedirectUri } from "./redirect-uri.js";

// The longest URL taken as a client_id or from a document: what browsers and servers reliably carry, and far
// past any real client's (a client_id is shown on the consent screen and kept with every grant).
const MAX_URL_LENGTH = 2000;

// A document whose every property is at its bound is still under DEFAULT_MAX_BYTES: ten redirect URIs is
// more than any real client registers (one or two loopback ports, one https callback).
export const MAX_REDIRECT_URIS = 10;
export const MAX_CLIENT_NAME_LENGTH = 200;
const MAX_SCOPE_LENGTH = 1000;
const MAX_TYPE_VALUES = 10;
const MAX_TYPE_LENGTH = 100;

// A document is a few hundred bytes from a host that exists to serve it: 5 s covers a TLS handshake across
// continents several times over, and bounds how long one anonymous caller holds a socket open on memoria.
const DEFAULT_TIMEOUT_MS = 5000;
// The draft's recommended maximum response size (5 kilobytes).
const DEFAULT_MAX_BYTES = 5 * 1024;
// The clients a deployment sees are a handful (Claude, VS Code, Cursor, ...); 100 holds them all with room,
// at under 1 MB (each entry is one document under DEFAULT_MAX_BYTES). A caller cycling URLs only makes the
// real clients be fetched again.
const DEFAULT_CACHE_ENTRIES = 100;
// With no Cache-Control max-age: short enough that a client's corrected document is seen within minutes,
// long enough that one authorization (authorize, consent, token) fetches once.
const DEFAULT_CACHE_TTL_MS = 5 * 60_000;
// A document asking for less (max-age=0, no-store, no-cache) is still kept this long: otherwise every
// anonymous authorization request would make memoria fetch again, an amplifier aimed at the client's host.
const MIN_CACHE_TTL_MS = 30_000;
// A document asking for more is fetched again after a day, so a client's changed redirect URIs (or a
// document taken down after a compromise) reach memoria within that.
const MAX_CACHE_TTL_MS = 24 * 60 * 60_000;

// Hosts that block requests without one see what is asking.
const USER_AGENT = "memoria (OAuth client metadata)";

/** application/json, or application/<something>+json as the draft allows. */
const JSON_MEDIA_TYPE = /^application\/(?:[a-z0-9!#$&^_.+-]+\+)?json$/;

const redirectUri = z.string().refine(acceptableRedirectUri, "not a URL a code can be sent to");

// Shown to the person as a link or an image, so https only: anything else is a script or mixed content.
const httpsUrl = z
  .string()
  .max(MAX_URL_LENGTH)
  .refine((value) => URL.canParse(value) && new URL(value).protocol === "https:", "not an https URL");

const typeValues = z.array(z.string().min(1).max(MAX_TYPE_LENGTH)).max(MAX_TYPE_VALUES);

/** What memoria reads of a client metadata document; other properties are dropped. */
export const clientMetadataDocumentSchema = z.object({
  client_id: z.string().max(MAX_URL_LENGTH),
  client_name: z.string().trim().min(1).max(MAX_CLIENT_NAME_LENGTH).optional(),
  redirect_uris: z.array(redirectUri).min(1).max(MAX_REDIRECT_URIS),
  client_uri: httpsUrl.optional(),
  logo_uri: httpsUrl.optional(),
  grant_types: typeValues.optional(),
  response_types: typeValues.optional(),
  // Such a client can hold no secret (the draft forbids shared-secret methods), and private_key_jwt is not
  // supported here: a public client, with PKCE, is the only kind taken.
  token_endpoint_auth_method: z.literal("none").optional(),
  scope: z.string().max(MAX_SCOPE_LENGTH).optional(),
  // The draft: these MUST NOT be used. A document carrying one is refused, not read around.
  client_secret: z.never().optional(),
  client_secret_expires_at: z.never().optional(),
});
export type ClientMetadataDocument = z.infer<typeof clientMetadataDocumentSchema>;

export interface ClientMetadataFetcherOptions {
  /** Whole-request time limit: connect, headers and body. */
  timeoutMs?: number;
  /** Largest body read. */
  maxBytes?: number;
  /** Tests only: allow loopback/private addresses. */
  allowPrivateAddresses?: boolean;
  /** Tests only: allow a port other than https's own (a test's server listens where it can). */
  allowAnyPort?: boolean;
  /** Tests only: extra CA certificate (PEM) trusted for the fetch (it replaces the default roots). */
  ca?: string;
  /** Documents kept at most; the one used longest ago goes first. */
  cacheEntries?: number;
  /** How long a document is kept when its answer has no Cache-Control max-age. */
  cacheTtlMs?: number;
  now?: () => number;
}

/**
 * Distinct documents fetched at once, at most: a sign-in fetches one, so 16 is many people signing in with
 * apps never seen before in the same five seconds; past it a caller naming URL after URL is refused, not
 * served by an unbounded number of sockets.
 */
export const MAX_FETCHES_AT_ONCE = 16;

/**
 * Is this client_id a metadata document URL (https, has a path component other than "/", no fragment, no
 * credentials, no dot segments)? It must also be written as the URL standard writes it (new URL(id).href ===
 * id): the string the document's client_id is compared with, the URL fetched and the id kept are then one,
 * and no dot segment, backslash or stray whitespace can hide in it.
 */
export function isClientMetadataUrl(clientId: string): boolean {
  if (clientId.length > MAX_URL_LENGTH || !URL.canParse(clientId)) return false;
  const url = new URL(clientId);
  return (
    url.protocol === "https:" &&
    url.href === clientId &&
    url.pathname !== "/" &&
    !clientId.includes("#") &&
    url.username === "" &&
    url.password === ""
  );
}

interface Range {
  bytes: number[];
  bits: number;
}

function ipv4Bytes(address: string): number[] {
  return address.split(".").map(Number);
}

/** The 16 bytes of an IPv6 address isIP has already accepted (no zone). */
function ipv6Bytes(address: string): number[] {
  let text = address.toLowerCase();
  if (text.includes(".")) {
    const at = text.lastIndexOf(":");
    const [a = 0, b = 0, c = 0, d = 0] = ipv4Bytes(text.slice(at + 1));
    text = `${text.slice(0, at + 1)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const groups = (part: string) =>
    part === "" ? [] : part.split(":").map((group) => Number.parseInt(group, 16));
  const [head = "", tail] = text.split("::");
  const front = groups(head);
  const back = tail === undefined ? [] : groups(tail);
  const zeros = new Array<number>(8 - front.length - back.length).fill(0);
  return [...front, ...zeros, ...back].flatMap((group) => [group >> 8, group & 0xff]);
}

/**
 * One of the well-formed ranges below. Its family is read from the text, not by isIP: the first isIP of an
 * IPv6 address builds Node's address expressions, ~4.5 ms that every start paid while these lists were made.
 */
function range(cidr: string): Range {
  const [address = "", bits = ""] = cidr.split("/");
  return { bytes: address.includes(":") ? ipv6Bytes(address) : ipv4Bytes(address), bits: Number(bits) };
}

function inRange(bytes: readonly number[], { bytes: prefix, bits }: Range): boolean {
  if (bytes.length !== prefix.length) return false;
  for (let i = 0, left = bits; left > 0; i++, left -= 8) {
    const mask = left >= 8 ? 0xff : (0xff << (8 - left)) & 0xff;
    if (((bytes[i] ?? 0) & mask) !== ((prefix[i] ?? 0) & mask)) return false;
  }
  return true;
}

// The IANA special-purpose IPv4 ranges (RFC 6890 and its updates) that are not a public host.
const BLOCKED_IPV4 = [
  "0.0.0.0/8", // "this network", 0.0.0.0 included
  "10.0.0.0/8", // private
  "100.64.0.0/10", // carrier-grade NAT
  "127.0.0.0/8", // loopback
  "169.254.0.0/16", // link-local, where cloud metadata services answer
  "172.16.0.0/12", // private
  "192.0.0.0/24", // IETF protocol assignments
  "192.0.2.0/24", // documentation
  "192.88.99.0/24", // 6to4 relay anycast, deprecated
  "192.168.0.0/16", // private
  "198.18.0.0/15", // benchmarking
  "198.51.100.0/24", // documentation
  "203.0.113.0/24", // documentation
  "224.0.0.0/4", // multicast
  "240.0.0.0/4", // reserved, 255.255.255.255 (broadcast) included
].map(range);

// IPv6 outside 2000::/3 (global unicast) is refused whole: loopback, unspecified, IPv4-compatible,
// unique-local, link- and site-local, multicast, discard, local-use NAT64. These are the parts of 2000::/3
// that are not a public host either.
const GLOBAL_UNICAST = range("2000::/3");
const BLOCKED_IPV6 = [
  "2001::/23", // IETF protocol assignments: Teredo (an IPv4 address inside), benchmarking, ORCHID
  "2001:db8::/32", // documentation
  "2002::/16", // 6to4, deprecated, an IPv4 address inside
  "3fff::/20", // documentation
  "5f00::/16", // SRv6 segment identifiers
].map(range);
// IPv6 forms that carry an IPv4 address in their last 32 bits, judged as that address.
const IPV4_MAPPED = range("::ffff:0:0/96");
const NAT64 = range("64:ff9b::/96");

function isPublicIPv4(bytes: readonly number[]): boolean {
  return !BLOCKED_IPV4.some((blocked) => inRange(bytes, blocked));
}

/**
 * Is this IP address one memoria may fetch from: a public unicast host? False for anything special-purpose
 * (loopback, private, link-local, CGNAT, unique-local, multicast, documentation, benchmarking, reserved ...),
 * for IPv4-mapped and NAT64 forms of those, for an address with a zone, and for anything not an IP address.
 */
export function isPublicAddress(address: string): boolean {
  if (address.includes("%")) return false;
  const family = isIP(address);
  if (family === 4) return isPublicIPv4(ipv4Bytes(address));
  if (family !== 6) return false;
  const bytes = ipv6Bytes(address);
  if (inRange(bytes, IPV4_MAPPED) || inRange(bytes, NAT64)) return isPublicIPv4(bytes.slice(12));
  return inRange(bytes, GLOBAL_UNICAST) && !BLOCKED_IPV6.some((blocked) => inRange(bytes, blocked));
}

/** A refusal naming its reason, never the URL or anything that came back. */
function refused(reason: string): DomainError {
  return new DomainError("invalid_request", `The client metadata document ${reason}.`);
}

const notPublic = () => refused("is on a host whose address is not public");

/** The socket's lookup: every address the name has is checked, and only checked ones reach the connect. */
function checkedLookup(allowPrivateAddresses: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error || addresses.length === 0) return callback(refused("is on a host that does not resolve"), "");
      // One private address among public ones is a rebinding attempt or a mistake: either way, not fetched.
      if (!allowPrivateAddresses && !addresses.every(({ address }) => isPublicAddress(address)))
        return callback(notPublic(), "");
      if (options.all) return callback(null, addresses);
      const [first] = addresses;
      callback(null, first?.address ?? "", first?.family);
    });
  };
}

function isJsonContentType(header: string | undefined): boolean {
  const essence = header?.split(";", 1)[0]?.trim().toLowerCase();
  return essence !== undefined && JSON_MEDIA_TYPE.test(essence);
}

/** Cache-Control's max-age in seconds; 0 for no-store or no-cache; null when it says neither. */
function maxAgeSeconds(header: string | undefined): number | null {
  if (!header) return null;
  let maxAge: number | null = null;
  for (const directive of header.split(",")) {
    const [name = "", value = ""] = directive.split("=", 2).map((part) => part.trim());
    const lower = name.toLowerCase();
    if (lower === "no-store" || lower === "no-cache") return 0;
    const seconds = value.replace(/^"(.*)"$/, "$1");
    if (lower === "max-age" && maxAge === null && /^\d+$/.test(seconds)) maxAge = Number(seconds);
  }
  return maxAge;
}

/** Field names only: zod's sentences name what was expected, never what the document held. */
function describeIssues(issues: readonly z.core.$ZodIssue[]): string {
  const fields = [...new Set(issues.map((issue) => issue.path.join(".") || "the document"))];
  return `does not hold: ${fields.slice(0, 5).join(", ")}`;
}

// A cached document is handed to every caller: frozen, so none can change what the next sign-in sees.
function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object") {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

interface Downloaded {
  body: unknown;
  maxAgeSeconds: number | null;
}

interface Cached {
  document: ClientMetadataDocument;
  expiresAt: number;
}

export class ClientMetadataFetcher {
  readonly #timeoutMs: number;
  readonly #maxBytes: number;
  readonly #allowPrivateAddresses: boolean;
  readonly #ca: string | undefined;
  readonly #cacheEntries: number;
  readonly #cacheTtlMs: number;
  readonly #now: () => number;
  readonly #lookup: LookupFunction;
  // Insertion order is use order: a document used again is deleted and set anew, so the first is the oldest.
  readonly #cache = new Map<string, Cached>();
  readonly #inFlight = new Map<string, Promise<ClientMetadataDocument>>();
  readonly #allowAnyPort: boolean;

  constructor(options: ClientMetadataFetcherOptions = {}) {
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.#maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
    this.#allowPrivateAddresses = options.allowPrivateAddresses ?? false;
    this.#allowAnyPort = options.allowAnyPort ?? this.#allowPrivateAddresses;
    this.#ca = options.ca;
    this.#cacheEntries = options.cacheEntries ?? DEFAULT_CACHE_ENTRIES;
    this.#cacheTtlMs = options.cacheTtlMs ?? DEFAULT_CACHE_TTL_MS;
    this.#now = options.now ?? Date.now;
    this.#lookup = checkedLookup(this.#allowPrivateAddresses);
  }

  /**
   * The document, validated; throws DomainError("invalid_request", <the reason>) when it cannot be fetched
   * or does not hold. Any failure is the client's, and none is cached (the draft: errors and invalid
   * documents MUST NOT be), so a client that fixes its document is read at its next attempt.
   */
  /** Whether a fetch of `clientId` now would be answered from the cache, with no request made. */
  cached(clientId: string): boolean {
    const held = this.#cache.get(clientId);
    return held !== undefined && this.#now() < held.expiresAt;
  }

  fetch(clientId: string): Promise<ClientMetadataDocument> {
    if (!isClientMetadataUrl(clientId))
      return Promise.reject(
        new DomainError("invalid_request", "The client_id is not a client metadata document URL."),
      );
    const cached = this.#cache.get(clientId);
    if (cached && this.#now() < cached.expiresAt) {
      this.#cache.delete(clientId);
      this.#cache.set(clientId, cached);
      return Promise.resolve(cached.document);
    }
    let pending = this.#inFlight.get(clientId);
    if (!pending) {
      if (this.#inFlight.size >= MAX_FETCHES_AT_ONCE)
        return Promise.reject(
          new DomainError(
            "invalid_request",
            "Too many client metadata documents are being fetched; try again.",
          ),
        );
      // The default port alone: a document is a web page, and any port would let a caller probe services.
      if (!this.#allowAnyPort && new URL(clientId).port !== "")
        return Promise.reject(
          new DomainError("invalid_request", "A client metadata document URL must use https's own port."),
        );
      pending = this.#load(clientId).finally(() => this.#inFlight.delete(clientId));
      this.#inFlight.set(clientId, pending);
    }
    return pending;
  }

  async #load(clientId: string): Promise<ClientMetadataDocument> {
    const { body, maxAgeSeconds } = await this.#download(new URL(clientId));
    const parsed = clientMetadataDocumentSchema.safeParse(body);
    if (!parsed.success) throw refused(describeIssues(parsed.error.issues));
    if (parsed.data.client_id !== clientId) throw refused("names a client_id other than its own URL");
    const document = deepFreeze(parsed.data);
    const ttlMs = maxAgeSeconds === null ? this.#cacheTtlMs : maxAgeSeconds * 1000;
    this.#cache.delete(clientId);
    this.#cache.set(clientId, {
      document,
      expiresAt: this.#now() + Math.min(Math.max(ttlMs, MIN_CACHE_TTL_MS), MAX_CACHE_TTL_MS),
    });
    while (this.#cache.size > this.#cacheEntries) {
      const oldest = this.#cache.keys().next().value;
      if (oldest === undefined) break;
      this.#cache.delete(oldest);
    }
    return document;
  }

  async #download(url: URL): Promise<Downloaded> {
    // new URL keeps an IPv6 literal's brackets; isIP and the socket want the bare address.
    const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
    if (isIP(host) !== 0 && !this.#allowPrivateAddresses && !isPublicAddress(host)) throw notPublic();
    // Loaded on the first document, not at start: node:https (and TLS under it) is ~3.5 ms of every start
    // otherwise, for a fetch most instances make rarely.
    const { request: httpsRequest } = await import("node:https");
    return new Promise<Downloaded>((resolve, reject) => {
      let settled = false;
      const request = httpsRequest({
        hostname: host,
        port: url.port === "" ? 443 : Number(url.port),
        path: `${url.pathname}${url.search}`,
        method: "GET",
        headers: { accept: "application/json", "accept-encoding": "identity", "user-agent": USER_AGENT },
        // A connection of its own, never pooled: ending it ends only this fetch, and no socket opened under
        // another fetcher's rules is reused.
        agent: false,
        lookup: this.#lookup,
        ...(this.#ca === undefined ? {} : { ca: this.#ca }),
      });
      const timer = setTimeout(
        () => fail(refused(`did not arrive within ${this.#timeoutMs} ms`)),
        this.#timeoutMs,
      );
      const settle = () => {
        settled = true;
        clearTimeout(timer);
        request.destroy();
      };
      const fail = (error: DomainError) => {
        if (settled) return;
        settle();
        reject(error);
      };
      const unreachable = () => fail(refused("could not be fetched"));

      request.on("error", (error) => (isDomainError(error) ? fail(error) : unreachable()));
      request.on("response", (response) => {
        const status = response.statusCode ?? 0;
        if (status >= 300 && status < 400) return fail(refused("URL answered with a redirect, not followed"));
        if (status !== 200) return fail(refused(`URL answered with status ${status}, not 200`));
        if (!isJsonContentType(response.headers["content-type"]))
          return fail(refused("is not served as JSON"));
        const tooLarge = () => fail(refused(`is larger than ${this.#maxBytes} bytes`));
        if (Number(response.headers["content-length"]) > this.#maxBytes) return tooLarge();

        const chunks: Buffer[] = [];
        let received = 0;
        response.on("data", (chunk: Buffer) => {
          received += chunk.length;
          if (received > this.#maxBytes) return tooLarge();
          chunks.push(chunk);
        });
        response.on("error", unreachable);
        response.on("close", () => {
          if (!response.complete) unreachable();
        });
        response.on("end", () => {
          if (settled) return;
          let body: unknown;
          try {
            body = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(Buffer.concat(chunks)));
          } catch {
            return fail(refused("is not valid JSON"));
          }
          settle();
          resolve({ body, maxAgeSeconds: maxAgeSeconds(response.headers["cache-control"]) });
        });
      });
      request.end();
    });
  }
}
