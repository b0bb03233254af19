// Cross-team probes: team B, holding its own key and secrets, tries every route that names an id, a key, a
// cursor, a word or a webhook of team A. Each probe must answer exactly as it does for an id that does not
// exist (or 401/403 where a team key is never enough), and afterwards A's data must be as it was. A security probe's
// probe measured 0 crossings in 43 such probes; the table below keeps them in `npm test`.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN_TOKEN, addDocument, buildTestApp, makeTeam, search, type TestApp } from "../support/app.js";
import { connectNotion, postTo, webhookPath } from "../support/notion-webhook.js";
import { deliver, makeWebhookSecret } from "../support/webhooks.js";

// Words that only A's notes hold: B finding any of them anywhere is a crossing.
const A_WORDS = ["quetzalcoatlus", "zymurgyfest", "brontide", "pellucidar"];
const A_PROJECT = "apollo";
// Ids of the right shape that no team holds, for the "like a nonexistent id" side of each probe.
const MISSING_ID = "dmissing00000000";

interface Team {
  teamId: string;
  apiKey: string;
  webhookSecret: string;
  documentIds: string[];
  entryIds: string[];
}

interface Snapshot {
  stats: { documents: number; chunks: number; entries: number };
  documents: unknown[];
  entries: unknown[];
  hits: number;
  webhook: unknown;
  notion: unknown;
}

let app: TestApp;
let a: Team;
let b: Team;
let aKeyId: string;
let aDocumentsCursor: string;
let aEntriesCursor: string;
const A_IDEMPOTENCY_KEY = "shared-retry-key-1";
const A_DOCUMENT_KEY = "shared-retry-key-2";
const A_IDEMPOTENT_DOCUMENT = { title: "Idempotent runbook", content: "Retried safely." };
const A_IDEMPOTENT_ENTRY = { title: "Idempotent note", impact: "retried safely", project: A_PROJECT };

async function json(res: Response): Promise<unknown> {
  const text = await res.text();
  return text ? JSON.parse(text) : null;
}

async function body(path: string, token: string): Promise<unknown> {
  const res = await app.request(path, { token });
  expect(res.status, path).toBe(200);
  return json(res);
}

async function snapshotOf(team: Team): Promise<Snapshot> {
  const stats = (await body("/v1/stats", team.apiKey)) as Snapshot["stats"];
  const documents = [];
  for (const id of team.documentIds) documents.push(await body(`/v1/documents/${id}`, team.apiKey));
  const entries = [];
  for (const id of team.entryIds) entries.push(await body(`/v1/entries/${id}`, team.apiKey));
  let hits = 0;
  for (const word of A_WORDS) hits += (await search(app, team.apiKey, word)).hits.length;
  return {
    stats: { documents: stats.documents, chunks: stats.chunks, entries: stats.entries },
    documents,
    entries,
    hits,
    webhook: await body("/v1/sources/webhook", team.apiKey),
    notion: await body("/v1/sources/notion", team.apiKey),
  };
}

async function makeFullTeam(name: string, words: string[], project: string): Promise<Team> {
  const { teamId, apiKey } = await makeTeam(app, name);
  const documentIds = [];
  for (const [i, word] of words.entries()) {
    const doc = await addDocument(app, apiKey, {
      title: `Runbook ${i}`,
      content: `# ${word}\n\nThe ${word} procedure, step by step.`,
      externalId: `ext-${i}`,
    });
    documentIds.push(doc.id);
  }
  const entryIds = [];
  for (const word of words) {
    const res = await app.request("/v1/entries", {
      method: "POST",
      token: apiKey,
      json: { title: `Chose ${word}`, impact: `${word} everywhere`, project },
    });
    expect(res.status).toBe(201);
    entryIds.push(((await res.json()) as { entry: { id: string } }).entry.id);
  }
  const webhookSecret = await makeWebhookSecret(app, apiKey);
  return { teamId, apiKey, webhookSecret, documentIds, entryIds };
}

