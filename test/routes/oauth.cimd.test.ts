// A client known by its Client ID Metadata Document: its client_id is an https URL, served here by a real HTTPS
// server on loopback with a certificate made for the run, which memoria's fetcher is told to trust (loopback is
// a private address, which only tests may fetch). The document names the client and its redirect URIs; memoria
// reads it once, shows its name on the consent page, and holds the client to it at the token endpoint.

import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { afterEach, beforeAll, expect, it } from "vitest";
import { ClientMetadataFetcher } from "../../src/services/client-metadata.js";
import { buildTestApp, makeTeam, type TestApp } from "../support/app.js";
import { joinAs } from "../support/members.js";
import {
  authorizationQuery,
  callTool,
  codeOf,
  consent,
  exchange,
  pkce,
  REDIRECT_URI,
  refreshRequest,
  tokenRequest,
} from "../support/oauth.js";
import { needs, outside } from "../support/outside.js";
import { selfSignedCertificate, type TestCertificate } from "../support/tls.js";

let tls: TestCertificate;
beforeAll(() => {
  if (outside.openssl.missing === null) tls = selfSignedCertificate();
});

let app: TestApp | undefined;
let server: Server | undefined;
afterEach(async () => {
  app?.close();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

/** Serves one client's metadata document at /client.json; answers its URL and how many fetches it served. */
async function serveDocument(
  document: (url: string) => unknown,
): Promise<{ url: string; fetches: () => number }> {
  let fetches = 0;
  const https = createServer({ key: tls.key, cert: tls.cert }, (req, res) => {
    fetches += 1;
    if (req.url !== "/client.json") return res.writeHead(404).end();
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(document(url())));
  });
  server = https;
  const url = () => `https://localhost:${(https.address() as AddressInfo).port}/client.json`;
  await new Promise<void>((resolve) => https.listen(0, "127.0.0.1", resolve));
  return { url: url(), fetches: () => fetches };
}

async function setUp() {
  app = await buildTestApp({
    clientMetadata: new ClientMetadataFetcher({ allowPrivateAddresses: true, ca: tls.cert }),
  });
  const { apiKey } = await makeTeam(app);
  return { adminKey: apiKey, member: await joinAs(app, apiKey, "member") };
}

needs(outside.openssl).describe("a client known by its metadata document", () => {
  it("signs a member in: its name on the consent page, a public client at the token endpoint, fetched once", async () => {
    const doc = await serveDocument((url) => ({
      client_id: url,
      client_name: "Document Agent",
      redirect_uris: [REDIRECT_URI],
      token_endpoint_auth_method: "none",
    }));
    const { member } = await setUp();
    if (!app) throw new Error("no app");
    const { verifier, challenge } = pkce();
    const page = await member.browser.get(
      `/page/oauth/consent?${authorizationQuery({ clientId: doc.url, challenge })}`,
    );
    const html = await page.text();
    expect(html).toContain("Let Document Agent use Acme?");
    // The document's host vouches for the app, and the page says which host that is.
    expect(html).toContain(`described by <strong>${new URL(doc.url).host}</strong>`);
    const code = codeOf(await consent(member.browser, { clientId: doc.url, challenge }));
    const tokens = await exchange(app, doc.url, code, verifier);
    expect((await callTool(app, tokens.access_token, "search", { q: "x" })).isError).toBe(false);
    expect((await refreshRequest(app, doc.url, tokens.refresh_token)).status).toBe(200);
    expect(doc.fetches()).toBe(1);
  });

  it("holds the client to the document's redirect URIs, and refuses a document naming another client", async () => {
    const doc = await serveDocument((url) => ({
      client_id: url,
      client_name: "Agent",
      redirect_uris: [REDIRECT_URI],
    }));
    const { member } = await setUp();
    const wrongRedirect = authorizationQuery({
      clientId: doc.url,
      challenge: pkce().challenge,
      redirectUri: "https://evil.example/cb",
    });
    const res = await member.browser.get(`/page/oauth/consent?${wrongRedirect}`);
    expect(res.status).toBe(400);
    expect(res.headers.get("location")).toBeNull();
    await new Promise<void>((resolve) => server?.close(() => resolve()));
    const liar = await serveDocument(() => ({
      client_id: "https://someone-else.example/client.json",
      redirect_uris: [REDIRECT_URI],
    }));
    const refused = await member.browser.get(
      `/page/oauth/consent?${authorizationQuery({ clientId: liar.url, challenge: pkce().challenge })}`,
    );
    expect(refused.status).toBe(400);
    expect(await refused.text()).not.toContain("someone-else");
  });

  it("answers invalid_client at the token endpoint when the document cannot be had, and a secret is refused", async () => {
    const doc = await serveDocument((url) => ({
      client_id: url,
      client_name: "Agent",
      redirect_uris: [REDIRECT_URI],
    }));
    await setUp();
    if (!app) throw new Error("no app");
    const withSecret = await tokenRequest(app, {
      grant_type: "refresh_token",
      refresh_token: "mor_x",
      client_id: doc.url,
      client_secret: "s",
    });
    expect(withSecret.status).toBe(401);
    const missing = await tokenRequest(app, {
      grant_type: "refresh_token",
      refresh_token: "mor_x",
      client_id: doc.url.replace("client.json", "nothing.json"),
    });
    expect(missing.status).toBe(401);
    expect(((await missing.json()) as { error: string }).error).toBe("invalid_client");
  });

  it("refuses a private address when the fetcher is the product's own (no test allowance)", async () => {
    const doc = await serveDocument((url) => ({
      client_id: url,
      client_name: "Agent",
      redirect_uris: [REDIRECT_URI],
    }));
    app = await buildTestApp();
    const { apiKey } = await makeTeam(app);
    const member = await joinAs(app, apiKey, "member");
    const res = await member.browser.get(
      `/page/oauth/consent?${authorizationQuery({ clientId: doc.url, challenge: pkce().challenge })}`,
    );
    expect(res.status).toBe(400);
    expect(doc.fetches()).toBe(0);
  });
});
