// MCP clients that sign in, the hostile way: a wrong resource, PKCE that does not match, a code or refresh token
// replayed, redirect URIs nobody registered, forged client ids, cross-site consent, a member revoking another's
// app, tokens of another host, expired tokens. Each is refused in OAuth's own words, issues nothing, and where
// a spent credential comes back, ends what it started.

import { afterEach, describe, expect, it } from "vitest";
import { PageClient } from "../page/browser-client.js";
import { buildTestApp, makeTeam, type TestApp } from "../support/app.js";
import { joinAs } from "../support/members.js";
import {
  authorizationQuery,
  callTool,
  codeOf,
  codeRequest,
  consent,
  consentFields,
  exchange,
  pkce,
  REDIRECT_URI,
  RESOURCE,
  refreshRequest,
  register,
  signIn,
  type Tokens,
  tokenRequest,
} from "../support/oauth.js";

let app: TestApp;
afterEach(() => app?.close());

async function withMember(
  role: "member" | "reader" = "member",
  options: Parameters<typeof buildTestApp>[0] = {},
) {
  app = await buildTestApp(options);
  const { apiKey } = await makeTeam(app);
  const member = await joinAs(app, apiKey, role);
  const { clientId } = await register(app);
  return { adminKey: apiKey, member, clientId };
}

async function oauthError(res: Response, status: number, error: string) {
  expect(res.status, await res.clone().text()).toBe(status);
  const body = (await res.json()) as { error: string; error_description?: string };
  expect(body.error).toBe(error);
  return body;
}