beforeAll(async () => {
  // Nothing reaches a real Notion: a pull started by the handshake fails fast on a closed port.
  app = await buildTestApp({ config: { notionApiUrl: "http://127.0.0.1:9" } });
  a = await makeFullTeam("Alpha", A_WORDS, A_PROJECT);
  b = await makeFullTeam("Beta", ["lighthouse"], "beta");
  await connectNotion(app, a, "secret_notion_token_of_team_a");
  await app.memoria.sources.idle();
  const keys = (await body(`/v1/teams/${a.teamId}/keys`, ADMIN_TOKEN)) as { keys: { keyId: string }[] };
  aKeyId = keys.keys[0]?.keyId ?? "";
  expect(aKeyId).not.toBe("");
  const docs = (await body("/v1/documents?limit=1", a.apiKey)) as { nextCursor: string };
  aDocumentsCursor = docs.nextCursor;
  const entries = (await body("/v1/entries?limit=1", a.apiKey)) as { nextCursor: string };
  aEntriesCursor = entries.nextCursor;
  const first = await app.request("/v1/entries", {
    method: "POST",
    token: a.apiKey,
    headers: { "idempotency-key": A_IDEMPOTENCY_KEY },
    json: A_IDEMPOTENT_ENTRY,
  });
  expect(first.status).toBe(201);
  a.entryIds.push(((await first.json()) as { entry: { id: string } }).entry.id);
  const doc = await app.request("/v1/documents", {
    method: "POST",
    token: a.apiKey,
    headers: { "idempotency-key": A_DOCUMENT_KEY },
    json: A_IDEMPOTENT_DOCUMENT,
  });
  expect(doc.status).toBe(201);
  a.documentIds.push(((await doc.json()) as { document: { id: string } }).document.id);
});

afterAll(() => app?.close());

// --- How B reaches a route ------------------------------------------------------------------------------

function asB(method: string, path: string, jsonBody?: unknown, headers: Record<string, string> = {}) {
  return app.request(path, {
    method,
    token: b.apiKey,
    headers,
    ...(jsonBody !== undefined ? { json: jsonBody } : {}),
  });
}

function mcp(token: string, tool: string, args: Record<string, unknown>): Promise<Response> {
  return app.request("/mcp", {
    method: "POST",
    token,
    headers: { accept: "application/json, text/event-stream" },
    json: { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: tool, arguments: args } },
  });
}

/** The text of an MCP tool result, and whether it is an error result. */
async function toolResult(res: Response): Promise<{ text: string; isError: boolean }> {
  expect(res.status).toBe(200);
  const rpc = (await res.json()) as { result: { content: { text: string }[]; isError?: boolean } };
  return { text: rpc.result.content.map((c) => c.text).join("\n"), isError: rpc.result.isError ?? false };
}

function upsertEvent(externalId: string, word: string) {
  return {
    type: "document.upsert",
    data: { externalId, title: `Planted ${word}`, content: `${word} planted` },
  };
}

// --- The probes -----------------------------------------------------------------------------------------

/** What an answer must be: exactly a twin request's answer about a missing thing, or a check of its own. */
type Verdict =
  | { like: () => Promise<Response> }
  | { status: number; code?: string }
  | { check: (res: Response) => Promise<void> };

interface Probe {
  name: string;
  send: () => Promise<Response>;
  verdict: Verdict;
}

/**
 * Status, code and message: the parts that could tell two answers apart. The request id differs by design,
 * and a message names the id the request gave (its own, never another's), so ids asked for read as <id>.
 */
async function comparable(res: Response): Promise<unknown> {
  const value = (await json(res)) as { error?: { requestId?: string; message?: string } } | null;
  if (value?.error) {
    delete value.error.requestId;
    let message = value.error.message ?? "";
    for (const id of [MISSING_ID, a.teamId, ...a.documentIds, ...a.entryIds, aKeyId]) {
      message = message.replaceAll(id, "<id>");
    }
    value.error.message = message;
  }
  return { status: res.status, body: value };
}

async function holdsNoneOfA(res: Response): Promise<void> {
  const raw = await res.text();
  expect(res.status, raw).toBeLessThan(500);
  // Search and memory answers echo the caller's own query and project: B's words, not A's content.
  const parsed = JSON.parse(raw) as { result?: { structuredContent?: unknown } };
  // An MCP tool result carries the same answer as structured content (its text is that JSON again).
  const value = (parsed.result ? parsed.result.structuredContent : parsed) as {
    query?: unknown;
    project?: unknown;
  };
  expect(value, raw).toBeTypeOf("object");
  delete value.query;
  delete value.project;
  const text = JSON.stringify(value);
  for (const word of A_WORDS) expect(text).not.toContain(word);
  for (const id of [...a.documentIds, ...a.entryIds]) expect(text).not.toContain(id);
  expect(text).not.toContain(a.teamId);
}

