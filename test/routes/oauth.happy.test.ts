// MCP clients that sign in, the way it should go: metadata that points the way, a client registered, a member's
// consent, a code exchanged with PKCE, tools called with the token at the member's scope, refreshes that rotate,
// approvals listed and revoked, and each step in the audit trail.

import { afterEach, describe, expect, it } from "vitest";
import { buildTestApp, makeTeam, type TestApp } from "../support/app.js";
import { joinAs } from "../support/members.js";
import {
  callTool,
  codeOf,
  consent,
  exchange,
  ISSUER,
  pkce,
  REDIRECT_URI,
  RESOURCE,
  refreshRequest,
  register,
  signIn,
  type Tokens,
} from "../support/oauth.js";

let app: TestApp;
afterEach(() => app?.close());

async function setUp() {
  app = await buildTestApp();
  const team = await makeTeam(app);
  return { team, adminKey: team.apiKey };
}

describe("discovery", () => {
  it("answers /mcp without a credential with a 401 naming the protected resource metadata and the scopes", async () => {
    app = await buildTestApp();
    const res = await app.memoria.app.request("/mcp", {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toBe(
      `Bearer resource_metadata="${ISSUER}/.well-known/oauth-protected-resource/mcp", scope="read write"`,
    );
  });

  it("keeps the bare Bearer challenge on the API's other 401s", async () => {
    app = await buildTestApp();
    const res = await app.request("/v1/search?q=x");
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toBe("Bearer");
  });

  it("serves protected resource metadata naming this instance as its authorization server, at both paths", async () => {
    app = await buildTestApp();
    for (const path of [
      "/.well-known/oauth-protected-resource/mcp",
      "/.well-known/oauth-protected-resource",
    ]) {
      const res = await app.request(path);
      expect(res.status).toBe(200);
      expect(res.headers.get("access-control-allow-origin")).toBe("*");
      const body = (await res.json()) as Record<string, unknown>;
      expect(body.resource).toBe(RESOURCE);
      expect(body.authorization_servers).toEqual([ISSUER]);
      expect(body.scopes_supported).toEqual(["read", "write"]);
    }
  });

  it("serves authorization server metadata with S256 only, both client kinds, and the issuer without a path", async () => {
    app = await buildTestApp();
    const res = await app.request("/.well-known/oauth-authorization-server");
    const body = (await res.json()) as Record<string, unknown>;
    expect(body.issuer).toBe(ISSUER);
    expect(body.authorization_endpoint).toBe(`${ISSUER}/oauth/authorize`);
    expect(body.token_endpoint).toBe(`${ISSUER}/oauth/token`);
    expect(body.registration_endpoint).toBe(`${ISSUER}/oauth/register`);
    expect(body.revocation_endpoint).toBe(`${ISSUER}/oauth/revoke`);
    expect(body.code_challenge_methods_supported).toEqual(["S256"]);
    expect(body.response_types_supported).toEqual(["code"]);
    expect(body.client_id_metadata_document_supported).toBe(true);
    expect(body.token_endpoint_auth_methods_supported).toContain("none");
    expect(body.authorization_response_iss_parameter_supported).toBe(true);
  });

  it("answers a CORS preflight on the token endpoint for a browser-based client", async () => {
    app = await buildTestApp();
    const res = await app.memoria.app.request("/oauth/token", {
      method: "OPTIONS",
      headers: {
        origin: "http://localhost:6274",
        "access-control-request-method": "POST",
        "access-control-request-headers": "content-type",
      },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
  });
});

describe("signing a member in", () => {
  it("issues a code on consent and tokens for it that call the tools at the member's role", async () => {
    const { adminKey } = await setUp();
    const member = await joinAs(app, adminKey, "member");
    const { clientId } = await register(app);
    const tokens = await signIn(app, member.browser, clientId);
    expect(tokens.token_type).toBe("Bearer");
    expect(tokens.expires_in).toBe(3600);
    expect(tokens.scope).toBe("write");
    expect(tokens.access_token).toMatch(/^moa_t[a-z2-7]{16}_/);
    expect(tokens.refresh_token).toMatch(/^mor_t[a-z2-7]{16}_/);

    const remembered = await callTool(app, tokens.access_token, "remember", {
      title: "We deploy on Tuesdays.",
      type: "decision",
    });
    expect(remembered.isError, remembered.text).toBe(false);
    const found = await callTool(app, tokens.access_token, "memory", { budget: 500 });
    expect(found.text).toContain("We deploy on Tuesdays.");
    const forget = await callTool(app, tokens.access_token, "forget", { id: "e0000000000000000" });
    expect(forget.isError).toBe(true);
    expect(forget.text).toContain("admin");
  });

  it("gives a reader who is asked for write only read, and the token cannot remember", async () => {
    const { adminKey } = await setUp();
    const reader = await joinAs(app, adminKey, "reader");
    const { clientId } = await register(app);
    const tokens = await signIn(app, reader.browser, clientId, { scope: "read write" });
    expect(tokens.scope).toBe("read");
    const search = await callTool(app, tokens.access_token, "search", { q: "anything" });
    expect(search.isError, search.text).toBe(false);
    const remember = await callTool(app, tokens.access_token, "remember", { title: "x", type: "decision" });
    expect(remember.isError).toBe(true);
    expect(remember.text).toContain("write");
  });

  it("lets a member approve less than was asked", async () => {
    const { adminKey } = await setUp();
    const member = await joinAs(app, adminKey, "member");
    const { clientId } = await register(app);
    const tokens = await signIn(app, member.browser, clientId, { scope: "write", grantScope: "read" });
    expect(tokens.scope).toBe("read");
  });

  it("sends a denial back to the client as access_denied with its state", async () => {
    const { adminKey } = await setUp();
    const member = await joinAs(app, adminKey, "member");
    const { clientId } = await register(app);
    const res = await consent(member.browser, { clientId, challenge: pkce().challenge }, "deny");
    expect(res.status).toBe(303);
    const location = new URL(res.headers.get("location") ?? "");
    expect(`${location.origin}${location.pathname}`).toBe(REDIRECT_URI);
    expect(location.searchParams.get("error")).toBe("access_denied");
    expect(location.searchParams.get("state")).toBe("state-1");
    expect(location.searchParams.get("code")).toBeNull();
  });

  it("works for a confidential client that authenticates with HTTP Basic", async () => {
    const { adminKey } = await setUp();
    const member = await joinAs(app, adminKey, "member");
    const { clientId, clientSecret } = await register(app, {
      redirect_uris: [REDIRECT_URI],
      client_name: "Hosted Agent",
      token_endpoint_auth_method: "client_secret_basic",
    });
    expect(clientSecret).toBeTruthy();
    const { verifier, challenge } = pkce();
    const code = codeOf(await consent(member.browser, { clientId, challenge }));
    const basic = Buffer.from(
      `${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret ?? "")}`,
    ).toString("base64");
    const res = await app.memoria.app.request("/oauth/token", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", authorization: `Basic ${basic}` },
      body: new URLSearchParams({
        grant_type: "authorization_code",
        code,
        code_verifier: verifier,
        redirect_uri: REDIRECT_URI,
        resource: RESOURCE,
      }),
    });
    expect(res.status, await res.clone().text()).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
  });
});

describe("refreshing", () => {
  it("rotates the refresh token on every use, and each new access token works", async () => {
    const { adminKey } = await setUp();
    const member = await joinAs(app, adminKey, "member");
    const { clientId } = await register(app);
    let tokens: Tokens = await signIn(app, member.browser, clientId);
    for (let i = 0; i < 3; i++) {
      const res = await refreshRequest(app, clientId, tokens.refresh_token);
      expect(res.status, await res.clone().text()).toBe(200);
      const next = (await res.json()) as Tokens;
      expect(next.refresh_token).not.toBe(tokens.refresh_token);
      expect(next.access_token).not.toBe(tokens.access_token);
      tokens = next;
      const search = await callTool(app, tokens.access_token, "search", { q: "x" });
      expect(search.isError, search.text).toBe(false);
    }
  });
});

describe("approvals", () => {
  it("lists one approval per member and client, renewed by a second sign-in, and revokes it at once", async () => {
    const { adminKey } = await setUp();
    const member = await joinAs(app, adminKey, "member");
    const { clientId } = await register(app);
    const first = await signIn(app, member.browser, clientId);
    const second = await signIn(app, member.browser, clientId);
    const list = await app.request("/v1/oauth/clients", { token: adminKey });
    expect(list.status).toBe(200);
    const { clients } = (await list.json()) as { clients: { id: string; name: string; memberId: string }[] };
    expect(clients).toHaveLength(1);
    expect(clients[0]?.name).toBe("Test Agent");
    expect(clients[0]?.memberId).toBe(member.memberId);

    const revoked = await app.request(`/v1/oauth/clients/${clients[0]?.id}`, {
      method: "DELETE",
      token: adminKey,
    });
    expect(revoked.status).toBe(204);
    for (const tokens of [first, second]) {
      expect((await callTool(app, tokens.access_token, "search", { q: "x" })).status).toBe(401);
      expect((await refreshRequest(app, clientId, tokens.refresh_token)).status).toBe(400);
    }
    const again = await app.request(`/v1/oauth/clients/${clients[0]?.id}`, {
      method: "DELETE",
      token: adminKey,
    });
    expect(again.status).toBe(404);
  });

  it("records approvals, refreshes, the client's changes and revocations in the audit trail, named by the client", async () => {
    const { adminKey } = await setUp();
    const member = await joinAs(app, adminKey, "member");
    const { clientId } = await register(app);
    const tokens = await signIn(app, member.browser, clientId);
    await callTool(app, tokens.access_token, "remember", { title: "Audit me.", type: "decision" });
    const refreshed = (await (await refreshRequest(app, clientId, tokens.refresh_token)).json()) as Tokens;
    expect(refreshed.access_token).toBeTruthy();
    const { clients } = (await (await app.request("/v1/oauth/clients", { token: adminKey })).json()) as {
      clients: { id: string }[];
    };
    const grantId = clients[0]?.id ?? "";
    await app.request(`/v1/oauth/clients/${grantId}`, { method: "DELETE", token: adminKey });
    const trail = (await (await app.request("/v1/audit", { token: adminKey })).json()) as {
      events: {
        action: string;
        actor: { kind: string; id: string; name: string | null };
        target?: { id: string };
      }[];
    };
    const actions = trail.events.map((e) => `${e.actor.kind}:${e.action}`);
    expect(actions).toEqual(
      expect.arrayContaining([
        "member:oauth.approved",
        "oauth:entry.remembered",
        "oauth:oauth.refreshed",
        "key:oauth.revoked",
      ]),
    );
    const remembered = trail.events.find((e) => e.action === "entry.remembered");
    expect(remembered?.actor).toEqual({ kind: "oauth", id: grantId, name: "Test Agent" });
    expect(trail.events.find((e) => e.action === "oauth.approved")?.target?.id).toBe(grantId);
  });

  it("ends access at once when the member is removed", async () => {
    const { adminKey } = await setUp();
    const member = await joinAs(app, adminKey, "member");
    const { clientId } = await register(app);
    const tokens = await signIn(app, member.browser, clientId);
    expect((await callTool(app, tokens.access_token, "search", { q: "x" })).isError).toBe(false);
    const removed = await app.request(`/v1/members/${member.memberId}`, {
      method: "DELETE",
      token: adminKey,
    });
    expect(removed.status).toBe(204);
    expect((await callTool(app, tokens.access_token, "search", { q: "x" })).status).toBe(401);
    expect((await refreshRequest(app, clientId, tokens.refresh_token)).status).toBe(400);
    const { clients } = (await (await app.request("/v1/oauth/clients", { token: adminKey })).json()) as {
      clients: unknown[];
    };
    expect(clients).toEqual([]);
  });

  it("caps a token at the member's role now: a member made reader can no longer remember", async () => {
    const { adminKey } = await setUp();
    const member = await joinAs(app, adminKey, "member");
    const { clientId } = await register(app);
    const tokens = await signIn(app, member.browser, clientId);
    const changed = await app.request(`/v1/members/${member.memberId}`, {
      method: "PATCH",
      token: adminKey,
      json: { role: "reader" },
    });
    expect(changed.status).toBe(204);
    const remember = await callTool(app, tokens.access_token, "remember", { title: "x", type: "decision" });
    expect(remember.isError).toBe(true);
    expect((await callTool(app, tokens.access_token, "search", { q: "x" })).isError).toBe(false);
  });

  it("keeps team keys working on /mcp beside tokens", async () => {
    const { adminKey } = await setUp();
    const search = await callTool(app, adminKey, "search", { q: "x" });
    expect(search.isError, search.text).toBe(false);
  });

  it("exchanges a code for the pair the first time", async () => {
    const { adminKey } = await setUp();
    const member = await joinAs(app, adminKey, "member");
    const { clientId } = await register(app);
    const { verifier, challenge } = pkce();
    const code = codeOf(await consent(member.browser, { clientId, challenge }));
    const tokens = await exchange(app, clientId, code, verifier);
    expect(tokens.access_token).toBeTruthy();
  });
});
