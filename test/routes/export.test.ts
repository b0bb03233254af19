import { request as httpRequest } from "node:http";
import { describe, expect, it } from "vitest";
import { importAnswer } from "../../src/routes/export.js";
import { serveOnLoopback } from "../http/loopback.js";
import { ADMIN_TOKEN, addDocument, buildTestApp, makeTeam, search, type TestApp } from "../support/app.js";
import { type Line, linesOf, teamContent } from "../support/export.js";
import { expectError, expectOk, withApp } from "./contract.js";

type ImportAnswer = ReturnType<typeof importAnswer.parse>;

async function fill(app: TestApp, apiKey: string): Promise<void> {
  const { documents, entries } = teamContent();
  for (const doc of documents) await addDocument(app, apiKey, doc);
  for (const entry of entries) {
    const res = await app.request("/v1/entries", { method: "POST", token: apiKey, json: entry });
    expect(res.status).toBe(201);
  }
}

async function exportText(app: TestApp, apiKey: string): Promise<string> {
  const res = await app.request("/v1/export", { token: apiKey });
  expect(res.status).toBe(200);
  return res.text();
}

function postImport(app: TestApp, apiKey: string, body: string | Uint8Array): Promise<Response> {
  return app.request("/v1/import", {
    method: "POST",
    token: apiKey,
    headers: { "content-type": "application/x-ndjson" },
    body,
  });
}

async function importOk(app: TestApp, apiKey: string, body: string): Promise<ImportAnswer> {
  return expectOk(await postImport(app, apiKey, body), 200, importAnswer);
}

describe("GET /v1/export", () => {
  it("streams a header, every document as written and every entry, then an end line that counts them", () =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app, "Export Co");
      await fill(app, apiKey);
      const res = await app.request("/v1/export", { token: apiKey });
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toMatch(/^application\/x-ndjson/);
      expect(res.headers.get("content-disposition")).toMatch(/^attachment; filename="memoria-export-/);
      const lines = linesOf(await res.text());
      expect(lines[0]).toMatchObject({ memoria: "export", version: 1, team: { name: "Export Co" } });
      const docs = lines.filter((l) => l.document).map((l) => l.document as NonNullable<Line["document"]>);
      const entries = lines.filter((l) => l.entry).map((l) => l.entry as NonNullable<Line["entry"]>);
      expect(lines.at(-1)).toEqual({ end: { documents: docs.length, entries: entries.length } });
      expect(lines).toHaveLength(docs.length + entries.length + 2);
      const { documents: written, entries: writtenEntries } = teamContent();
      expect(docs).toHaveLength(written.length);
      expect(entries).toHaveLength(writtenEntries.length);
      // Each document's content byte for byte as it was sent, with its fields.
      for (const sent of written) {
        const line = docs.find((d) => d.title === sent.title);
        expect(line, sent.title).toBeDefined();
        expect(line?.content).toBe(sent.content);
        expect(line?.format).toBe(sent.format ?? "markdown");
        expect(line?.path).toEqual(sent.path ?? []);
        expect(line?.externalId).toBe(sent.externalId ?? null);
        const stored = await app.request(`/v1/documents/${line?.id}`, { token: apiKey });
        const { document } = (await stored.json()) as { document: Record<string, unknown> };
        expect(line?.tags).toEqual(document.tags);
        expect(line?.createdAt).toBe(document.createdAt);
        expect(line?.updatedAt).toBe(document.updatedAt);
      }
      expect(Object.keys(docs[0] ?? {}).sort()).toEqual(
        ["content", "createdAt", "externalId", "format", "id", "path", "tags", "title", "updatedAt"].sort(),
      );
      const outage = entries.find((e) => e.title === "Relay outage");
      expect(outage).toMatchObject({
        impact: "wombat relay down 40 min",
        project: "ops",
        type: "incident",
        body: "Root cause: a full disk.",
      });
      expect(entries.find((e) => e.title === "Bare entry")).toMatchObject({
        impact: null,
        project: null,
        type: null,
        body: null,
      });
    }));

  it("never carries a secret: no team key, webhook secret or source token", () =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app);
      await fill(app, apiKey);
      const webhook = await app.request("/v1/sources/webhook", { method: "PUT", token: apiKey });
      const { secret } = (await webhook.json()) as { secret: string };
      expect(secret).toMatch(/^whsec_/);
      const notionToken = "ntn_export_test_token_0123456789abcdef";
      const notion = await app.request("/v1/sources/notion", {
        method: "PUT",
        token: apiKey,
        json: { token: notionToken },
      });
      expect(notion.status).toBe(200);
      const text = await exportText(app, apiKey);
      // The key's secret is all after its second "_": base64url holds "_" too, so a split would hand back a
      // fragment as short as "" that any export contains.
      const keySecret = apiKey.slice(apiKey.indexOf("_", "mem_".length) + 1);
      expect(keySecret.length).toBeGreaterThan(20);
      for (const secretText of [apiKey, keySecret, secret, notionToken, ADMIN_TOKEN]) {
        expect(text.includes(secretText)).toBe(false);
      }
      expect(text).not.toMatch(/whsec_|ntn_|mem_/);
    }));

  it("answers 401 without a team key, before anything is streamed", () =>
    withApp(async (app) => {
      await expectError(await app.request("/v1/export"), 401, "unauthorized");
      await expectError(await app.request("/v1/export", { token: "mem_tnotateam_x" }), 401, "unauthorized");
    }));

  it("exports only the team of the key", () =>
    withApp(async (app) => {
      const a = await makeTeam(app, "A");
      const b = await makeTeam(app, "B");
      await addDocument(app, a.apiKey, { title: "Alpha only", content: "alpha aardvark" });
      await addDocument(app, b.apiKey, { title: "Beta only", content: "beta badger" });
      const text = await exportText(app, b.apiKey);
      expect(text).toContain("beta badger");
      expect(text).not.toContain("alpha aardvark");
      expect(linesOf(text).at(-1)).toEqual({ end: { documents: 1, entries: 0 } });
    }));
});