const probes = (): Probe[] => [
  // Documents by A's ids.
  ...a.documentIds.slice(0, 2).flatMap((id, i): Probe[] => [
    {
      name: `GET A's document ${i}`,
      send: () => asB("GET", `/v1/documents/${id}`),
      verdict: { like: () => asB("GET", `/v1/documents/${MISSING_ID}`) },
    },
    {
      name: `PUT A's document ${i}`,
      send: () => asB("PUT", `/v1/documents/${id}`, { title: "Overwritten", content: "by B" }),
      verdict: {
        like: () => asB("PUT", `/v1/documents/${MISSING_ID}`, { title: "Overwritten", content: "by B" }),
      },
    },
    {
      name: `DELETE A's document ${i}`,
      send: () => asB("DELETE", `/v1/documents/${id}`),
      verdict: { like: () => asB("DELETE", `/v1/documents/${MISSING_ID}`) },
    },
  ]),
  // Entries by A's ids.
  ...a.entryIds.slice(0, 3).flatMap((id, i): Probe[] => [
    {
      name: `GET A's entry ${i}`,
      send: () => asB("GET", `/v1/entries/${id}`),
      verdict: { like: () => asB("GET", `/v1/entries/${MISSING_ID}`) },
    },
    {
      name: `DELETE A's entry ${i}`,
      send: () => asB("DELETE", `/v1/entries/${id}`),
      verdict: { like: () => asB("DELETE", `/v1/entries/${MISSING_ID}`) },
    },
  ]),
  {
    name: "MCP forget of A's entry",
    send: () => mcp(b.apiKey, "forget", { id: a.entryIds[0] }),
    verdict: {
      check: async (res) => {
        const missing = await toolResult(await mcp(b.apiKey, "forget", { id: MISSING_ID }));
        const probed = await toolResult(res);
        expect(probed.isError).toBe(missing.isError);
        expect(probed.text.replace(a.entryIds[0] ?? "", "ID")).toBe(missing.text.replace(MISSING_ID, "ID"));
      },
    },
  },
  // Listings with A's cursors: B's own rows only.
  {
    name: "documents listing with A's cursor",
    send: () => asB("GET", `/v1/documents?cursor=${encodeURIComponent(aDocumentsCursor)}`),
    verdict: { check: holdsNoneOfA },
  },
  {
    name: "entries listing with A's cursor",
    send: () => asB("GET", `/v1/entries?cursor=${encodeURIComponent(aEntriesCursor)}`),
    verdict: { check: holdsNoneOfA },
  },
  {
    name: "entries listing of A's project",
    send: () => asB("GET", `/v1/entries?project=${A_PROJECT}`),
    verdict: {
      check: async (res) => {
        expect(((await json(res.clone())) as { entries: unknown[] }).entries).toEqual([]);
        await holdsNoneOfA(res);
      },
    },
  },
  // Search and memory for A's words and project.
  ...A_WORDS.map(
    (word): Probe => ({
      name: `search for A's word ${word}`,
      send: () => asB("GET", `/v1/search?q=${word}`),
      verdict: {
        check: async (res) => {
          const probed = (await json(res)) as { hits: unknown[]; corpus: unknown };
          const missing = (await json(await asB("GET", "/v1/search?q=nosuchwordanywhere"))) as typeof probed;
          expect(probed.hits).toEqual([]);
          expect(probed.corpus).toEqual(missing.corpus);
        },
      },
    }),
  ),
  ...A_WORDS.slice(0, 2).map(
    (word): Probe => ({
      name: `memory for A's word ${word}`,
      send: () => asB("GET", `/v1/memory?q=${word}`),
      verdict: { check: holdsNoneOfA },
    }),
  ),
  {
    name: "memory for A's project",
    send: () => asB("GET", `/v1/memory?project=${A_PROJECT}`),
    verdict: { check: holdsNoneOfA },
  },
  {
    name: "MCP search for A's word",
    send: () => mcp(b.apiKey, "search", { q: A_WORDS[0] }),
    verdict: { check: holdsNoneOfA },
  },
  {
    name: "MCP memory for A's project",
    send: () => mcp(b.apiKey, "memory", { project: A_PROJECT, q: A_WORDS[1] }),
    verdict: { check: holdsNoneOfA },
  },
  {
    name: "stats count B's rows only",
    send: () => asB("GET", "/v1/stats"),
    verdict: {
      check: async (res) => {
        const stats = (await json(res)) as Snapshot["stats"];
        expect({ documents: stats.documents, entries: stats.entries }).toEqual({
          documents: b.documentIds.length,
          entries: b.entryIds.length,
        });
      },
    },
  },
  // Idempotency keys are per team: A's key used by B runs B's request, and says nothing of A's.
  {
    name: "A's Idempotency-Key with A's body on B's entry",
    send: () => asB("POST", "/v1/entries", A_IDEMPOTENT_ENTRY, { "idempotency-key": A_IDEMPOTENCY_KEY }),
    verdict: {
      check: async (res) => {
        expect(res.status).toBe(201);
        const id = ((await json(res)) as { entry: { id: string } }).entry.id;
        expect(a.entryIds).not.toContain(id);
        b.entryIds.push(id);
      },
    },
  },
  {
    name: "A's Idempotency-Key with another body on B's entry",
    send: () => asB("POST", "/v1/entries", { title: "Other" }, { "idempotency-key": A_IDEMPOTENCY_KEY }),
    // Not 409: that would tell B the key was used by someone. B's own earlier use with A's body is what
    // makes this B's conflict, so the twin replays the same pair under a key nobody used.
    verdict: {
      like: async () => {
        const key = "never-used-key-1";
        await asB("POST", "/v1/entries", A_IDEMPOTENT_ENTRY, { "idempotency-key": key });
        return asB("POST", "/v1/entries", { title: "Other" }, { "idempotency-key": key });
      },
    },
  },
  {
    name: "A's Idempotency-Key with A's body on B's document",
    send: () => asB("POST", "/v1/documents", A_IDEMPOTENT_DOCUMENT, { "idempotency-key": A_DOCUMENT_KEY }),
    verdict: {
      check: async (res) => {
        expect(res.status).toBe(201);
        const id = ((await json(res)) as { document: { id: string } }).document.id;
        expect(a.documentIds).not.toContain(id);
        b.documentIds.push(id);
      },
    },
  },
  {
    name: "A's externalId on B's document",
    send: () => asB("POST", "/v1/documents", { title: "B ext", content: "lighthouse", externalId: "ext-3" }),
    verdict: {
      check: async (res) => {
        expect(res.status).toBe(201);
        const doc = ((await json(res)) as { document: { id: string } }).document;
        expect(a.documentIds).not.toContain(doc.id);
        b.documentIds.push(doc.id);
      },
    },
  },
  // Webhooks: A's ingest URL with B's secret, B's with A's.
  ...["document.upsert", "entry.create", "document.delete"].map(
    (type): Probe => ({
      name: `ingest ${type} into A signed with B's secret`,
      send: () => deliver(app, a.teamId, b.webhookSecret, eventOf(type)),
      verdict: { like: () => deliver(app, a.teamId, `whsec_${btoa("0".repeat(32))}`, eventOf(type)) },
    }),
  ),
  {
    name: "ingest into B signed with A's secret",
    send: () => deliver(app, b.teamId, a.webhookSecret, eventOf("document.upsert")),
    verdict: {
      like: () => deliver(app, b.teamId, `whsec_${btoa("0".repeat(32))}`, eventOf("document.upsert")),
    },
  },
  // Notion: A's team id with B's URL token, and the reverse.
  {
    name: "Notion event to A's team with a wrong URL token",
    send: async () =>
      postTo(app, `/v1/webhooks/notion/${a.teamId}/${urlToken(await webhookPath(app, b.teamId))}`, "{}"),
    verdict: { like: () => postTo(app, `/v1/webhooks/notion/${a.teamId}/nosuchtoken`, "{}") },
  },
  {
    name: "Notion handshake to B's team with A's URL token",
    send: async () =>
      postTo(
        app,
        `/v1/webhooks/notion/${b.teamId}/${urlToken(await webhookPath(app, a.teamId))}`,
        JSON.stringify({ verification_token: "attacker" }),
      ),
    verdict: {
      like: () =>
        postTo(
          app,
          `/v1/webhooks/notion/${b.teamId}/nosuchtoken`,
          JSON.stringify({ verification_token: "attacker" }),
        ),
    },
  },
  {
    name: "B's Notion source is B's (none), not A's",
    send: () => asB("GET", "/v1/sources/notion"),
    verdict: { status: 404, code: "not_found" },
  },
  {
    name: "B removes its Notion source",
    send: () => asB("DELETE", "/v1/sources/notion"),
    verdict: { status: 204 },
  },
  {
    name: "B rotates its webhook secret",
    send: () => asB("PUT", "/v1/sources/webhook"),
    verdict: {
      check: async (res) => {
        expect(res.status).toBe(200);
        b.webhookSecret = ((await json(res)) as { secret: string }).secret;
      },
    },
  },
  // Admin routes with a team key: never enough, A's own included.
  {
    name: "list A's keys with B's key",
    send: () => asB("GET", `/v1/teams/${a.teamId}/keys`),
    verdict: { like: () => asB("GET", `/v1/teams/${MISSING_ID}/keys`) },
  },
  {
    name: "list A's keys with A's key",
    send: () => app.request(`/v1/teams/${a.teamId}/keys`, { token: a.apiKey }),
    verdict: { like: () => asB("GET", `/v1/teams/${MISSING_ID}/keys`) },
  },
  {
    name: "mint a key for A with B's key",
    send: () => asB("POST", `/v1/teams/${a.teamId}/keys`),
    verdict: { like: () => asB("POST", `/v1/teams/${MISSING_ID}/keys`) },
  },
  {
    name: "revoke A's key with B's key",
    send: () => asB("DELETE", `/v1/teams/${a.teamId}/keys/${aKeyId}`),
    verdict: { like: () => asB("DELETE", `/v1/teams/${MISSING_ID}/keys/${MISSING_ID}`) },
  },
  {
    name: "delete team A with B's key",
    send: () => asB("DELETE", `/v1/teams/${a.teamId}`),
    verdict: { like: () => asB("DELETE", `/v1/teams/${MISSING_ID}`) },
  },
  { name: "list teams with B's key", send: () => asB("GET", "/v1/teams"), verdict: { status: 401 } },
  { name: "reindex with B's key", send: () => asB("POST", "/v1/reindex"), verdict: { status: 401 } },
  { name: "metrics with B's key", send: () => asB("GET", "/metrics"), verdict: { status: 401 } },
  // Keys spliced across teams: one team's id with the other's secret.
  ...[
    ["A's id, B's secret", `mem_${a.teamId}_${secretOf(b)}`],
    ["B's id, A's secret", `mem_${b.teamId}_${secretOf(a)}`],
  ].map(
    ([name, token]): Probe => ({
      name: `spliced key: ${name}`,
      send: () => app.request("/v1/stats", { token }),
      verdict: { like: () => app.request("/v1/stats", { token: `mem_${MISSING_ID}_nosuchsecret` }) },
    }),
  ),
];