describe("the authorization request", () => {
  it("shows a page, never a redirect, for a redirect URI the client did not register (no open redirect)", async () => {
    const { member, clientId } = await withMember();
    for (const redirectUri of [
      "https://evil.example/callback",
      `${REDIRECT_URI}/../steal`,
      `${REDIRECT_URI}?x=1`,
      "https://client.example.evil.example/callback",
      "https://client.example@evil.example/callback",
      "javascript:alert(1)",
    ]) {
      const query = authorizationQuery({ clientId, challenge: pkce().challenge, redirectUri });
      const res = await member.browser.get(`/page/oauth/consent?${query}`);
      expect(res.status, redirectUri).toBe(400);
      expect(res.headers.get("location")).toBeNull();
      expect(await res.text()).toContain("not one this client registered");
    }
  });

  it("shows a page for an unknown or altered client id", async () => {
    const { member, clientId } = await withMember();
    const altered = `${clientId.slice(0, -4)}${clientId.endsWith("AAAA") ? "BBBB" : "AAAA"}`;
    for (const id of [altered, "mcl_", "not-a-client", "https://127.0.0.1/client.json"]) {
      const res = await member.browser.get(
        `/page/oauth/consent?${authorizationQuery({ clientId: id, challenge: pkce().challenge })}`,
      );
      expect(res.status, id).toBe(400);
      expect(res.headers.get("location")).toBeNull();
    }
  });

  it("shows a missing or wrong resource, a missing or plain challenge as a page, never a redirect to the client", async () => {
    const { member, clientId } = await withMember();
    const { challenge } = pkce();
    const cases: [string, URLSearchParams, string][] = [
      [
        "wrong resource",
        authorizationQuery({ clientId, challenge, resource: "https://other.example/mcp" }),
        "invalid_target",
      ],
      ["no resource", authorizationQuery({ clientId, challenge, resource: null }), "invalid_target"],
      [
        "no challenge",
        (() => {
          const q = authorizationQuery({ clientId, challenge });
          q.delete("code_challenge");
          return q;
        })(),
        "invalid_request",
      ],
      [
        "plain PKCE",
        (() => {
          const q = authorizationQuery({ clientId, challenge });
          q.set("code_challenge_method", "plain");
          return q;
        })(),
        "invalid_request",
      ],
      [
        "no method",
        (() => {
          const q = authorizationQuery({ clientId, challenge });
          q.delete("code_challenge_method");
          return q;
        })(),
        "invalid_request",
      ],
      [
        "token response",
        (() => {
          const q = authorizationQuery({ clientId, challenge });
          q.set("response_type", "token");
          return q;
        })(),
        "unsupported_response_type",
      ],
    ];
    // A client registered by anyone may name any redirect URI: a refusal sent there unasked would make this
    // instance an open redirect to it.
    for (const [name, query, error] of cases) {
      for (const path of ["/page/oauth/consent", "/oauth/authorize"]) {
        const res = await member.browser.get(`${path}?${query}`);
        expect(res.status, `${name} at ${path}`).toBe(400);
        expect(res.headers.get("location")).toBeNull();
        expect(await res.text()).toContain(`(${error})`);
      }
    }
  });

  it("refuses a consent form sent from another site, or without the session's CSRF token, and issues nothing", async () => {
    const { adminKey, member, clientId } = await withMember();
    const query = authorizationQuery({ clientId, challenge: pkce().challenge });
    const fields = consentFields(await (await member.browser.get(`/page/oauth/consent?${query}`)).text());
    const approve = new URLSearchParams({ ...fields, decision: "approve" });
    const crossSite = await member.browser.post("/page/oauth/consent", approve, {
      origin: "https://evil.example",
    });
    expect(crossSite.status).toBe(403);
    const noCsrf = new URLSearchParams(approve);
    noCsrf.delete("csrf");
    expect((await member.browser.post("/page/oauth/consent", noCsrf)).status).toBe(403);
    const forged = new URLSearchParams(approve);
    forged.set("csrf", "0".repeat(64));
    expect((await member.browser.post("/page/oauth/consent", forged)).status).toBe(403);
    const list = (await (await app.request("/v1/oauth/clients", { token: adminKey })).json()) as {
      clients: unknown[];
    };
    expect(list.clients).toEqual([]);
  });

  it("will not approve with a tampered scope or redirect in the consent form", async () => {
    const { adminKey, member, clientId } = await withMember("reader");
    const query = authorizationQuery({ clientId, challenge: pkce().challenge, scope: "write" });
    const fields = consentFields(await (await member.browser.get(`/page/oauth/consent?${query}`)).text());
    const tampered = new URLSearchParams({ ...fields, decision: "approve", grant_scope: "write" });
    const res = await member.browser.post("/page/oauth/consent", tampered);
    const code = codeOf(res);
    expect(code).toBeTruthy();
    // The reader's approval is read however the form was filled in.
    const list = (await (await app.request("/v1/oauth/clients", { token: adminKey })).json()) as {
      clients: { scope: string }[];
    };
    expect(list.clients.map((c) => c.scope)).toEqual(["read"]);
    const moved = new URLSearchParams({
      ...fields,
      decision: "approve",
      redirect_uri: "https://evil.example/cb",
    });
    const refused = await member.browser.post("/page/oauth/consent", moved);
    expect(refused.status).toBe(400);
    expect(refused.headers.get("location")).toBeNull();
  });

  it("keeps one approval when a member approves the same app twice at once", async () => {
    const { adminKey, member, clientId } = await withMember();
    const answers = await Promise.all(
      [1, 2].map(() => consent(member.browser, { clientId, challenge: pkce().challenge })),
    );
    for (const res of answers) codeOf(res);
    const { clients } = (await (await app.request("/v1/oauth/clients", { token: adminKey })).json()) as {
      clients: unknown[];
    };
    expect(clients).toHaveLength(1);
  });

  it("refuses a state longer than a client needs", async () => {
    const { member, clientId } = await withMember();
    const query = authorizationQuery({ clientId, challenge: pkce().challenge, state: "s".repeat(513) });
    const res = await member.browser.get(`/page/oauth/consent?${query}`);
    expect(res.status).toBe(400);
    expect(res.headers.get("location")).toBeNull();
  });

  it("asks a person signed in with a team key to sign in as themselves", async () => {
    const { adminKey, clientId } = await withMember();
    const browser = new PageClient(app);
    expect((await browser.signIn(adminKey)).status).toBe(303);
    const res = await browser.get(
      `/page/oauth/consent?${authorizationQuery({ clientId, challenge: pkce().challenge })}`,
    );
    expect(res.status).toBe(403);
    expect(await res.text()).toContain("Sign in as yourself");
  });

  it("shows the sign-in page to a person not signed in, and brings them back to the consent page after", async () => {
    const { member, clientId } = await withMember();
    const query = authorizationQuery({ clientId, challenge: pkce().challenge });
    const first = await app.memoria.app.request(`/oauth/authorize?${query}`);
    expect(first.status).toBe(200);
    expect(await first.text()).toContain(`url=/page/oauth/consent?`);
    const signedOut = await app.memoria.app.request(`/page/oauth/consent?${query}`);
    expect(signedOut.status).toBe(200);
    const signInPage = await signedOut.text();
    expect(signInPage).toContain("Sign in to decide whether an app may use your team");
    // The app's name is its own claim: memoria's sign-in page does not repeat it.
    expect(signInPage).not.toContain("Test Agent");
    const returnCookie = signedOut.headers
      .getSetCookie()
      .find((line) => line.startsWith("memoria_return="))
      ?.split(";")[0];
    expect(returnCookie).toBeTruthy();
    // Signed in (the member's session), the start page sends them back to where they were going.
    const home = await app.memoria.app.request("/", {
      headers: { cookie: `memoria_session=${member.browser.cookie}; ${returnCookie}` },
    });
    expect(home.status).toBe(303);
    const back = new URL(home.headers.get("location") ?? "", "http://localhost");
    expect(back.pathname).toBe("/page/oauth/consent");
    expect(Object.fromEntries(back.searchParams)).toEqual(Object.fromEntries(query));
    // A return cookie naming anything else is ignored.
    const elsewhere = await app.memoria.app.request("/", {
      headers: { cookie: `memoria_session=${member.browser.cookie}; memoria_return=https://evil.example/` },
    });
    expect(elsewhere.status).toBe(200);
  });
});

