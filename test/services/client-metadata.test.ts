// The Client ID Metadata Document fetcher (src/services/client-metadata.ts) against real HTTPS servers on
// loopback, each test its own, with a certificate made for the run by the openssl CLI. Loopback is a private
// address, so these fetchers are told allowPrivateAddresses, except where the refusal of private addresses is
// what is tested: there the server counts connections, and none may arrive.

import type { IncomingMessage, ServerResponse } from "node:http";
import { createServer as createHttpsServer, type Server } from "node:https";
import {
  createServer as createTcpServer,
  getDefaultAutoSelectFamily,
  type Socket,
  setDefaultAutoSelectFamily,
  type Server as TcpServer,
} from "node:net";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { isDomainError } from "../../src/errors.js";
import {
  ClientMetadataFetcher,
  type ClientMetadataFetcherOptions,
  isClientMetadataUrl,
  isPublicAddress,
} from "../../src/services/client-metadata.js";
import { needs, outside } from "../support/outside.js";
import { selfSignedCertificate, type TestCertificate } from "../support/tls.js";

// Put into every document a test serves: no error message may carry it.
const MARKER = "MARKER-7f3a";

let tls: TestCertificate;

beforeAll(() => {
  if (outside.openssl.missing === null) tls = selfSignedCertificate();
});

interface TestServer {
  /** The https URL of `path` on this server, by IP literal unless `host` says otherwise. */
  url(path?: string, host?: string): string;
  requests: number;
  connections: number;
  /** Resolves once every connection the server took has closed. */
  allClosed(): Promise<void>;
}

const servers: (Server | TcpServer)[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.close();
    if ("closeAllConnections" in server) server.closeAllConnections();
  }
});