function eventOf(type: string): unknown {
  if (type === "document.upsert") return upsertEvent("ext-0", "planted");
  if (type === "entry.create") return { type, data: { title: "Planted entry", project: A_PROJECT } };
  return { type, data: { externalId: "ext-0" } };
}

function urlToken(path: string): string {
  return path.split("/").pop() ?? "";
}

/** The secret part of a team key, mem_<teamId>_<secret>. */
function secretOf(team: Team): string {
  return team.apiKey.slice(`mem_${team.teamId}_`.length);
}

describe("team B against team A", () => {
  it("answers every cross-team probe like a missing id and leaves A as it was", async () => {
    const before = await snapshotOf(a);
    expect(before.hits).toBeGreaterThan(0);
    const table = probes();
    expect(table.length).toBeGreaterThanOrEqual(40);
    for (const probe of table) {
      const res = await probe.send();
      const { verdict } = probe;
      if ("like" in verdict) {
        expect(await comparable(res), probe.name).toEqual(await comparable(await verdict.like()));
        expect(res.status, probe.name).toBeGreaterThanOrEqual(400);
      } else if ("status" in verdict) {
        const value = (await json(res)) as { error?: { code: string } } | null;
        expect(res.status, probe.name).toBe(verdict.status);
        if (verdict.code) expect(value?.error?.code, probe.name).toBe(verdict.code);
      } else {
        await verdict.check(res);
      }
    }
    await app.memoria.sources.idle();
    expect(await snapshotOf(a)).toEqual(before);
    // A's webhook secret still verifies, B's rotation and removals notwithstanding.
    const stillA = await deliver(app, a.teamId, a.webhookSecret, {
      type: "entry.create",
      data: { title: "After" },
    });
    expect(stillA.status).toBe(200);
  });
});