describe("what the consent page says", () => {
  it("names an app's own scheme as an app on this device, never the host it wrote after the scheme", async () => {
    app = await buildTestApp();
    const { apiKey } = await makeTeam(app);
    const member = await joinAs(app, apiKey, "member");
    const spoof = "com.evil://claude.ai/api/mcp/auth_callback";
    const { clientId } = await register(app, {
      redirect_uris: [spoof],
      client_name: "Claude",
      token_endpoint_auth_method: "none",
    });
    const page = await member.browser.get(
      `/page/oauth/consent?${authorizationQuery({ clientId, challenge: pkce().challenge, redirectUri: spoof })}`,
    );
    const html = await page.text();
    expect(html).toContain("an app on this device (com.evil:)");
    expect(html).not.toContain("<strong>claude.ai</strong>");
    expect(html).toContain("its name is its own claim");
  });

  it("takes a resource with one trailing slash, as some clients send it", async () => {
    const { member, clientId } = await withMember();
    const res = await consent(member.browser, {
      clientId,
      challenge: pkce().challenge,
      resource: `${RESOURCE}/`,
    });
    expect(res.status).toBe(303);
  });

  it("ignores a planted plain return cookie over HTTPS, and clears it", async () => {
    const { member, clientId } = await withMember();
    const query = authorizationQuery({ clientId, challenge: pkce().challenge });
    const home = await app.memoria.app.request("/", {
      headers: {
        "x-forwarded-proto": "https",
        cookie: `memoria_session=${member.browser.cookie}; memoria_return=/page/oauth/consent?${query}`,
      },
    });
    expect(home.status).toBe(200);
    expect(home.headers.getSetCookie().some((line) => /^memoria_return=;/.test(line))).toBe(true);
  });
});

