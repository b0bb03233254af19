// An MCP client signing a member in through memoria's authorization server, step by step as the protocol goes:
// registration, the authorization request, the member's consent in their browser (the page's own forms), the
// code's exchange, refreshes. Each step answers what the server answered, so a test can also take one wrong.

import { createHash, randomBytes } from "node:crypto";
import { expect } from "vitest";
import type { PageClient } from "../page/browser-client.js";
import type { TestApp } from "./app.js";

/** The resource and issuer of an app answered in process (app.request's host is localhost). */
export const RESOURCE = "http://localhost/mcp";
export const ISSUER = "http://localhost";
export const REDIRECT_URI = "https://client.example/callback";

export interface Pkce {
  verifier: string;
  challenge: string;
}

export function pkce(): Pkce {
  const verifier = randomBytes(32).toString("base64url");
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") };
}

export interface Registered {
  clientId: string;
  clientSecret?: string;
}

/** Registers a client (RFC 7591) and answers its id (and secret, when it asked for one). */
export async function register(
  app: TestApp,
  body: Record<string, unknown> = {
    redirect_uris: [REDIRECT_URI],
    client_name: "Test Agent",
    token_endpoint_auth_method: "none",
  },
): Promise<Registered> {
  const res = await app.request("/oauth/register", { method: "POST", json: body });
  expect(res.status, await res.clone().text()).toBe(201);
  const answer = (await res.json()) as { client_id: string; client_secret?: string };
  return {
    clientId: answer.client_id,
    ...(answer.client_secret ? { clientSecret: answer.client_secret } : {}),
  };
}

export interface AuthorizationInput {
  clientId: string;
  redirectUri?: string;
  challenge: string;
  scope?: string;
  state?: string;
  resource?: string | null;
}

/** The query of an authorization request, as a client builds it. */
export function authorizationQuery(input: AuthorizationInput): URLSearchParams {
  const query = new URLSearchParams({
    response_type: "code",
    client_id: input.clientId,
    redirect_uri: input.redirectUri ?? REDIRECT_URI,
    code_challenge: input.challenge,
    code_challenge_method: "S256",
    state: input.state ?? "state-1",
  });
  if (input.scope !== undefined) query.set("scope", input.scope);
  if (input.resource !== null) query.set("resource", input.resource ?? RESOURCE);
  return query;
}

/** The consent page's form fields, read out of its HTML. */
export function consentFields(html: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const match of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g)) {
    const [, name = "", value = ""] = match;
    fields[name] = value.replaceAll("&amp;", "&").replaceAll("&quot;", '"').replaceAll("&#39;", "'");
  }
  return fields;
}

/**
 * The member's browser opens the consent page for a request and answers it (`approve` or `deny`, at
 * `grantScope` if given): the answer's redirect, to the client.
 */
export async function consent(
  browser: PageClient,
  input: AuthorizationInput,
  decision: "approve" | "deny" = "approve",
  grantScope?: string,
): Promise<Response> {
  const page = await browser.get(`/page/oauth/consent?${authorizationQuery(input)}`);
  expect(page.status, await page.clone().text()).toBe(200);
  const fields = consentFields(await page.text());
  expect(fields.csrf).toBeTruthy();
  const body = new URLSearchParams({ ...fields, decision });
  if (grantScope !== undefined) body.set("grant_scope", grantScope);
  return browser.post("/page/oauth/consent", body);
}

/** The code a consent's redirect carries, after checking where it goes and what it says. */
export function codeOf(res: Response, state = "state-1"): string {
  expect(res.status, res.headers.get("location") ?? "").toBe(303);
  const location = new URL(res.headers.get("location") ?? "");
  expect(`${location.origin}${location.pathname}`).toBe(REDIRECT_URI);
  expect(location.searchParams.get("state")).toBe(state);
  expect(location.searchParams.get("iss")).toBe(ISSUER);
  const code = location.searchParams.get("code");
  expect(code).toBeTruthy();
  return code ?? "";
}

export interface Tokens {
  access_token: string;
  refresh_token: string;
  token_type: string;
  expires_in: number;
  scope: string;
}

/** POST /oauth/token with a form, as a client sends it. */
export function tokenRequest(
  app: TestApp,
  fields: Record<string, string>,
  headers: Record<string, string> = {},
) {
  return app.memoria.app.request("/oauth/token", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
    body: new URLSearchParams(fields),
  });
}

/** A code's exchange as a public client sends it: the token request alone, its answer unread. */
export function codeRequest(app: TestApp, clientId: string, code: string, verifier: string) {
  return tokenRequest(app, {
    grant_type: "authorization_code",
    code,
    code_verifier: verifier,
    client_id: clientId,
    redirect_uri: REDIRECT_URI,
    resource: RESOURCE,
  });
}

export async function exchange(
  app: TestApp,
  clientId: string,
  code: string,
  verifier: string,
): Promise<Tokens> {
  const res = await codeRequest(app, clientId, code, verifier);
  expect(res.status, await res.clone().text()).toBe(200);
  return (await res.json()) as Tokens;
}

export function refreshRequest(app: TestApp, clientId: string, refreshToken: string) {
  return tokenRequest(app, {
    grant_type: "refresh_token",
    refresh_token: refreshToken,
    client_id: clientId,
    resource: RESOURCE,
  });
}

/** A whole sign-in: a code approved by the member's browser, exchanged; the tokens. */
export async function signIn(
  app: TestApp,
  browser: PageClient,
  clientId: string,
  options: { scope?: string; grantScope?: string } = {},
): Promise<Tokens> {
  const { verifier, challenge } = pkce();
  const res = await consent(
    browser,
    { clientId, challenge, scope: options.scope ?? "write" },
    "approve",
    options.grantScope,
  );
  return exchange(app, clientId, codeOf(res), verifier);
}

/** A JSON-RPC call to /mcp with a bearer, as an MCP client sends one. */
export function mcpCall(app: TestApp, token: string, method: string, params: Record<string, unknown> = {}) {
  return app.memoria.app.request("/mcp", {
    method: "POST",
    headers: {
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
}

/** A tool's result through /mcp: its text and whether it is an error. */
export async function callTool(
  app: TestApp,
  token: string,
  name: string,
  args: Record<string, unknown>,
): Promise<{ status: number; isError: boolean; text: string }> {
  const res = await mcpCall(app, token, "tools/call", { name, arguments: args });
  if (res.status !== 200) return { status: res.status, isError: true, text: await res.text() };
  const body = (await res.json()) as { result?: { isError?: boolean; content?: { text: string }[] } };
  return {
    status: res.status,
    isError: body.result?.isError === true,
    text: body.result?.content?.map((part) => part.text).join("\n") ?? "",
  };
}
