// What signing MCP clients in costs (docs/decisions/0105-oauth-for-mcp.md): a `tools/call` of `search` through
// /mcp with an OAuth access token (its row read with its approval, member and team in one statement on first
// use, then held for MEMORIA_CATCHUP_MS as a key's check is) ÷ the same call with a team key, the token's first
// use, a refresh (a read, then a rotation in one transaction) and a code's exchange, on a
// `file:` database, a real sqld reached directly, and the same sqld behind a 20 ms round trip. In process
// (app.request), alternated, median of `rounds` each; the consent itself is a person's, and not timed.

import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createApp } from "../src/app.js";
import { silentLogger } from "../src/logger.js";
import { Keyring } from "../src/seal/keyring.js";
import { importMasterKeys } from "../src/seal/master.js";
import { openStorage } from "../src/store/storage.js";
import { startSqld } from "../test/support/sqld.js";
import { BENCH_ADMIN as ADMIN, benchConfig } from "./app-config.js";
import { startLatencyProxy } from "./latency-proxy.js";
import { median } from "./stats.js";

const REDIRECT = "https://client.example/callback";
const RESOURCE = "http://localhost/mcp";

type Fetch = (path: string, init?: RequestInit) => Promise<Response>;

async function expectStatus(res: Response, status: number, what: string): Promise<Response> {
  if (res.status !== status) throw new Error(`${what} answered ${res.status}: ${await res.text()}`);
  return res;
}