describe("the token endpoint", () => {
  it("refuses a verifier that does not match, a missing one, and a wrong resource, issuing nothing", async () => {
    const { member, clientId } = await withMember();
    const { verifier, challenge } = pkce();
    const code = codeOf(await consent(member.browser, { clientId, challenge }));
    const base = {
      grant_type: "authorization_code",
      code,
      client_id: clientId,
      redirect_uri: REDIRECT_URI,
      resource: RESOURCE,
    };
    await oauthError(
      await tokenRequest(app, { ...base, code_verifier: pkce().verifier }),
      400,
      "invalid_grant",
    );
    await oauthError(await tokenRequest(app, { ...base, code_verifier: "" }), 400, "invalid_request");
    await oauthError(
      await tokenRequest(app, { ...base, code_verifier: verifier, resource: "https://other.example/mcp" }),
      400,
      "invalid_target",
    );
    await oauthError(
      await tokenRequest(app, {
        ...base,
        code_verifier: verifier,
        redirect_uri: "https://client.example/other",
      }),
      400,
      "invalid_grant",
    );
    // None of those spent the code: the right request still gets its tokens.
    expect((await exchange(app, clientId, code, verifier)).access_token).toBeTruthy();
  });

  it("ends every token a code issued when the code comes back", async () => {
    const { member, clientId } = await withMember();
    const { verifier, challenge } = pkce();
    const code = codeOf(await consent(member.browser, { clientId, challenge }));
    const tokens = await exchange(app, clientId, code, verifier);
    const replay = await codeRequest(app, clientId, code, verifier);
    await oauthError(replay, 400, "invalid_grant");
    expect((await callTool(app, tokens.access_token, "search", { q: "x" })).status).toBe(401);
    await oauthError(await refreshRequest(app, clientId, tokens.refresh_token), 400, "invalid_grant");
  });

  it("knows a spent code as spent long after its minute, past a sweep of expired rows, and ends its family", async () => {
    let now = Date.parse("2026-12-07T00:00:00Z");
    const { member, clientId } = await withMember("member", { clock: { now: () => new Date(now) } });
    const { verifier, challenge } = pkce();
    const code = codeOf(await consent(member.browser, { clientId, challenge }));
    const tokens = await exchange(app, clientId, code, verifier);
    // Twenty minutes on: the code's own minute is long past, and a refresh sets off a sweep of expired rows.
    now += 20 * 60 * 1000;
    const refreshed = (await (await refreshRequest(app, clientId, tokens.refresh_token)).json()) as Tokens;
    expect(refreshed.access_token).toBeTruthy();
    await new Promise((resolve) => setTimeout(resolve, 50));
    const replay = await codeRequest(app, clientId, code, verifier);
    await oauthError(replay, 400, "invalid_grant");
    expect((await callTool(app, refreshed.access_token, "search", { q: "x" })).status).toBe(401);
  });

  it("takes scopes it does not know on a refresh of a read approval, refusing only a wider one", async () => {
    const { member, clientId } = await withMember("reader");
    const tokens = await signIn(app, member.browser, clientId);
    expect(tokens.scope).toBe("read");
    const plain = await tokenRequest(app, {
      grant_type: "refresh_token",
      refresh_token: tokens.refresh_token,
      client_id: clientId,
      scope: "offline_access",
    });
    expect(plain.status, await plain.clone().text()).toBe(200);
    const next = (await plain.json()) as Tokens;
    const wider = await tokenRequest(app, {
      grant_type: "refresh_token",
      refresh_token: next.refresh_token,
      client_id: clientId,
      scope: "read write",
    });
    await oauthError(wider, 400, "invalid_scope");
  });

  it("lets one of three racing exchanges of a code win, and then ends what it issued", async () => {
    const { member, clientId } = await withMember();
    const { verifier, challenge } = pkce();
    const code = codeOf(await consent(member.browser, { clientId, challenge }));
    const answers = await Promise.all([1, 2, 3].map(() => codeRequest(app, clientId, code, verifier)));
    const won = answers.filter((res) => res.status === 200);
    expect(won).toHaveLength(1);
    expect(answers.filter((res) => res.status === 400)).toHaveLength(2);
    const tokens = (await won[0]?.json()) as Tokens;
    expect((await callTool(app, tokens.access_token, "search", { q: "x" })).status).toBe(401);
  });

  it("ends the family when a rotated refresh token is used again, and records it", async () => {
    const { adminKey, member, clientId } = await withMember();
    const first = await signIn(app, member.browser, clientId);
    const second = (await (await refreshRequest(app, clientId, first.refresh_token)).json()) as Tokens;
    expect((await callTool(app, second.access_token, "search", { q: "x" })).isError).toBe(false);
    await oauthError(await refreshRequest(app, clientId, first.refresh_token), 400, "invalid_grant");
    expect((await callTool(app, second.access_token, "search", { q: "x" })).status).toBe(401);
    await oauthError(await refreshRequest(app, clientId, second.refresh_token), 400, "invalid_grant");
    const trail = (await (await app.request("/v1/audit", { token: adminKey })).json()) as {
      events: { action: string; actor: { kind: string } }[];
    };
    expect(trail.events.some((e) => e.action === "oauth.replayed" && e.actor.kind === "oauth")).toBe(true);
    // The approval itself stays: the client signs the member in again.
    expect((await signIn(app, member.browser, clientId)).access_token).toBeTruthy();
  });

  it("refuses another client's refresh token and code", async () => {
    const { member, clientId } = await withMember();
    const other = await register(app, {
      redirect_uris: [REDIRECT_URI],
      client_name: "Other",
      token_endpoint_auth_method: "none",
    });
    const tokens = await signIn(app, member.browser, clientId);
    await oauthError(await refreshRequest(app, other.clientId, tokens.refresh_token), 400, "invalid_grant");
    const { verifier, challenge } = pkce();
    const code = codeOf(await consent(member.browser, { clientId, challenge }));
    await oauthError(
      await tokenRequest(app, {
        grant_type: "authorization_code",
        code,
        code_verifier: verifier,
        client_id: other.clientId,
        redirect_uri: REDIRECT_URI,
        resource: RESOURCE,
      }),
      400,
      "invalid_grant",
    );
    // The rightful client's own token still works.
    expect((await refreshRequest(app, clientId, tokens.refresh_token)).status).toBe(200);
  });

  it("authenticates clients: a wrong secret, a secret from a public client, a forged client id", async () => {
    const { member } = await withMember();
    const confidential = await register(app, {
      redirect_uris: [REDIRECT_URI],
      client_name: "Hosted",
      token_endpoint_auth_method: "client_secret_post",
    });
    const { verifier, challenge } = pkce();
    const code = codeOf(await consent(member.browser, { clientId: confidential.clientId, challenge }));
    const base = {
      grant_type: "authorization_code",
      code,
      code_verifier: verifier,
      client_id: confidential.clientId,
      redirect_uri: REDIRECT_URI,
    };
    await oauthError(await tokenRequest(app, base), 401, "invalid_client");
    await oauthError(await tokenRequest(app, { ...base, client_secret: "wrong" }), 401, "invalid_client");
    const ok = await tokenRequest(app, { ...base, client_secret: confidential.clientSecret ?? "" });
    expect(ok.status).toBe(200);
    const publicClient = await register(app);
    await oauthError(
      await tokenRequest(app, {
        grant_type: "refresh_token",
        refresh_token: "mor_x",
        client_id: publicClient.clientId,
        client_secret: "x",
      }),
      401,
      "invalid_client",
    );
    await oauthError(
      await tokenRequest(app, {
        grant_type: "refresh_token",
        refresh_token: "mor_x",
        client_id: "mcl_forged",
      }),
      401,
      "invalid_client",
    );
  });

  it("refuses what is not a token request: another grant type, JSON, a field twice", async () => {
    const { clientId } = await withMember();
    await oauthError(
      await tokenRequest(app, { grant_type: "password", client_id: clientId }),
      400,
      "unsupported_grant_type",
    );
    await oauthError(await tokenRequest(app, { client_id: clientId }), 400, "invalid_request");
    const json = await app.memoria.app.request("/oauth/token", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ grant_type: "refresh_token" }),
    });
    await oauthError(json, 400, "invalid_request");
    const twice = await app.memoria.app.request("/oauth/token", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: `grant_type=refresh_token&client_id=${encodeURIComponent(clientId)}&client_id=other`,
    });
    await oauthError(twice, 400, "invalid_request");
  });
});

