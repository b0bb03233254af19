// The MCP TypeScript SDK's own client signs a member in against a real memoria on a loopback port, with
// Debian's Chromium (driven by playwright-core) as the member's browser: the SDK knows only the /mcp URL, finds
// the way from its 401 (protected resource metadata, authorization server metadata), registers, and hands the
// authorization URL to the browser; the member approves on the consent page (already signed in, or signing in
// there and coming back by themselves); the browser reaches the client's loopback callback (the consent page's
// CSP lets the form's redirect go there), and the SDK exchanges the code. Then the tools at the member's scope,
// a refresh the SDK does by itself when its token stops working, a replayed refresh token ending the family,
// a disconnect on the Apps page, and a reader who can give the read scope only. A control shows the callback
// check is real: with the page's plain policy in the consent page's place, Chromium refuses the redirect.
//
// memoria is served on `localhost` so the origin the browser sees and the resource the SDK binds its tokens to
// are the same (the server derives both from the request's Host). The client's callback is on 127.0.0.1, another
// site, as a native client's is.
//
// Skipped, saying so, where /usr/bin/chromium is missing (`apt-get install -y chromium`).

import { randomBytes } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { type OAuthClientProvider, UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from "@modelcontextprotocol/sdk/shared/auth.js";
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect } from "vitest";
import { createTeamAnswer } from "../../src/routes/teams.js";
import { serveOnLoopback } from "../http/loopback.js";
import { expectOk } from "../routes/contract.js";
import { ADMIN_TOKEN, buildTestApp, type TestApp } from "../support/app.js";
import { CHROMIUM_ARGS } from "../support/chromium.js";
import { invitePath, joinAs } from "../support/members.js";
import { needs, outside } from "../support/outside.js";

/** Browser waits: generous, as the machine may be busy. */
const WAIT = { timeout: 30_000 };
const TEST_TIMEOUT = 180_000;
const CLIENT_NAME = "SDK test client";
const TITLE = "We deploy on Tuesdays.";

let browser: Browser;

beforeAll(async () => {
  if (outside.chromium.missing !== null) return;
  browser = await chromium.launch({
    executablePath: outside.chromium.name,
    headless: true,
    args: CHROMIUM_ARGS,
  });
}, 60_000);

afterAll(async () => {
  await browser?.close();
});

/** What each test opened, closed in reverse order whatever happened. */
let cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) {
    try {
      await cleanup();
    } catch {}
  }
  cleanups = [];
});

// ---- the client's side: its loopback callback, its fetch, its OAuthClientProvider ----

/**
 * The client's loopback listener, as a native MCP client runs one: `/callback` takes the authorization
 * response; `/start` is a page of the client's own (another site than memoria) with a link to the
 * authorization URL, so the browser arrives at memoria from elsewhere, as it does when a client sends it.
 */
interface Callback {
  origin: string;
  redirectUri: string;
  /** Every request that reached /callback. */
  hits: URL[];
  /** The next request to reach /callback. */
  next(): Promise<URL>;
  startUrl(authorization: URL): string;
  close(): Promise<void>;
}

const attribute = (value: string) =>
  value.replaceAll("&", "&amp;").replaceAll('"', "&quot;").replaceAll("<", "&lt;");