/** A team, a member joined by invite, a registered client approved by the member: the key and the client. */
async function setUp(request: Fetch) {
  const made = (await (
    await expectStatus(
      await request("/v1/teams", {
        method: "POST",
        headers: { authorization: `Bearer ${ADMIN}`, "content-type": "application/json" },
        body: JSON.stringify({ name: "Bench" }),
      }),
      201,
      "team",
    )
  ).json()) as { apiKey: string };
  const invite = (await (
    await request("/v1/invites", {
      method: "POST",
      headers: { authorization: `Bearer ${made.apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ role: "member" }),
    })
  ).json()) as { url: string };
  const joined = await expectStatus(
    await request(new URL(invite.url).pathname, {
      method: "POST",
      headers: { origin: "http://localhost", "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ name: "Ana", email: "ana@example.com", password: "correct horse battery" }),
    }),
    303,
    "join",
  );
  const cookie = (joined.headers.getSetCookie()[0] ?? "").split(";")[0] ?? "";
  const registered = (await (
    await expectStatus(
      await request("/oauth/register", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          redirect_uris: [REDIRECT],
          client_name: "Bench",
          token_endpoint_auth_method: "none",
        }),
      }),
      201,
      "registration",
    )
  ).json()) as { client_id: string };
  return { apiKey: made.apiKey, cookie, clientId: registered.client_id };
}

/** A code the member approves now, with its PKCE verifier. */
async function approvedCode(request: Fetch, cookie: string, clientId: string) {
  const verifier = randomBytes(32).toString("base64url");
  const query = new URLSearchParams({
    response_type: "code",
    client_id: clientId,
    redirect_uri: REDIRECT,
    code_challenge: createHash("sha256").update(verifier).digest("base64url"),
    code_challenge_method: "S256",
    resource: RESOURCE,
    scope: "write",
  });
  const page = await (await request(`/page/oauth/consent?${query}`, { headers: { cookie } })).text();
  const fields = Object.fromEntries(
    [...page.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g)].map((m) => [
      m[1] ?? "",
      (m[2] ?? "").replaceAll("&amp;", "&"),
    ]),
  );
  const answer = await expectStatus(
    await request("/page/oauth/consent", {
      method: "POST",
      headers: { cookie, origin: "http://localhost", "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ ...fields, decision: "approve" }),
    }),
    303,
    "consent",
  );
  return { code: new URL(answer.headers.get("location") ?? "").searchParams.get("code") ?? "", verifier };
}

const form = (fields: Record<string, string>): RequestInit => ({
  method: "POST",
  headers: { "content-type": "application/x-www-form-urlencoded" },
  body: new URLSearchParams(fields),
});

const searchCall = (token: string): RequestInit => ({
  method: "POST",
  headers: {
    authorization: `Bearer ${token}`,
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
  },
  body: JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name: "search", arguments: { q: "deploy" } },
  }),
});

async function timed(task: () => Promise<Response>, status: number, what: string): Promise<number> {
  const started = performance.now();
  await expectStatus(await task(), status, what);
  return performance.now() - started;
}

async function measure(label: string, url: string, rounds: number): Promise<void> {
  const storage = await openStorage({ url });
  const keyring = new Keyring(await importMasterKeys(crypto.getRandomValues(new Uint8Array(32))));
  const memoria = createApp({
    config: benchConfig(),
    storage,
    keyring,
    clock: { now: () => new Date() },
    logger: silentLogger,
  });
  const request: Fetch = async (path, init) => memoria.app.request(path, init);
  try {
    const { apiKey, cookie, clientId } = await setUp(request);
    const first = await approvedCode(request, cookie, clientId);
    const exchange = (code: string, verifier: string) =>
      request(
        "/oauth/token",
        form({
          grant_type: "authorization_code",
          code,
          code_verifier: verifier,
          client_id: clientId,
          redirect_uri: REDIRECT,
          resource: RESOURCE,
        }),
      );
    let tokens = (await (
      await expectStatus(await exchange(first.code, first.verifier), 200, "exchange")
    ).json()) as {
      access_token: string;
      refresh_token: string;
    };
    const byKey: number[] = [];
    const byToken: number[] = [];
    const refreshes: number[] = [];
    const exchanges: number[] = [];
    // Warm: the key's first check fills its cache; the search index is loaded.
    await request("/mcp", searchCall(apiKey));
    // A token's first call reads its row; later ones, within MEMORIA_CATCHUP_MS, are answered as a key's are.
    const firstUse = await timed(() => request("/mcp", searchCall(tokens.access_token)), 200, "search");
    for (let round = 0; round < rounds; round++) {
      for (const key of round % 2 === 0 ? [true, false] : [false, true]) {
        const ms = await timed(
          () => request("/mcp", searchCall(key ? apiKey : tokens.access_token)),
          200,
          "search",
        );
        (key ? byKey : byToken).push(ms);
      }
    }
    for (let round = 0; round < rounds; round++) {
      const started = performance.now();
      const refreshed = await expectStatus(
        await request(
          "/oauth/token",
          form({
            grant_type: "refresh_token",
            refresh_token: tokens.refresh_token,
            client_id: clientId,
            resource: RESOURCE,
          }),
        ),
        200,
        "refresh",
      );
      refreshes.push(performance.now() - started);
      tokens = (await refreshed.json()) as typeof tokens;
      if (round % 4 === 0) {
        const next = await approvedCode(request, cookie, clientId);
        exchanges.push(await timed(() => exchange(next.code, next.verifier), 200, "exchange"));
      }
    }
    const k = median(byKey);
    const t = median(byToken);
    console.log(
      `  ${label.padEnd(11)} /mcp search: key ${k.toFixed(2)} ms, OAuth token ${t.toFixed(2)} ms (${(t / k).toFixed(2)}×), ` +
        `its first use ${firstUse.toFixed(2)} ms; ` +
        `refresh ${median(refreshes).toFixed(2)} ms; code exchange ${median(exchanges).toFixed(2)} ms`,
    );
  } finally {
    memoria.close();
    storage.close();
  }
}

export async function benchOAuth(rounds: number): Promise<void> {
  console.log(
    `\nOAuth for /mcp: a tools/call with an access token ÷ the same with a team key (median of ${rounds})`,
  );
  const dir = mkdtempSync(join(tmpdir(), "memoria-bench-oauth-"));
  const sqld = await startSqld(dir);
  const proxy = await startLatencyProxy({ host: "127.0.0.1", port: Number(new URL(sqld.url).port) }, 20);
  try {
    await measure("file:", `file:${join(dir, "oauth.db")}`, rounds);
    await measure("sqld near", sqld.url, rounds);
    // A fresh database behind the proxy: the near run's team and member would collide (one address an instance).
    await sqld.stop();
    const far = await startSqld(mkdtempSync(join(dir, "far-")));
    const farProxy = await startLatencyProxy({ host: "127.0.0.1", port: Number(new URL(far.url).port) }, 20);
    try {
      await measure("sqld 20 ms", farProxy.url, rounds);
    } finally {
      await farProxy.close();
      await far.stop();
    }
  } finally {
    await proxy.close();
    await sqld.stop().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
}