describe("access tokens at /mcp", () => {
  it("refuses a token that names another team, another host's resource, or has expired", async () => {
    let now = Date.parse("2026-12-07T00:00:00Z");
    const { member, clientId } = await withMember("member", { clock: { now: () => new Date(now) } });
    const tokens = await signIn(app, member.browser, clientId);
    const { teamId: otherTeam } = await makeTeam(app, "Other");
    const secret = tokens.access_token.slice(tokens.access_token.lastIndexOf("_") + 1);
    const moved = `moa_${otherTeam}_${secret}`;
    expect((await callTool(app, moved, "search", { q: "x" })).status).toBe(401);
    const elsewhere = await app.memoria.app.request("http://other.example/mcp", {
      method: "POST",
      headers: {
        authorization: `Bearer ${tokens.access_token}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(elsewhere.status).toBe(401);
    expect((await callTool(app, tokens.access_token, "search", { q: "x" })).isError).toBe(false);
    now += 60 * 60 * 1000 + 1;
    expect((await callTool(app, tokens.access_token, "search", { q: "x" })).status).toBe(401);
    // The refresh token outlives it, and brings a new one.
    const next = (await (await refreshRequest(app, clientId, tokens.refresh_token)).json()) as Tokens;
    expect((await callTool(app, next.access_token, "search", { q: "x" })).isError).toBe(false);
  });

  it("never takes a refresh token or a code as a bearer", async () => {
    const { member, clientId } = await withMember();
    const tokens = await signIn(app, member.browser, clientId);
    expect((await callTool(app, tokens.refresh_token, "search", { q: "x" })).status).toBe(401);
  });

  it("ends a client's access when it revokes its own refresh token, and says nothing of unknown tokens", async () => {
    const { adminKey, member, clientId } = await withMember();
    const tokens = await signIn(app, member.browser, clientId);
    const revoke = (fields: Record<string, string>) =>
      app.memoria.app.request("/oauth/revoke", {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams(fields),
      });
    expect((await revoke({ token: "mor_tabcdefghijklmnop_unknown", client_id: clientId })).status).toBe(200);
    expect((await callTool(app, tokens.access_token, "search", { q: "x" })).isError).toBe(false);
    expect((await revoke({ token: tokens.refresh_token, client_id: clientId })).status).toBe(200);
    expect((await callTool(app, tokens.access_token, "search", { q: "x" })).status).toBe(401);
    // The sign-in ended; the member's approval stays (the app signs in again), and the trail says which it was.
    const { clients } = (await (await app.request("/v1/oauth/clients", { token: adminKey })).json()) as {
      clients: unknown[];
    };
    expect(clients).toHaveLength(1);
    const trail = (await (await app.request("/v1/audit", { token: adminKey })).json()) as {
      events: { action: string }[];
    };
    expect(trail.events.map((e) => e.action)).toContain("oauth.signed_out");
    expect(trail.events.map((e) => e.action)).not.toContain("oauth.revoked");
  });

  it("reports a demoted member's refreshed scope as their role caps it", async () => {
    const { adminKey, member, clientId } = await withMember();
    const tokens = await signIn(app, member.browser, clientId);
    const changed = await app.request(`/v1/members/${member.memberId}`, {
      method: "PATCH",
      token: adminKey,
      json: { role: "reader" },
    });
    expect(changed.status).toBe(204);
    const refreshed = (await (await refreshRequest(app, clientId, tokens.refresh_token)).json()) as Tokens;
    expect(refreshed.scope).toBe("read");
  });
});

describe("registration", () => {
  it("refuses redirect URIs a browser would run or that leave loopback over plain http, and bad bodies", async () => {
    app = await buildTestApp();
    const bad: [unknown, string][] = [
      [{ redirect_uris: ["javascript:alert(1)"] }, "invalid_redirect_uri"],
      [{ redirect_uris: ["data:text/html,hi"] }, "invalid_redirect_uri"],
      [{ redirect_uris: ["http://client.example/cb"] }, "invalid_redirect_uri"],
      [{ redirect_uris: ["https://client.example/cb#frag"] }, "invalid_redirect_uri"],
      [{ redirect_uris: [] }, "invalid_redirect_uri"],
      [{ redirect_uris: Array(11).fill("https://client.example/cb") }, "invalid_redirect_uri"],
      [
        { redirect_uris: ["https://client.example/cb"], token_endpoint_auth_method: "private_key_jwt" },
        "invalid_client_metadata",
      ],
      [
        { redirect_uris: ["https://client.example/cb"], grant_types: ["client_credentials"] },
        "invalid_client_metadata",
      ],
      [
        { redirect_uris: ["https://client.example/cb"], client_name: "x".repeat(201) },
        "invalid_client_metadata",
      ],
      ["not an object", "invalid_client_metadata"],
    ];
    for (const [body, error] of bad) {
      const res = await app.request("/oauth/register", { method: "POST", json: body });
      await oauthError(res, 400, error);
    }
    const notJson = await app.memoria.app.request("/oauth/register", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{",
    });
    await oauthError(notJson, 400, "invalid_client_metadata");
  });

  it("takes loopback on any port and an app's own scheme, as native clients need", async () => {
    app = await buildTestApp();
    const { member } = await (async () => {
      const { apiKey } = await makeTeam(app);
      return { member: await joinAs(app, apiKey, "member") };
    })();
    const { clientId } = await register(app, {
      redirect_uris: ["http://127.0.0.1/callback", "cursor://anysphere.cursor-mcp/oauth/callback"],
      token_endpoint_auth_method: "none",
    });
    for (const redirectUri of [
      "http://127.0.0.1:51763/callback",
      "cursor://anysphere.cursor-mcp/oauth/callback",
    ]) {
      const res = await consent(member.browser, { clientId, challenge: pkce().challenge, redirectUri });
      expect(res.status, redirectUri).toBe(303);
      expect(res.headers.get("location")?.startsWith(redirectUri)).toBe(true);
    }
    // Another loopback path is not the registered one.
    const other = await member.browser.get(
      `/page/oauth/consent?${authorizationQuery({ clientId, challenge: pkce().challenge, redirectUri: "http://127.0.0.1:5000/other" })}`,
    );
    expect(other.status).toBe(400);
  });
});

describe("approvals on the page", () => {
  it("lets a member disconnect their own app, never another member's", async () => {
    const { adminKey, member, clientId } = await withMember();
    const other = await joinAs(app, adminKey, "member");
    await signIn(app, member.browser, clientId);
    const { clients } = (await (await app.request("/v1/oauth/clients", { token: adminKey })).json()) as {
      clients: { id: string }[];
    };
    const id = clients[0]?.id ?? "";
    const theirs = await other.browser.get("/page/apps");
    expect(await theirs.text()).toContain("No apps are connected.");
    const csrf =
      /name="csrf" value="([0-9a-f]+)"/.exec(await (await other.browser.get("/page/apps")).text())?.[1] ?? "";
    const refused = await other.browser.post(`/page/apps/${id}/revoke`, new URLSearchParams({ csrf }));
    expect(refused.status).toBe(404);
    expect(
      ((await (await app.request("/v1/oauth/clients", { token: adminKey })).json()) as { clients: unknown[] })
        .clients,
    ).toHaveLength(1);
    const mine = await member.browser.get("/page/apps");
    const ownCsrf = /name="csrf" value="([0-9a-f]+)"/.exec(await mine.text())?.[1] ?? "";
    const done = await member.browser.post(`/page/apps/${id}/revoke`, new URLSearchParams({ csrf: ownCsrf }));
    expect(done.status).toBe(303);
    expect(
      ((await (await app.request("/v1/oauth/clients", { token: adminKey })).json()) as { clients: unknown[] })
        .clients,
    ).toEqual([]);
  });

  it("answers another team's approval id as not found", async () => {
    const { member, clientId } = await withMember();
    await signIn(app, member.browser, clientId);
    const { apiKey: otherKey } = await makeTeam(app, "Other");
    const { clients } = (await (await app.request("/v1/oauth/clients", { token: otherKey })).json()) as {
      clients: unknown[];
    };
    expect(clients).toEqual([]);
  });
});