async function startCallback(): Promise<Callback> {
  const hits: URL[] = [];
  let waiting: ((url: URL) => void)[] = [];
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", `http://${req.headers.host}`);
    if (url.pathname === "/callback") {
      hits.push(url);
      for (const resolve of waiting) resolve(url);
      waiting = [];
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      res.end("<!doctype html><title>Signed in</title><h1>You are signed in; close this tab.</h1>");
      return;
    }
    if (url.pathname === "/start") {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      res.end(
        `<!doctype html><title>SDK test client</title><a href="${attribute(url.searchParams.get("to") ?? "")}">Sign in to memoria</a>`,
      );
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    redirectUri: `${origin}/callback`,
    hits,
    next: () => new Promise<URL>((resolve) => waiting.push(resolve)),
    startUrl: (authorization) => `${origin}/start?to=${encodeURIComponent(authorization.href)}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

interface Exchange {
  method: string;
  url: URL;
  status: number;
  wwwAuthenticate: string | null;
  /** The form a POST sent, when it sent one. */
  form: URLSearchParams | null;
  /** The answer's JSON, for the authorization server's endpoints. */
  json: Record<string, unknown> | null;
}

/** The SDK's fetch, each request and answer kept in order. */
function loggedFetch(): { fetch: FetchLike; log: Exchange[] } {
  const log: Exchange[] = [];
  const fetchLike: FetchLike = async (input, init) => {
    const res = await fetch(input, init);
    const url = new URL(String(input instanceof Request ? input.url : input));
    const body = init?.body;
    const form =
      body instanceof URLSearchParams
        ? body
        : typeof body === "string" && !body.startsWith("{")
          ? new URLSearchParams(body)
          : null;
    const answerJson =
      url.pathname.startsWith("/oauth/") || url.pathname.startsWith("/.well-known/")
        ? ((await res
            .clone()
            .json()
            .catch(() => null)) as Record<string, unknown> | null)
        : null;
    log.push({
      method: init?.method ?? "GET",
      url,
      status: res.status,
      wwwAuthenticate: res.headers.get("www-authenticate"),
      form,
      json: answerJson,
    });
    return res;
  };
  return { fetch: fetchLike, log };
}

/** An MCP client's OAuth state, in memory: what the SDK saves it keeps unchanged. */
class MemoryProvider implements OAuthClientProvider {
  information: OAuthClientInformationMixed | undefined;
  stored: OAuthTokens | undefined;
  verifier: string | undefined;
  lastState: string | undefined;
  /** Every authorization URL the SDK handed over. */
  readonly authorizations: URL[] = [];
  /** Hands an authorization URL to the member's browser; none set, the URL is only kept. */
  handOff: ((url: URL) => Promise<unknown>) | undefined;
  readonly invalidated: string[] = [];

  constructor(private readonly callback: string) {}

  get redirectUrl(): string {
    return this.callback;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: CLIENT_NAME,
      redirect_uris: [this.callback],
      token_endpoint_auth_method: "none",
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
    };
  }

  state(): string {
    this.lastState = randomBytes(16).toString("base64url");
    return this.lastState;
  }

  clientInformation() {
    return this.information;
  }

  saveClientInformation(information: OAuthClientInformationMixed) {
    this.information = information;
  }

  tokens() {
    return this.stored;
  }

  saveTokens(tokens: OAuthTokens) {
    this.stored = tokens;
  }

  async redirectToAuthorization(url: URL) {
    this.authorizations.push(url);
    await this.handOff?.(url);
  }

  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }

  codeVerifier(): string {
    if (this.verifier === undefined) throw new Error("no code verifier was saved");
    return this.verifier;
  }

  invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery") {
    this.invalidated.push(scope);
    if (scope === "all" || scope === "client") this.information = undefined;
    if (scope === "all" || scope === "tokens") this.stored = undefined;
    if (scope === "all" || scope === "verifier") this.verifier = undefined;
  }
}

// ---- memoria's side ----

interface World {
  app: TestApp;
  /** http://localhost:<port> */
  base: string;
  teamId: string;
  /** The team's first key (admin), the owner's. */
  adminKey: string;
  callback: Callback;
}

async function setUp(): Promise<World> {
  const app = await buildTestApp();
  cleanups.push(() => app.close());
  const served = await serveOnLoopback(app);
  cleanups.push(() => served.close());
  const created = await expectOk(
    await app.request("/v1/teams", { method: "POST", token: ADMIN_TOKEN, json: { name: "Acme" } }),
    201,
    createTeamAnswer,
  );
  expect(created.invite?.url).toContain("/page/invite/");
  const callback = await startCallback();
  cleanups.push(() => callback.close());
  return {
    app,
    base: served.base.replace("127.0.0.1", "localhost"),
    teamId: created.team.id,
    adminKey: created.apiKey,
    callback,
  };
}

async function newPage(): Promise<{ context: BrowserContext; page: Page; cspReports: string[] }> {
  const context = await browser.newContext();
  cleanups.push(() => context.close());
  const page = await context.newPage();
  page.setDefaultTimeout(WAIT.timeout);
  page.setDefaultNavigationTimeout(WAIT.timeout);
  // Chromium writes a CSP refusal (a form-action that blocked the redirect) to the console.
  const cspReports: string[] = [];
  page.on("console", (message) => {
    if (/Content Security Policy/i.test(message.text())) cspReports.push(message.text());
  });
  return { context, page, cspReports };
}

/** Joins through an invite of `role` in this browser, which keeps the session cookie. */
async function joinInChromium(world: World, page: Page, role: "member" | "reader", name: string) {
  await page.goto(`${world.base}${await invitePath(world.app, world.adminKey, role)}`);
  await page.getByLabel("Your name").fill(name);
  await page.getByLabel("Email").fill(`${name.toLowerCase()}@example.com`);
  await page.getByLabel("Password").fill(`a long pass phrase of ${name}`);
  await page.getByRole("button", { name: "Join", exact: true }).click();
  await page.waitForURL(`${world.base}/`, WAIT);
  expect(await page.locator(".who").textContent()).toBe(`${name} · ${role}`);
}

/** The document answers the browser got on its way, in order: the consent page's headers among them. */
function documentAnswers(page: Page) {
  const answers: { url: URL; status: number; headers: Record<string, string> }[] = [];
  page.on("response", (response) => {
    if (response.request().resourceType() !== "document") return;
    answers.push({ url: new URL(response.url()), status: response.status(), headers: response.headers() });
  });
  return answers;
}

/** The SDK's client, over a transport of its own with this provider and fetch. */
function sdkClient(world: World, provider: MemoryProvider, fetchLike: FetchLike) {
  const transport = new StreamableHTTPClientTransport(new URL(`${world.base}/mcp`), {
    authProvider: provider,
    fetch: fetchLike,
  });
  const client = new Client({ name: "sdk-test", version: "1.0.0" });
  cleanups.push(() => client.close());
  return { transport, client };
}

/** A tool's answer as text, and whether it is a tool error. */
async function call(client: Client, name: string, args: Record<string, unknown>) {
  const result = (await client.callTool({ name, arguments: args })) as {
    isError?: boolean;
    content: { type: string; text?: string }[];
  };
  return { isError: result.isError === true, text: result.content.map((part) => part.text ?? "").join("\n") };
}

/**
 * The first connection: the SDK's initialize is refused 401, it finds the authorization server, registers and
 * hands the authorization URL over (here, to the client's start page in Chromium); connect() rejects with
 * UnauthorizedError. Asserts discovery went as the MCP authorization specification says.
 */
async function firstConnect(
  world: World,
  page: Page,
  provider: MemoryProvider,
  log: Exchange[],
  fetchLike: FetchLike,
) {
  provider.handOff = (url) => page.goto(world.callback.startUrl(url));
  const { transport, client } = sdkClient(world, provider, fetchLike);
  await expect(client.connect(transport)).rejects.toBeInstanceOf(UnauthorizedError);

  const [refused, ...rest] = log;
  expect(refused?.method).toBe("POST");
  expect(refused?.url.href).toBe(`${world.base}/mcp`);
  expect(refused?.status).toBe(401);
  expect(refused?.wwwAuthenticate).toContain(
    `resource_metadata="${world.base}/.well-known/oauth-protected-resource/mcp"`,
  );
  const protectedResource = rest.find((e) => e.url.pathname === "/.well-known/oauth-protected-resource/mcp");
  expect(protectedResource?.status).toBe(200);
  expect(protectedResource?.json).toMatchObject({
    resource: `${world.base}/mcp`,
    authorization_servers: [world.base],
  });
  const serverMetadata = rest.find((e) => e.url.pathname === "/.well-known/oauth-authorization-server");
  expect(serverMetadata?.status).toBe(200);
  expect(serverMetadata?.json?.issuer).toBe(world.base);
  const registration = rest.find((e) => e.url.pathname === "/oauth/register");
  expect(registration?.method).toBe("POST");
  expect(registration?.status).toBe(201);
  expect(registration?.json).toMatchObject({
    client_name: CLIENT_NAME,
    token_endpoint_auth_method: "none",
    redirect_uris: [world.callback.redirectUri],
  });
  expect(registration?.json).not.toHaveProperty("client_secret");
  // The order the specification gives: the 401, the resource's metadata, the server's, the registration.
  expect(log.indexOf(protectedResource as Exchange)).toBeLessThan(log.indexOf(serverMetadata as Exchange));
  expect(log.indexOf(serverMetadata as Exchange)).toBeLessThan(log.indexOf(registration as Exchange));
  expect(provider.information?.client_id).toMatch(/^mcl_/);
  expect(provider.information?.client_id).toBe(registration?.json?.client_id);

  expect(provider.authorizations).toHaveLength(1);
  const authorization = provider.authorizations[0] as URL;
  expect(`${authorization.origin}${authorization.pathname}`).toBe(`${world.base}/oauth/authorize`);
  expect(Object.fromEntries(authorization.searchParams)).toMatchObject({
    response_type: "code",
    client_id: provider.information?.client_id,
    redirect_uri: world.callback.redirectUri,
    code_challenge_method: "S256",
    resource: `${world.base}/mcp`,
    scope: "read write",
    state: provider.lastState,
  });
  expect(page.url()).toBe(world.callback.startUrl(authorization));
  return transport;
}

/** From the client's start page, the browser follows the link to memoria (arriving from another site). */
async function followToMemoria(world: World, page: Page) {
  const answers = documentAnswers(page);
  await page.getByRole("link", { name: "Sign in to memoria" }).click();
  await page.waitForURL(`${world.base}/page/oauth/consent?**`, WAIT);
  await page.locator("h1").waitFor(WAIT);
  // memoria's first answer is /oauth/authorize's continue page (the session cookie is SameSite=Strict and the
  // browser came from another site), which moves on to the consent page from memoria's own origin.
  const authorize = answers.find((a) => a.url.pathname === "/oauth/authorize");
  expect(authorize?.status).toBe(200);
  const consent = answers.find((a) => a.url.pathname === "/page/oauth/consent");
  expect(consent?.status).toBe(200);
  expect(answers.indexOf(authorize as (typeof answers)[number])).toBeLessThan(
    answers.indexOf(consent as (typeof answers)[number]),
  );
  return { answers, consent: consent as (typeof answers)[number] };
}

/**
 * On the consent page: Approve; the browser must reach the client's callback (the consent page's CSP lets the
 * form's redirect go there). The code, after checking what the callback got.
 */
async function approve(world: World, page: Page, provider: MemoryProvider, cspReports: string[]) {
  const reached = world.callback.next();
  await page.getByRole("button", { name: "Approve" }).click();
  const hit = await reached;
  await page.waitForURL(`${world.callback.redirectUri}?**`, WAIT);
  expect(await page.locator("h1").textContent()).toBe("You are signed in; close this tab.");
  expect(cspReports).toEqual([]);
  expect(hit.searchParams.get("state")).toBe(provider.lastState);
  expect(hit.searchParams.get("iss")).toBe(world.base);
  expect(hit.searchParams.get("error")).toBeNull();
  const code = hit.searchParams.get("code") ?? "";
  expect(code).toMatch(new RegExp(`^moc_${world.teamId}_`));
  return code;
}

/** The scopes the consent page's select offers, in its order. */
async function offeredScopes(page: Page): Promise<(string | null)[]> {
  return Promise.all((await page.locator("#grant-scope option").all()).map((o) => o.getAttribute("value")));
}

/** The consent page's CSP sends forms here and to the client's callback origin, nowhere else. */
function expectConsentPolicy(world: World, headers: Record<string, string>) {
  const policy = headers["content-security-policy"] ?? "";
  const formAction = policy
    .split(";")
    .map((d) => d.trim())
    .find((d) => d.startsWith("form-action "));
  expect(formAction).toBe(`form-action 'self' ${world.callback.origin}`);
}

/** POST /mcp with a bearer, outside the SDK: its status. */
async function mcpStatus(world: World, token: string): Promise<number> {
  const res = await fetch(`${world.base}/mcp`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
  });
  await res.body?.cancel();
  return res.status;
}

async function auditActions(world: World): Promise<string[]> {
  const res = await world.app.request("/v1/audit", { token: world.adminKey });
  const body = (await res.json()) as { events: { action: string }[] };
  return body.events.map((e) => e.action);
}

describe("the MCP SDK's client signs a member in, with Chromium approving", () => {
  needs(outside.chromium).it(
    "signs in a member already signed in, calls the tools, refreshes by itself, ends a replayed family, and is disconnected on the Apps page",
    async () => {
      const world = await setUp();
      const { page, cspReports } = await newPage();
      await joinInChromium(world, page, "member", "Mia");

      // 1a, 2: discovery, registration, the URL to Chromium; signed in already, so the consent page.
      const provider = new MemoryProvider(world.callback.redirectUri);
      const { fetch: fetchLike, log } = loggedFetch();
      const first = await firstConnect(world, page, provider, log, fetchLike);
      const { consent } = await followToMemoria(world, page);
      expect(await page.locator("h1").textContent()).toBe(`Let ${CLIENT_NAME} use Acme?`);
      expect(await page.getByText("Your role allows the read scope only").count()).toBe(0);
      expect(await offeredScopes(page)).toEqual(["write", "read"]);
      // 6: the consent page's policy lets the form's redirect go to the client.
      expectConsentPolicy(world, consent.headers);
      const code = await approve(world, page, provider, cspReports);

      await first.finishAuth(code);
      const exchanged = log.at(-1);
      expect(exchanged?.url.pathname).toBe("/oauth/token");
      expect(exchanged?.status).toBe(200);
      expect(exchanged?.form?.get("grant_type")).toBe("authorization_code");
      expect(exchanged?.form?.get("resource")).toBe(`${world.base}/mcp`);
      expect(exchanged?.form?.get("code_verifier")).toBe(provider.verifier);
      expect(provider.stored?.scope).toBe("write");
      expect(provider.stored?.token_type.toLowerCase()).toBe("bearer");
      expect(provider.stored?.access_token).toMatch(new RegExp(`^moa_${world.teamId}_`));
      expect(provider.stored?.refresh_token).toMatch(new RegExp(`^mor_${world.teamId}_`));

      // Connected again with the token: the tools at the member's scope.
      const { transport, client } = sdkClient(world, provider, fetchLike);
      await client.connect(transport);
      const tools = await client.listTools();
      expect(tools.tools.map((t) => t.name).sort()).toEqual(["forget", "memory", "remember", "search"]);
      const searched = await call(client, "search", { q: "deploy" });
      expect(searched.isError, searched.text).toBe(false);
      const remembered = await call(client, "remember", { title: TITLE, type: "decision" });
      expect(remembered.isError, remembered.text).toBe(false);
      const memory = await call(client, "memory", {});
      expect(memory.isError, memory.text).toBe(false);
      expect(memory.text).toContain(TITLE);

      // 3: the access token stops working as an expired one does; the SDK refreshes by itself.
      const before = provider.stored as OAuthTokens;
      const stale = `moa_${world.teamId}_x`;
      provider.stored = { ...before, access_token: stale };
      const mark = log.length;
      const refreshed = await call(client, "memory", {});
      expect(refreshed.isError, refreshed.text).toBe(false);
      expect(refreshed.text).toContain(TITLE);
      const steps = log.slice(mark);
      expect(steps.map((e) => `${e.method} ${e.url.pathname} ${e.status}`)).toEqual(
        expect.arrayContaining(["POST /mcp 401", "POST /oauth/token 200", "POST /mcp 200"]),
      );
      const refreshExchange = steps.find((e) => e.url.pathname === "/oauth/token");
      expect(refreshExchange?.form?.get("grant_type")).toBe("refresh_token");
      expect(refreshExchange?.form?.get("refresh_token")).toBe(before.refresh_token);
      const after = provider.stored as OAuthTokens;
      expect(after.access_token).not.toBe(stale);
      expect(after.access_token).not.toBe(before.access_token);
      expect(after.refresh_token).not.toBe(before.refresh_token);
      expect(after.scope).toBe("write");
      expect(await mcpStatus(world, after.access_token)).toBe(200);

      // The spent refresh token, presented again: refused, and the family it began is ended.
      const replay = await fetch(`${world.base}/oauth/token`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({
          grant_type: "refresh_token",
          refresh_token: before.refresh_token ?? "",
          client_id: provider.information?.client_id ?? "",
          resource: `${world.base}/mcp`,
        }),
      });
      expect(replay.status).toBe(400);
      expect(((await replay.json()) as { error: string }).error).toBe("invalid_grant");
      expect(await mcpStatus(world, after.access_token)).toBe(401);
      expect(await auditActions(world)).toContain("oauth.replayed");

      // The SDK's next call: 401, its refresh refused, so it asks the member again (UnauthorizedError).
      await expect(client.callTool({ name: "memory", arguments: {} })).rejects.toBeInstanceOf(
        UnauthorizedError,
      );
      expect(provider.authorizations).toHaveLength(2);
      expect(provider.invalidated).toContain("tokens");

      // Approved again in the same browser: the client works again.
      await followToMemoria(world, page);
      const again = await approve(world, page, provider, cspReports);
      await transport.finishAuth(again);
      const back = await call(client, "memory", {});
      expect(back.isError, back.text).toBe(false);
      expect(back.text).toContain(TITLE);

      // 4: the member disconnects it on the Apps page; the client's next call is refused.
      await page.goto(`${world.base}/page/apps`);
      const row = page.locator("tbody tr");
      expect(await row.count()).toBe(1);
      expect(await row.locator("td").first().textContent()).toBe(CLIENT_NAME);
      expect(await row.locator("td").nth(1).textContent()).toBe(new URL(world.callback.origin).host);
      expect(await row.locator("td").nth(2).textContent()).toBe("write");
      await row.getByRole("button", { name: "Disconnect" }).click();
      await page.waitForURL(/\/page\/apps\?disconnected=1$/, WAIT);
      expect(await page.getByRole("status").first().textContent()).toContain("The app was disconnected.");
      expect(await page.getByText("No apps are connected.").count()).toBe(1);

      provider.handOff = undefined;
      const lastAccess = provider.stored?.access_token ?? "";
      const beforeRefused = log.length;
      await expect(client.callTool({ name: "memory", arguments: {} })).rejects.toBeInstanceOf(
        UnauthorizedError,
      );
      expect(log.slice(beforeRefused).map((e) => `${e.method} ${e.url.pathname} ${e.status}`)).toEqual(
        expect.arrayContaining(["POST /mcp 401", "POST /oauth/token 400"]),
      );
      expect(provider.authorizations).toHaveLength(3);
      expect(await mcpStatus(world, lastAccess)).toBe(401);
      const listed = await world.app.request("/v1/oauth/clients", { token: world.adminKey });
      expect(listed.status).toBe(200);
      expect(await listed.json()).toEqual({ clients: [] });
      expect(await auditActions(world)).toEqual(
        expect.arrayContaining(["oauth.approved", "oauth.refreshed", "oauth.replayed", "oauth.revoked"]),
      );
    },
    TEST_TIMEOUT,
  );

  needs(outside.chromium).it(
    "shows a member not signed in the sign-in page, and brings them back to the consent page once signed in",
    async () => {
      const world = await setUp();
      const member = await joinAs(world.app, world.adminKey, "member", {
        name: "Noor",
        email: "noor@example.com",
        password: "a long pass phrase of Noor",
      });
      const { context, page, cspReports } = await newPage();

      const provider = new MemoryProvider(world.callback.redirectUri);
      const { fetch: fetchLike, log } = loggedFetch();
      const first = await firstConnect(world, page, provider, log, fetchLike);

      // 1b: the consent page's URL shows the sign-in page, and a cookie remembers where to come back to.
      const answers = documentAnswers(page);
      await page.getByRole("link", { name: "Sign in to memoria" }).click();
      await page.waitForURL(`${world.base}/page/oauth/consent?**`, WAIT);
      await page.getByRole("heading", { name: "Sign in" }).waitFor(WAIT);
      expect(answers.find((a) => a.url.pathname === "/oauth/authorize")?.status).toBe(200);
      // The app's name is its own claim: memoria's sign-in page does not repeat it.
      expect(await page.getByRole("status").first().textContent()).toBe(
        "Sign in to decide whether an app may use your team's memory.",
      );
      const consentUrl = page.url();
      const returning = (await context.cookies(world.base)).find((c) => c.name === "memoria_return");
      expect(returning?.httpOnly).toBe(true);
      expect(decodeURIComponent(returning?.value ?? "")).toBe(
        new URL(consentUrl).pathname + new URL(consentUrl).search,
      );

      // Signed in with email and password there: the browser comes back to the consent page by itself.
      await page.getByLabel("Email").fill(member.email);
      await page.getByLabel("Password", { exact: true }).fill(member.password);
      const consentAnswers = documentAnswers(page);
      await page.getByRole("button", { name: "Sign in", exact: true }).click();
      await page.waitForURL(consentUrl, WAIT);
      await page.getByRole("heading", { name: `Let ${CLIENT_NAME} use Acme?` }).waitFor(WAIT);
      expect((await context.cookies(world.base)).some((c) => c.name === "memoria_return")).toBe(false);
      const consent = consentAnswers.filter((a) => a.url.pathname === "/page/oauth/consent").at(-1);
      expect(consent?.status).toBe(200);
      // 6: its policy lets the form's redirect go to the client, and Chromium gets there.
      expectConsentPolicy(world, consent?.headers ?? {});
      const code = await approve(world, page, provider, cspReports);

      await first.finishAuth(code);
      expect(provider.stored?.scope).toBe("write");
      const { transport, client } = sdkClient(world, provider, fetchLike);
      await client.connect(transport);
      const remembered = await call(client, "remember", { title: TITLE, type: "decision" });
      expect(remembered.isError, remembered.text).toBe(false);
      const memory = await call(client, "memory", {});
      expect(memory.text).toContain(TITLE);
      // The approval is Noor's.
      const listed = (await (
        await world.app.request("/v1/oauth/clients", { token: world.adminKey })
      ).json()) as {
        clients: { name: string; memberId: string; scope: string; clientId: string }[];
      };
      expect(listed.clients).toEqual([
        expect.objectContaining({
          name: CLIENT_NAME,
          memberId: member.memberId,
          scope: "write",
          clientId: provider.information?.client_id,
        }),
      ]);
    },
    TEST_TIMEOUT,
  );

  needs(outside.chromium).it(
    "tells a reader whose client asks for read and write that their role allows read, and the token cannot remember",
    async () => {
      const world = await setUp();
      const { page, cspReports } = await newPage();
      await joinInChromium(world, page, "reader", "Rui");

      const provider = new MemoryProvider(world.callback.redirectUri);
      const { fetch: fetchLike, log } = loggedFetch();
      const first = await firstConnect(world, page, provider, log, fetchLike);
      expect(provider.authorizations[0]?.searchParams.get("scope")).toBe("read write");
      const { consent } = await followToMemoria(world, page);
      expect(await page.locator("h1").textContent()).toBe(`Let ${CLIENT_NAME} use Acme?`);
      expect(await page.getByRole("status").first().textContent()).toContain(
        "Your role allows the read scope only, so that is what the app can have.",
      );
      expect(await offeredScopes(page)).toEqual(["read"]);
      expectConsentPolicy(world, consent.headers);
      const code = await approve(world, page, provider, cspReports);

      await first.finishAuth(code);
      expect(provider.stored?.scope).toBe("read");
      const { transport, client } = sdkClient(world, provider, fetchLike);
      await client.connect(transport);
      const searched = await call(client, "search", { q: "deploy" });
      expect(searched.isError, searched.text).toBe(false);
      const remembered = await call(client, "remember", { title: TITLE, type: "decision" });
      expect(remembered.isError).toBe(true);
      expect(remembered.text).toContain("write");
      const memory = await call(client, "memory", {});
      expect(memory.isError, memory.text).toBe(false);
      expect(memory.text).not.toContain(TITLE);
    },
    TEST_TIMEOUT,
  );

  needs(outside.chromium).it(
    "is refused the redirect to the client by Chromium where the consent page's policy would not name it (the control for the check above)",
    async () => {
      const world = await setUp();
      const { page } = await newPage();
      await joinInChromium(world, page, "member", "Ola");
      const provider = new MemoryProvider(world.callback.redirectUri);
      const { fetch: fetchLike, log } = loggedFetch();
      await firstConnect(world, page, provider, log, fetchLike);
      // The consent page as memoria would serve it with the page's own policy (forms post only to itself).
      await page.route(`${world.base}/page/oauth/consent?**`, async (route) => {
        const response = await route.fetch();
        const headers = response.headers();
        headers["content-security-policy"] = (headers["content-security-policy"] ?? "").replace(
          `form-action 'self' ${world.callback.origin}`,
          "form-action 'self'",
        );
        await route.fulfill({ response, headers });
      });
      await followToMemoria(world, page);
      const refused = page.waitForEvent("console", {
        predicate: (message) => /Content Security Policy/i.test(message.text()),
        ...WAIT,
      });
      await page.getByRole("button", { name: "Approve" }).click();
      expect((await refused).text()).toContain("form-action");
      expect(world.callback.hits).toEqual([]);
      expect(page.url().startsWith(world.callback.origin)).toBe(false);
    },
    TEST_TIMEOUT,
  );
});