describe("POST /v1/import", () => {
  it("carries a document's front matter tags out and back, searchable by tag in the restored team", async () => {
    const source = await buildTestApp();
    const target = await buildTestApp();
    try {
      const { apiKey: from } = await makeTeam(source);
      const content =
        "---\ntitle: Failover runbook\ntags: [quokkatag, ops]\n---\n\nPromote the replica first.\n";
      await addDocument(source, from, { title: "Failover runbook", content });
      const exported = await exportText(source, from);
      const line = linesOf(exported).find((l) => l.document)?.document;
      expect(line?.tags).toEqual(["quokkatag", "ops"]);
      const { apiKey: to } = await makeTeam(target);
      await importOk(target, to, exported);
      const hits = (await search(target, to, "quokkatag")).hits;
      expect(hits.map((h) => h.title)).toEqual(["Failover runbook"]);
      expect(linesOf(await exportText(target, to)).find((l) => l.document)?.document?.tags).toEqual([
        "quokkatag",
        "ops",
      ]);
    } finally {
      source.close();
      target.close();
    }
  });

  it("restores an export keeping ids, externalIds and times, through the change log into search", async () => {
    const source = await buildTestApp();
    const target = await buildTestApp();
    try {
      const { apiKey: from } = await makeTeam(source);
      await fill(source, from);
      const exported = await exportText(source, from);
      const { apiKey: to } = await makeTeam(target);
      const first = await importOk(target, to, exported);
      const { documents, entries } = teamContent();
      expect(first).toEqual({
        documents: { created: documents.length, updated: 0, unchanged: 0, renamed: 0 },
        entries: { created: entries.length, unchanged: 0, renamed: 0 },
      });
      // The restored team exports the same lines (its header's time and name aside).
      const again = linesOf(await exportText(target, to));
      expect(again.slice(1)).toEqual(linesOf(exported).slice(1));
      // The live index saw the writes: search finds restored text at once, at the same ids.
      const restored = (await search(target, to, "wombat relay")).hits[0];
      const original = (await search(source, from, "wombat relay")).hits[0];
      expect(restored?.documentId).toBeDefined();
      expect(restored?.documentId).toBe(original?.documentId);
      const stats = await target.request("/v1/stats", { token: to });
      expect(await stats.json()).toMatchObject({ documents: documents.length, entries: entries.length });
    } finally {
      source.close();
      target.close();
    }
  });

  it("is idempotent: a second run finds everything unchanged and writes nothing", () =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app);
      await fill(app, apiKey);
      const exported = await exportText(app, apiKey);
      const seqBefore = await app.storage.client.execute("SELECT MAX(seq) AS seq FROM changes");
      const answer = await importOk(app, apiKey, exported);
      const { documents, entries } = teamContent();
      expect(answer).toEqual({
        documents: { created: 0, updated: 0, unchanged: documents.length, renamed: 0 },
        entries: { created: 0, unchanged: entries.length, renamed: 0 },
      });
      const seqAfter = await app.storage.client.execute("SELECT MAX(seq) AS seq FROM changes");
      expect(seqAfter.rows[0]?.seq).toBe(seqBefore.rows[0]?.seq);
    }));

  it("updates a document whose exported line differs from what the team holds, keeping its id", () =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app);
      const doc = await addDocument(app, apiKey, {
        title: "Runbook",
        content: "quince marmalade",
        externalId: "rb",
      });
      const lines = linesOf(await exportText(app, apiKey));
      const line = lines[1]?.document as Record<string, unknown>;
      line.content = "persimmon jam of the runbook";
      line.updatedAt = "2030-01-02T03:04:05.000Z";
      const answer = await importOk(app, apiKey, `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`);
      expect(answer.documents).toEqual({ created: 0, updated: 1, unchanged: 0, renamed: 0 });
      const stored = await app.request(`/v1/documents/${doc.id}`, { token: apiKey });
      expect(await stored.json()).toMatchObject({
        document: {
          id: doc.id,
          content: "persimmon jam of the runbook",
          updatedAt: "2030-01-02T03:04:05.000Z",
        },
      });
      expect((await search(app, apiKey, "quince")).hits).toHaveLength(0);
      expect((await search(app, apiKey, "persimmon")).hits[0]?.documentId).toBe(doc.id);
    }));

  it("refuses a truncated stream as truncated, after applying its complete lines", () =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app);
      await fill(app, apiKey);
      const exported = await exportText(app, apiKey);
      const { apiKey: to } = await makeTeam(app, "Target");
      const lines = exported.split("\n");
      // Cut in the middle of the fifth line: lines 2–4 are the complete documents.
      const cut = `${lines.slice(0, 4).join("\n")}\n${(lines[4] as string).slice(0, 40)}`;
      const refused = await expectError(await postImport(app, to, cut), 400, "invalid_request");
      expect(refused.error.message).toMatch(/truncated/);
      expect(refused.error.message).toMatch(/3 documents/);
      const listed = await app.request("/v1/documents", { token: to });
      expect(((await listed.json()) as { documents: unknown[] }).documents).toHaveLength(3);
      // The whole export afterwards completes it; what is there counts as unchanged (renamed: same instance).
      const answer = await importOk(app, to, exported);
      expect(answer.documents.unchanged).toBe(3);
      expect(answer.documents.created).toBe(teamContent().documents.length - 3);
    }));

  it("refuses a bad line with its number, after applying the lines before it", () =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app);
      await fill(app, apiKey);
      const lines = (await exportText(app, apiKey)).split("\n");
      const { apiKey: to } = await makeTeam(app, "Target");
      const cases: [string, RegExp][] = [
        ["{not json", /line 4: is not JSON/],
        ['{"document": {"id": "d0"}}', /line 4: .*document\.id/],
        ['{"somethingElse": 1}', /line 4: is not a line of an export/],
        ["[1, 2]", /line 4: is not a JSON object/],
        [lines[0] as string, /line 4: is a second header/],
      ];
      for (const [bad, message] of cases) {
        const body = [...lines.slice(0, 3), bad, ...lines.slice(3)].join("\n");
        const refused = await expectError(await postImport(app, to, body), 400, "invalid_request");
        expect(refused.error.message).toMatch(message);
      }
      const listed = await app.request("/v1/documents", { token: to });
      expect(((await listed.json()) as { documents: unknown[] }).documents).toHaveLength(2);
      const noHeader = await expectError(
        await postImport(app, to, lines.slice(1).join("\n")),
        400,
        "invalid_request",
      );
      expect(noHeader.error.message).toMatch(/line 1: must be the export's header/);
      const version2 = lines[0]?.replace('"version":1', '"version":2') as string;
      const newer = await expectError(
        await postImport(app, to, [version2, ...lines.slice(1)].join("\n")),
        400,
        "invalid_request",
      );
      expect(newer.error.message).toMatch(/line 1: version/);
      const miscounted = [...lines.slice(0, -2), '{"end":{"documents":1,"entries":0}}', ""].join("\n");
      const wrongEnd = await expectError(await postImport(app, to, miscounted), 400, "invalid_request");
      expect(wrongEnd.error.message).toMatch(/the end line counts 1 documents/);
      const after = [...lines.slice(0, -1), lines[1], ""].join("\n");
      const trailing = await expectError(await postImport(app, to, after), 400, "invalid_request");
      expect(trailing.error.message).toMatch(/comes after the end line/);
    }));

  it("refuses hostile bodies clearly: empty, binary, not UTF-8, the wrong media type, no key", () =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app);
      const empty = await expectError(await postImport(app, apiKey, ""), 400, "invalid_request");
      expect(empty.error.message).toMatch(/truncated/);
      const binary = crypto.getRandomValues(new Uint8Array(4096));
      binary[100] = 0x0a;
      const refused = await expectError(await postImport(app, apiKey, binary), 400, "invalid_request");
      expect(refused.error.message).toMatch(/line 1/);
      const latin1 = new Uint8Array([...new TextEncoder().encode('{"memoria":"export"'), 0xe9, 0x7d, 0x0a]);
      const notUtf8 = await expectError(await postImport(app, apiKey, latin1), 400, "invalid_request");
      expect(notUtf8.error.message).toMatch(/line 1 is not UTF-8/);
      const nul = `{"memoria":"export","version":1,"exportedAt":"2026-01-01T00:00:00.000Z","team":{"name":"x"}}\n${JSON.stringify(
        {
          document: {
            id: "daaaaaaaaaaaaaaaa",
            externalId: null,
            title: "t",
            path: [],
            format: "markdown",
            content: "a\u0000b",
            createdAt: "2026-01-01T00:00:00.000Z",
            updatedAt: "2026-01-01T00:00:00.000Z",
          },
        },
      )}\n`;
      const nulLine = await expectError(await postImport(app, apiKey, nul), 400, "invalid_request");
      expect(nulLine.error.message).toMatch(/line 2: document content/);
      await expectError(
        await app.request("/v1/import", { method: "POST", token: apiKey, json: {} }),
        415,
        "unsupported_media_type",
      );
      await expectError(
        await app.request("/v1/import", {
          method: "POST",
          headers: { "content-type": "application/x-ndjson" },
          body: "{}\n",
        }),
        401,
        "unauthorized",
      );
      const listed = await app.request("/v1/documents", { token: apiKey });
      expect(((await listed.json()) as { documents: unknown[] }).documents).toHaveLength(0);
    }));

  it("gives a new id to a row whose id another team holds, the same new id on every run", () =>
    withApp(async (app) => {
      const a = await makeTeam(app, "A");
      await fill(app, a.apiKey);
      const exported = await exportText(app, a.apiKey);
      const b = await makeTeam(app, "B");
      const { documents, entries } = teamContent();
      const first = await importOk(app, b.apiKey, exported);
      expect(first.documents).toEqual({
        created: documents.length,
        updated: 0,
        unchanged: 0,
        renamed: documents.length,
      });
      expect(first.entries).toEqual({ created: entries.length, unchanged: 0, renamed: entries.length });
      const second = await importOk(app, b.apiKey, exported);
      expect(second.documents).toEqual({
        created: 0,
        updated: 0,
        unchanged: documents.length,
        renamed: documents.length,
      });
      expect(second.entries).toEqual({ created: 0, unchanged: entries.length, renamed: entries.length });
      const idsOf = (text: string) =>
        linesOf(text).flatMap((l) => (l.document ? [l.document.id] : l.entry ? [l.entry.id] : []));
      const aIds = new Set(idsOf(exported));
      const bIds = idsOf(await exportText(app, b.apiKey));
      expect(bIds).toHaveLength(aIds.size);
      for (const id of bIds) expect(aIds.has(id)).toBe(false);
      // Team A's rows are untouched, and each team finds only its own.
      expect(linesOf(await exportText(app, a.apiKey)).slice(1)).toEqual(linesOf(exported).slice(1));
      const bLines = linesOf(await exportText(app, b.apiKey));
      // The same rows under their new ids (an export lists them by id, so in another order).
      const byTitle = (lines: Line[]) =>
        lines
          .slice(1)
          .map(withoutIds)
          .sort((x, y) => JSON.stringify(x).localeCompare(JSON.stringify(y)));
      expect(byTitle(bLines)).toEqual(byTitle(linesOf(exported)));
    }));

  it("refuses a line longer than the largest document's at once, without reading the rest of the body", async () => {
    const app = await buildTestApp({ config: { maxDocumentBytes: 1000 } });
    const served = await serveOnLoopback(app);
    try {
      const { apiKey } = await makeTeam(app);
      const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = httpRequest(`${served.base}/v1/import`, {
          method: "POST",
          headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/x-ndjson" },
        });
        req.on("error", reject);
        req.on("response", (res) => {
          let body = "";
          res.on("data", (d: Buffer) => {
            body += d.toString();
          });
          res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
        });
        // 8 MiB of one line, and the request never ends: only an answer before the end can arrive.
        const chunk = Buffer.alloc(64 * 1024, "a");
        for (let i = 0; i < 128; i++) req.write(chunk);
      });
      expect(answer.status).toBe(413);
      expect(JSON.parse(answer.body)).toMatchObject({ error: { code: "payload_too_large" } });
      expect(JSON.parse(answer.body).error.message).toMatch(/line 1 is longer than/);
    } finally {
      await served.close();
      app.close();
    }
  });
});

function withoutIds(line: Line): unknown {
  if (line.document) return { ...line.document, id: "" };
  if (line.entry) return { ...line.entry, id: "" };
  return line;
}