function track(server: Server | TcpServer, port: () => number): TestServer {
  const sockets = new Set<Socket>();
  const state: TestServer = {
    url: (path = "/client.json", host = "127.0.0.1") => `https://${host}:${port()}${path}`,
    requests: 0,
    connections: 0,
    allClosed: async () => {
      while (sockets.size > 0) await new Promise((resolve) => setTimeout(resolve, 5));
    },
  };
  // Counted at the TCP accept, before any TLS: a byte the fetcher sent would have come this way.
  server.on("connection", (socket: Socket) => {
    state.connections++;
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  servers.push(server);
  return state;
}

async function serve(handler: (req: IncomingMessage, res: ServerResponse, self: TestServer) => void) {
  const server = createHttpsServer(tls, (req, res) => {
    self.requests++;
    handler(req, res, self);
  });
  const self = track(server, () => (server.address() as { port: number }).port);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return self;
}

/** The URL this request was made to: the client_id a document at it must carry. */
const requestedUrl = (req: IncomingMessage) => `https://${req.headers.host}${req.url}`;

function goodDocument(clientId: string) {
  return {
    client_id: clientId,
    client_name: `Example client ${MARKER}`,
    redirect_uris: ["http://127.0.0.1:33418/callback", `https://client.example/${MARKER}`],
    client_uri: "https://client.example/",
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    token_endpoint_auth_method: "none",
    scope: "memoria",
    [`unknown_${MARKER}`]: MARKER,
  };
}

function sendJson(res: ServerResponse, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(200, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

/** A server answering every request with `document(url)` as JSON. */
const serveDocument = (
  document: (clientId: string) => unknown = goodDocument,
  headers?: Record<string, string>,
) => serve((req, res) => sendJson(res, document(requestedUrl(req)), headers));

const fetcher = (options: ClientMetadataFetcherOptions = {}) =>
  new ClientMetadataFetcher({ ca: tls.cert, allowPrivateAddresses: true, ...options });

/** The refusal `promise` ends in: an invalid_request whose message names `reason` and carries no content. */
async function refusal(promise: Promise<unknown>, reason: RegExp): Promise<void> {
  const error = await promise.then(
    () => expect.unreachable("the fetch was not refused"),
    (caught: unknown) => caught,
  );
  expect(isDomainError(error, "invalid_request")).toBe(true);
  const { message } = error as Error;
  expect(message).toMatch(reason);
  expect(message).not.toContain(MARKER);
  expect(message).not.toContain("127.0.0.1");
}

describe("isClientMetadataUrl", () => {
  it.each([
    "https://client.example/client.json",
    "https://client.example:8443/oauth/client",
    "https://client.example/c?v=1",
    "https://127.0.0.1/c",
  ])("takes %s", (url) => {
    expect(isClientMetadataUrl(url)).toBe(true);
  });

  it.each([
    ["http", "http://client.example/client.json"],
    ["no path", "https://client.example"],
    ["the root path", "https://client.example/"],
    ["a fragment", "https://client.example/c#x"],
    ["an empty fragment", "https://client.example/c#"],
    ["a user", "https://user@client.example/c"],
    ["a user and password", "https://user:pw@client.example/c"],
    ["a dot-dot segment", "https://client.example/a/../c"],
    ["a dot segment", "https://client.example/./c"],
    ["an encoded dot-dot segment", "https://client.example/a/%2e%2e/c"],
    ["a backslash", "https://client.example\\c"],
    ["an upper-case host (not as the URL standard writes it)", "https://Client.example/c"],
    ["the default port written out", "https://client.example:443/c"],
    ["surrounding space", " https://client.example/c"],
    ["not a URL", "client.example/c"],
    ["an over-long URL", `https://client.example/${"a".repeat(2000)}`],
  ])("refuses %s", (_, url) => {
    expect(isClientMetadataUrl(url)).toBe(false);
  });
});

describe("isPublicAddress", () => {
  it.each([
    ["8.8.8.8", true],
    ["1.1.1.1", true],
    ["93.184.215.14", true],
    ["172.15.255.255", true],
    ["172.32.0.0", true],
    ["100.63.255.255", true],
    ["100.128.0.0", true],
    ["2606:4700:4700::1111", true],
    ["2a00:1450:4001:81b::200e", true],
    ["::ffff:8.8.8.8", true],
    ["64:ff9b::8.8.8.8", true],
    ["0.0.0.0", false],
    ["0.1.2.3", false],
    ["10.0.0.1", false],
    ["10.255.255.255", false],
    ["100.64.0.1", false],
    ["100.127.255.254", false],
    ["127.0.0.1", false],
    ["127.255.255.254", false],
    ["169.254.169.254", false],
    ["172.16.0.1", false],
    ["172.31.255.255", false],
    ["192.0.0.170", false],
    ["192.0.2.1", false],
    ["192.88.99.1", false],
    ["192.168.1.1", false],
    ["198.18.0.1", false],
    ["198.19.255.255", false],
    ["198.51.100.7", false],
    ["203.0.113.9", false],
    ["224.0.0.1", false],
    ["239.255.255.250", false],
    ["240.0.0.1", false],
    ["255.255.255.255", false],
    ["::", false],
    ["::1", false],
    ["0:0:0:0:0:0:0:1", false],
    ["::ffff:127.0.0.1", false],
    ["::ffff:7f00:1", false],
    ["::FFFF:10.0.0.1", false],
    ["::ffff:169.254.169.254", false],
    ["::ffff:0:0", false],
    ["::127.0.0.1", false],
    ["::8.8.8.8", false],
    ["64:ff9b::10.0.0.1", false],
    ["64:ff9b::7f00:1", false],
    ["64:ff9b:1::8.8.8.8", false],
    ["fc00::1", false],
    ["fd12:3456::1", false],
    ["fe80::1", false],
    ["fe80::1%eth0", false],
    ["febf::1", false],
    ["fec0::1", false],
    ["ff02::1", false],
    ["ff0e::1", false],
    ["100::1", false],
    ["2001::1", false],
    ["2001:0:4136:e378:8000:63bf:3fff:fdd2", false],
    ["2001:2::1", false],
    ["2001:db8::1", false],
    ["2002:7f00:1::1", false],
    ["2002:808:808::1", false],
    ["3fff::1", false],
    ["5f00::1", false],
    ["localhost", false],
    ["example.com", false],
    ["", false],
    ["127.1", false],
    ["0x7f000001", false],
  ])("%s: %s", (address, expected) => {
    expect(isPublicAddress(address)).toBe(expected);
  });
});

needs(outside.openssl).describe("ClientMetadataFetcher", () => {
  it("reads a good document, keeping what memoria reads of it", async () => {
    const server = await serveDocument();
    const url = server.url();
    const document = await fetcher().fetch(url);
    expect(document).toEqual({
      client_id: url,
      client_name: `Example client ${MARKER}`,
      redirect_uris: ["http://127.0.0.1:33418/callback", `https://client.example/${MARKER}`],
      client_uri: "https://client.example/",
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
      scope: "memoria",
    });
    expect(Object.isFrozen(document) && Object.isFrozen(document.redirect_uris)).toBe(true);
  });

  it("sends one GET asking for JSON", async () => {
    let seen: IncomingMessage | undefined;
    const server = await serve((req, res) => {
      seen = req;
      sendJson(res, goodDocument(requestedUrl(req)));
    });
    await fetcher().fetch(server.url("/c?v=1"));
    expect(seen?.method).toBe("GET");
    expect(seen?.url).toBe("/c?v=1");
    expect(seen?.headers.accept).toBe("application/json");
  });

  it("reads a host name through its own lookup", async () => {
    const server = await serveDocument();
    const url = server.url("/client.json", "localhost");
    expect((await fetcher().fetch(url)).client_id).toBe(url);
  });

  it("takes application/<something>+json with a charset", async () => {
    const server = await serve((req, res) => {
      res.writeHead(200, { "content-type": "Application/Client-Metadata+JSON; charset=utf-8" });
      res.end(JSON.stringify(goodDocument(requestedUrl(req))));
    });
    expect((await fetcher().fetch(server.url())).client_name).toContain("Example client");
  });

  it("refuses a document whose client_id is another URL", async () => {
    const server = await serveDocument((id) => ({ ...goodDocument(id), client_id: `${id}/${MARKER}` }));
    await refusal(fetcher().fetch(server.url()), /client_id other than its own URL/);
  });

  it("refuses a document whose client_id differs only in form", async () => {
    const server = await serveDocument((id) => ({
      ...goodDocument(id),
      client_id: id.replace("https", "HTTPS"),
    }));
    await refusal(fetcher().fetch(server.url()), /client_id other than its own URL/);
  });

  it("refuses http:// before any connection", async () => {
    const server = await serveDocument();
    const url = server.url().replace("https:", "http:");
    expect(isClientMetadataUrl(url)).toBe(false);
    await refusal(fetcher().fetch(url), /client_id is not a client metadata document URL/);
    expect(server.connections).toBe(0);
  });

  it.each([301, 302, 303, 307, 308])("refuses a %i redirect without following it", async (status) => {
    let followed = 0;
    const server = await serve((req, res) => {
      if (req.url === "/elsewhere") {
        followed++;
        return sendJson(res, goodDocument(requestedUrl(req)));
      }
      res.writeHead(status, { location: "/elsewhere" });
      res.end();
    });
    await refusal(fetcher().fetch(server.url()), /redirect, not followed/);
    expect(followed).toBe(0);
  });

  it.each([404, 500, 204, 203])("refuses a %i", async (status) => {
    const server = await serve((req, res) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(status === 204 ? undefined : JSON.stringify(goodDocument(requestedUrl(req))));
    });
    await refusal(fetcher().fetch(server.url()), new RegExp(`status ${status}, not 200`));
  });

  it("refuses a body declared larger than the cap, without waiting for it", async () => {
    const server = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "application/json", "content-length": "1000000" });
      res.flushHeaders();
    });
    await refusal(fetcher({ timeoutMs: 10_000 }).fetch(server.url()), /larger than 5120 bytes/);
    await server.allClosed();
  });

  it("refuses a body that grows past the cap with no length given, and ends the connection", async () => {
    let written = 0;
    const server = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.write(`{"client_name": "${MARKER}`);
      const drip = setInterval(() => {
        if (res.destroyed) return clearInterval(drip);
        written += 1024;
        res.write(MARKER.padEnd(1024, "x"));
      }, 1);
    });
    await refusal(
      fetcher({ timeoutMs: 10_000, maxBytes: 4096 }).fetch(server.url()),
      /larger than 4096 bytes/,
    );
    await server.allClosed();
    expect(written).toBeLessThan(1024 * 1024);
  });

  it("takes a document of exactly the cap", async () => {
    const server = await serve((req, res) => {
      const body = JSON.stringify(goodDocument(requestedUrl(req)));
      res.writeHead(200, { "content-type": "application/json", "content-length": "600" });
      res.end(body.padEnd(600, " "));
    });
    expect((await fetcher({ maxBytes: 600 }).fetch(server.url())).scope).toBe("memoria");
  });

  it("gives up on a server that takes the connection and never speaks TLS, and ends the socket", async () => {
    // Reads what arrives (and so sees the fetcher hang up), answers nothing.
    const server = createTcpServer((socket) => socket.resume());
    const state = track(server, () => (server.address() as { port: number }).port);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    await refusal(fetcher({ timeoutMs: 200 }).fetch(state.url()), /did not arrive within 200 ms/);
    expect(state.connections).toBe(1);
    await state.allClosed();
  });

  it("gives up on a server that never answers the request, and ends the socket", async () => {
    const server = await serve(() => {});
    await refusal(fetcher({ timeoutMs: 200 }).fetch(server.url()), /did not arrive within 200 ms/);
    expect(server.requests).toBe(1);
    await server.allClosed();
  });

  it("gives up on a body that trickles under the cap and never ends", async () => {
    const server = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.write("{");
      const drip = setInterval(() => (res.destroyed ? clearInterval(drip) : res.write(" ")), 20);
    });
    await refusal(fetcher({ timeoutMs: 300 }).fetch(server.url()), /did not arrive within 300 ms/);
    await server.allClosed();
  });

  it("refuses a connection that closes before the body is whole", async () => {
    const server = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "application/json", "content-length": "500" });
      res.write(`{"client_name": "${MARKER}`);
      setTimeout(() => res.socket?.destroy(), 20);
    });
    await refusal(fetcher().fetch(server.url()), /could not be fetched/);
  });

  it("refuses a certificate it does not trust", async () => {
    const server = await serveDocument();
    await refusal(
      new ClientMetadataFetcher({ allowPrivateAddresses: true }).fetch(server.url()),
      /could not be fetched/,
    );
  });

  it.each([
    ["text/html", `<p>${MARKER}</p>`],
    ["text/plain", JSON.stringify({ client_name: MARKER })],
    ["application/jsonp", JSON.stringify({ client_name: MARKER })],
    [undefined, JSON.stringify({ client_name: MARKER })],
  ])("refuses a body served as %s", async (type, body) => {
    const server = await serve((_req, res) => {
      res.writeHead(200, type === undefined ? {} : { "content-type": type });
      res.end(body);
    });
    await refusal(fetcher().fetch(server.url()), /not served as JSON/);
  });

  it.each([
    ["not JSON", `{"client_name": "${MARKER}",`],
    [
      "not UTF-8",
      Buffer.concat([
        Buffer.from(`{"client_name": "${MARKER}`),
        Buffer.from([0xff, 0xfe]),
        Buffer.from('"}'),
      ]),
    ],
    ["empty", ""],
  ])("refuses a JSON-typed body that is %s", async (_, body) => {
    const server = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(body);
    });
    await refusal(fetcher().fetch(server.url()), /not valid JSON/);
  });

  /** The good document at `id` with `changes` over it (a property set to undefined is left out). */
  const changed =
    (changes: Record<string, unknown>) =>
    (id: string): unknown => ({ ...goodDocument(id), ...changes, client_id: id });

  it.each([
    ["no redirect_uris", changed({ redirect_uris: undefined }), /does not hold: redirect_uris\.$/],
    ["empty redirect_uris", changed({ redirect_uris: [] }), /redirect_uris/],
    [
      "a redirect URI that is not a URL",
      changed({ redirect_uris: [`not a url ${MARKER}`] }),
      /redirect_uris\.0/,
    ],
    [
      "a javascript: redirect URI",
      changed({ redirect_uris: [`javascript:alert("${MARKER}")`] }),
      /redirect_uris\.0/,
    ],
    [
      "an http redirect URI off loopback",
      changed({ redirect_uris: [`http://c.example/${MARKER}`] }),
      /redirect_uris/,
    ],
    [
      "a redirect URI with a fragment",
      changed({ redirect_uris: [`https://c.example/cb#${MARKER}`] }),
      /redirect_uris/,
    ],
    [
      "eleven redirect URIs",
      changed({ redirect_uris: Array(11).fill("https://c.example/cb") }),
      /redirect_uris/,
    ],
    [
      "an over-long redirect URI",
      changed({ redirect_uris: [`https://c.example/${"a".repeat(2000)}`] }),
      /redirect_uris/,
    ],
    ["a blank client_name", changed({ client_name: "   " }), /client_name/],
    ["an over-long client_name", changed({ client_name: MARKER.repeat(30) }), /client_name/],
    [
      "client_secret_basic",
      changed({ token_endpoint_auth_method: "client_secret_basic" }),
      /token_endpoint_auth/,
    ],
    ["private_key_jwt", changed({ token_endpoint_auth_method: "private_key_jwt" }), /token_endpoint_auth/],
    ["a client_secret", changed({ client_secret: MARKER }), /client_secret/],
    ["an http logo_uri", changed({ logo_uri: `http://c.example/${MARKER}.png` }), /logo_uri/],
    ["a javascript: client_uri", changed({ client_uri: `javascript:${MARKER}` }), /client_uri/],
    ["grant_types not strings", changed({ grant_types: [MARKER.length] }), /grant_types/],
    ["no client_id", (id: string) => ({ ...goodDocument(id), client_id: undefined }), /client_id/],
    ["an array for a document", () => [MARKER], /does not hold: the document\.$/],
    ["null for a document", () => null, /does not hold: the document\.$/],
  ])("refuses a document with %s", async (_, document, reason) => {
    const server = await serveDocument(document);
    await refusal(fetcher().fetch(server.url()), reason);
  });

  it("takes a document without client_name (RFC 7591 makes it optional)", async () => {
    const server = await serveDocument(changed({ client_name: undefined }));
    const document = await fetcher().fetch(server.url());
    expect(document.client_name).toBeUndefined();
    expect(document.redirect_uris.length).toBeGreaterThan(0);
  });

  describe("caching", () => {
    function clock(start = 1_000_000) {
      let now = start;
      return { now: () => now, advance: (ms: number) => (now += ms) };
    }

    it("answers a second fetch from the cache", async () => {
      const server = await serveDocument();
      const f = fetcher();
      const first = await f.fetch(server.url());
      expect(await f.fetch(server.url())).toBe(first);
      expect(server.requests).toBe(1);
    });

    it("keeps a document without Cache-Control for cacheTtlMs", async () => {
      const server = await serveDocument();
      const { now, advance } = clock();
      const f = fetcher({ now, cacheTtlMs: 60_000 });
      await f.fetch(server.url());
      advance(59_999);
      await f.fetch(server.url());
      expect(server.requests).toBe(1);
      advance(1);
      await f.fetch(server.url());
      expect(server.requests).toBe(2);
    });

    it("keeps a document for its max-age", async () => {
      const server = await serveDocument(goodDocument, { "cache-control": "public, max-age=120" });
      const { now, advance } = clock();
      const f = fetcher({ now });
      await f.fetch(server.url());
      advance(119_000);
      await f.fetch(server.url());
      expect(server.requests).toBe(1);
      advance(1000);
      await f.fetch(server.url());
      expect(server.requests).toBe(2);
    });

    it.each([
      ["max-age=0", 30_000],
      ["no-store", 30_000],
      ["no-cache, max-age=600", 30_000],
      ["max-age=5", 30_000],
      ["max-age=31536000", 86_400_000],
      ['max-age="90"', 90_000],
      ["max-age=abc", 300_000],
      ["private", 300_000],
    ])("keeps a document served with %s for %i ms", async (cacheControl, keptMs) => {
      const server = await serveDocument(goodDocument, { "cache-control": cacheControl });
      const { now, advance } = clock();
      const f = fetcher({ now });
      await f.fetch(server.url());
      advance(keptMs - 1);
      await f.fetch(server.url());
      expect(server.requests).toBe(1);
      advance(1);
      await f.fetch(server.url());
      expect(server.requests).toBe(2);
    });

    it("does not keep a failure: the next fetch asks again", async () => {
      const server = await serve((req, res) => {
        if (server.requests === 1) {
          res.writeHead(404);
          return res.end();
        }
        sendJson(res, goodDocument(requestedUrl(req)));
      });
      const f = fetcher();
      await refusal(f.fetch(server.url()), /status 404/);
      expect((await f.fetch(server.url())).client_id).toBe(server.url());
      expect(server.requests).toBe(2);
    });

    it("does not keep an invalid document", async () => {
      const server = await serveDocument((id) => ({
        ...goodDocument(id),
        redirect_uris: server.requests === 1 ? [] : ["https://c.example/cb"],
      }));
      const f = fetcher();
      await refusal(f.fetch(server.url()), /redirect_uris/);
      expect((await f.fetch(server.url())).redirect_uris).toEqual(["https://c.example/cb"]);
    });

    it("keeps at most cacheEntries documents, pushing out the one used longest ago", async () => {
      const server = await serveDocument();
      const f = fetcher({ cacheEntries: 2 });
      const [a, b, c] = ["/a", "/b", "/c"].map((path) => server.url(path)) as [string, string, string];
      await f.fetch(a);
      await f.fetch(b);
      await f.fetch(a);
      await f.fetch(c);
      expect(server.requests).toBe(3);
      await f.fetch(a);
      expect(server.requests).toBe(3);
      await f.fetch(b);
      expect(server.requests).toBe(4);
    });

    it("shares one request among concurrent fetches of one URL", async () => {
      const server = await serve((req, res) => {
        setTimeout(() => sendJson(res, goodDocument(requestedUrl(req))), 50);
      });
      const f = fetcher();
      const documents = await Promise.all([1, 2, 3, 4, 5].map(() => f.fetch(server.url())));
      expect(server.requests).toBe(1);
      expect(new Set(documents).size).toBe(1);
    });

    it("shares one failure among concurrent fetches, then asks again", async () => {
      const server = await serve((_req, res) => {
        setTimeout(() => {
          res.writeHead(500);
          res.end();
        }, 50);
      });
      const f = fetcher();
      await Promise.all([1, 2, 3].map(() => refusal(f.fetch(server.url()), /status 500/)));
      expect(server.requests).toBe(1);
      await refusal(f.fetch(server.url()), /status 500/);
      expect(server.requests).toBe(2);
    });
  });

  describe("private addresses", () => {
    // Private addresses refused, as in the product; any port, so the address check itself is what refuses.
    const strict = () => new ClientMetadataFetcher({ ca: tls.cert, timeoutMs: 2000, allowAnyPort: true });

    it("refuses a URL with a port other than https's own before any connection, as the product's fetcher does", async () => {
      const server = await serveDocument();
      const product = new ClientMetadataFetcher({ ca: tls.cert, timeoutMs: 2000 });
      await refusal(product.fetch(server.url("/client.json", "localhost")), /https's own port/);
      expect(server.connections).toBe(0);
    });

    it.each([
      ["an IPv4 loopback literal", "127.0.0.1"],
      ["localhost", "localhost"],
      ["an IPv6 loopback literal", "[::1]"],
      ["an IPv4-mapped loopback literal", "[::ffff:7f00:1]"],
      ["0.0.0.0", "0.0.0.0"],
    ])("refuses %s before any connection", async (_, host) => {
      const server = await serveDocument();
      await refusal(strict().fetch(server.url("/client.json", host)), /address is not public/);
      expect(server.connections).toBe(0);
    });

    // The URL standard reads these as 127.0.0.1: not the client_id as written, so refused before any address.
    it.each(["127.1", "0x7f.0.0.1", "2130706433", "[::ffff:127.0.0.1]"])(
      "refuses %s, a loopback literal not written as the URL standard writes it",
      async (host) => {
        const server = await serveDocument();
        await refusal(strict().fetch(server.url("/client.json", host)), /not a client metadata document URL/);
        expect(server.connections).toBe(0);
      },
    );

    it("refuses localhost when the runtime asks its lookup for one address, not all", async () => {
      const server = await serveDocument();
      const before = getDefaultAutoSelectFamily();
      setDefaultAutoSelectFamily(false);
      try {
        await refusal(strict().fetch(server.url("/client.json", "localhost")), /address is not public/);
        expect(server.connections).toBe(0);
        const url = server.url("/client.json", "localhost");
        expect((await fetcher().fetch(url)).client_id).toBe(url);
      } finally {
        setDefaultAutoSelectFamily(before);
      }
    });

    it.each(["10.0.0.1", "169.254.169.254", "192.168.0.1", "100.64.0.1", "[fd00::1]", "[fe80::1]"])(
      "refuses %s without connecting",
      async (host) => {
        await refusal(strict().fetch(`https://${host}/client.json`), /address is not public/);
      },
    );

    it("refuses a name that does not resolve", async () => {
      await refusal(strict().fetch("https://no-such-host.invalid/client.json"), /does not resolve/);
    });
  });
});
