import { describe, expect, it } from "vitest";
import { documentAnswer, documentListAnswer, documentWithContentAnswer } from "../../src/routes/documents.js";
import { searchAnswer } from "../../src/routes/schemas.js";
import { ADMIN_TOKEN, addDocument, makeTeam, type TestApp } from "../support/app.js";
import { expectError, expectOk, withApp } from "./contract.js";

const routes = (id: string): [string, string][] => [
  ["POST", "/v1/documents"],
  ["GET", "/v1/documents"],
  ["GET", `/v1/documents/${id}`],
  ["PUT", `/v1/documents/${id}`],
  ["DELETE", `/v1/documents/${id}`],
];

function send(app: TestApp, method: string, path: string, authorization?: string): Promise<Response> {
  const headers: Record<string, string> = authorization === undefined ? {} : { authorization };
  const json =
    method === "POST" || method === "PUT" ? { title: "Intruder", content: "intruder words" } : undefined;
  return app.request(path, { method, headers, ...(json ? { json } : {}) });
}

async function searchFor(app: TestApp, apiKey: string, q: string) {
  return expectOk(
    await app.request(`/v1/search?${new URLSearchParams({ q })}`, { token: apiKey }),
    200,
    searchAnswer,
  );
}

async function expectUntouched(app: TestApp, apiKey: string, id: string, content: string): Promise<void> {
  const got = await expectOk(
    await app.request(`/v1/documents/${id}`, { token: apiKey }),
    200,
    documentWithContentAnswer,
  );
  expect(got.document.version).toBe(1);
  expect(got.document.content).toBe(content);
}

describe("team key required", () => {
  it("answers 401 on every documents route without a key, and stores nothing", () =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app);
      const doc = await addDocument(app, apiKey, { title: "Secret", content: "guarded words" });
      for (const [method, path] of routes(doc.id)) {
        await expectError(await send(app, method, path), 401, "unauthorized");
      }
      await expectError(await app.request("/v1/search?q=guarded"), 401, "unauthorized");
      await expectError(await app.request("/v1/stats"), 401, "unauthorized");
      await expectUntouched(app, apiKey, doc.id, "guarded words");
      const list = await expectOk(
        await app.request("/v1/documents", { token: apiKey }),
        200,
        documentListAnswer,
      );
      expect(list.documents.length).toBe(1);
    }));

  it("answers 401 to malformed, forged and foreign keys", () =>
    withApp(async (app) => {
      const a = await makeTeam(app, "A");
      const b = await makeTeam(app, "B");
      const doc = await addDocument(app, a.apiKey, { title: "Secret", content: "guarded words" });
      const secretOfA = a.apiKey.slice(`mem_${a.teamId}_`.length);
      const bad = [
        "",
        "Bearer",
        "Bearer ",
        "Bearer mem_",
        "Bearer mem__",
        "Bearer mem_x_y",
        `Bearer mem_${a.teamId}_`,
        `Bearer mem_${a.teamId}`,
        "Bearer mem_taaaaaaaaaaaaaaaa_secret",
        `Bearer mem_${b.teamId}_${secretOfA}`,
        `Bearer ${a.apiKey}x`,
        `Bearer ${a.apiKey.slice(0, -1)}`,
        `Bearer ${a.apiKey.toUpperCase()}`,
        `Bearer ${a.apiKey} extra`,
        `Basic ${a.apiKey}`,
        a.apiKey,
        `Bearer ${secretOfA}`,
        `Bearer ${ADMIN_TOKEN}`,
        "Bearer null",
      ];
      for (const authorization of bad) {
        for (const [method, path] of routes(doc.id)) {
          const res = await send(app, method, path, authorization);
          const text = await res.clone().text();
          await expectError(res, 401, "unauthorized");
          expect(text).not.toContain(secretOfA);
        }
      }
      await expectUntouched(app, a.apiKey, doc.id, "guarded words");
    }));
});

describe("teams are isolated", () => {
  it("answers 404 to team B for team A's ids on GET and PUT, as for ids that do not exist", () =>
    withApp(async (app) => {
      const a = await makeTeam(app, "A");
      const b = await makeTeam(app, "B");
      const doc = await addDocument(app, a.apiKey, { title: "A's plan", content: "the aardvark plan" });
      await addDocument(app, b.apiKey, { title: "B's own", content: "the bison plan" });

      const foreign = await expectError(
        await app.request(`/v1/documents/${doc.id}`, { token: b.apiKey }),
        404,
        "not_found",
      );
      const missing = await expectError(
        await app.request("/v1/documents/dxxxxxxxxxxxxxxxx", { token: b.apiKey }),
        404,
        "not_found",
      );
      expect(foreign.error.message.replace(doc.id, "ID")).toBe(
        missing.error.message.replace("dxxxxxxxxxxxxxxxx", "ID"),
      );
      await expectError(
        await app.request(`/v1/documents/${doc.id}`, {
          method: "PUT",
          token: b.apiKey,
          json: { title: "Hijacked", content: "hijacked words" },
        }),
        404,
        "not_found",
      );
      await expectUntouched(app, a.apiKey, doc.id, "the aardvark plan");
      expect((await searchFor(app, b.apiKey, "hijacked")).hits).toEqual([]);
      expect((await searchFor(app, a.apiKey, "hijacked")).hits).toEqual([]);
    }));

  it("answers 404 to team B's DELETE of team A's id and keeps A's document", () =>
    // Team B has written nothing yet here: see the report on DELETE of an unknown id once a team's change
    // log is non-empty (src/store/documents.ts appendChange guard), which answers 500 instead of 404.
    withApp(async (app) => {
      const a = await makeTeam(app, "A");
      const b = await makeTeam(app, "B");
      const doc = await addDocument(app, a.apiKey, { title: "A's plan", content: "the aardvark plan" });
      await expectError(
        await app.request(`/v1/documents/${doc.id}`, { method: "DELETE", token: b.apiKey }),
        404,
        "not_found",
      );
      await expectUntouched(app, a.apiKey, doc.id, "the aardvark plan");
      expect((await searchFor(app, a.apiKey, "aardvark")).hits.map((h) => h.documentId)).toEqual([doc.id]);
    }));

  it("never shows team A's passages, documents or counts to team B", () =>
    withApp(async (app) => {
      const a = await makeTeam(app, "A");
      const b = await makeTeam(app, "B");
      const aDoc = await addDocument(app, a.apiKey, {
        title: "Shared words alpha",
        content: "# Budget\n\nThe shared budget mentions the okapi.\n\n## Notes\n\nMore shared notes.",
      });
      const bDoc = await addDocument(app, b.apiKey, {
        title: "Shared words bravo",
        content: "The shared budget.",
      });

      for (const q of ["shared", "budget", "okapi", "alpha", "notes", "Shared words alpha okapi budget"]) {
        const found = await searchFor(app, b.apiKey, q);
        for (const hit of found.hits) {
          expect(hit.documentId).toBe(bDoc.id);
          expect(hit.snippet.toLowerCase()).not.toContain("okapi");
        }
        expect(found.corpus).toEqual({ documents: 1, chunks: bDoc.chunks, unreadable: 0 });
      }
      expect((await searchFor(app, b.apiKey, "okapi")).hits).toEqual([]);
      expect((await searchFor(app, a.apiKey, "okapi")).hits.map((h) => h.documentId)).toEqual([aDoc.id]);

      const bList = await expectOk(
        await app.request("/v1/documents", { token: b.apiKey }),
        200,
        documentListAnswer,
      );
      expect(bList.documents.map((d) => d.id)).toEqual([bDoc.id]);
      const bStats = (await (await app.request("/v1/stats", { token: b.apiKey })).json()) as {
        documents: number;
      };
      expect(bStats.documents).toBe(1);
    }));

  it("keeps externalIds per team: B's POST with A's externalId makes B's own document", () =>
    withApp(async (app) => {
      const a = await makeTeam(app, "A");
      const b = await makeTeam(app, "B");
      const aDoc = await addDocument(app, a.apiKey, {
        title: "A",
        content: "alpha words",
        externalId: "file:x.md",
      });
      const res = await app.request("/v1/documents", {
        method: "POST",
        token: b.apiKey,
        json: { title: "B", content: "bravo words", externalId: "file:x.md" },
      });
      const { document } = await expectOk(res, 201, documentAnswer);
      expect(document.id).not.toBe(aDoc.id);
      expect(document.version).toBe(1);
      const other = await addDocument(app, b.apiKey, { title: "B2", content: "x" });
      // A's externalId is no conflict for B's other document either.
      await expectError(
        await app.request(`/v1/documents/${other.id}`, {
          method: "PUT",
          token: b.apiKey,
          json: { title: "B2", content: "x", externalId: "file:x.md" },
        }),
        409,
        "conflict",
      );
      await expectUntouched(app, a.apiKey, aDoc.id, "alpha words");
    }));

  it("does not let a cursor from team A page through team B's documents differently", () =>
    withApp(async (app) => {
      const a = await makeTeam(app, "A");
      const b = await makeTeam(app, "B");
      for (let i = 0; i < 3; i++) await addDocument(app, a.apiKey, { title: `a${i}`, content: "x" });
      const bDoc = await addDocument(app, b.apiKey, { title: "b", content: "x" });
      const page = await expectOk(
        await app.request("/v1/documents?limit=1", { token: a.apiKey }),
        200,
        documentListAnswer,
      );
      const cursor = page.nextCursor ?? "";
      const res = await app.request(`/v1/documents?${new URLSearchParams({ cursor })}`, { token: b.apiKey });
      const list = await expectOk(res, 200, documentListAnswer);
      for (const d of list.documents) expect(d.id).toBe(bDoc.id);
    }));
});

describe("errors never quote content", () => {
  const word = "zyxquokkaplinth";

  it("keeps a document's words out of every error message", () =>
    withApp(
      async (app) => {
        const { apiKey } = await makeTeam(app);
        const doc = await addDocument(app, apiKey, { title: "Holder", content: `The ${word} is here.` });
        const jsonHeaders = { "content-type": "application/json" };
        const attempts: [string, RequestInit & { json?: unknown; token?: string }][] = [
          ["/v1/documents", { method: "POST", json: { content: `${word} ${word}` } }],
          ["/v1/documents", { method: "POST", json: { title: "", content: word } }],
          ["/v1/documents", { method: "POST", json: { title: word.repeat(40), content: word } }],
          ["/v1/documents", { method: "POST", json: { title: "t", content: word, format: word } }],
          ["/v1/documents", { method: "POST", json: { title: "t", content: word, path: [word, ""] } }],
          [
            "/v1/documents",
            { method: "POST", json: { title: "t", content: word, externalId: `notion:${word}` } },
          ],
          ["/v1/documents", { method: "POST", json: { title: word, content: 42 } }],
          ["/v1/documents", { method: "POST", json: { title: word, content: word.repeat(100) } }],
          [
            "/v1/documents",
            { method: "POST", headers: jsonHeaders, body: `{"title":"t","content":"${word}` },
          ],
          [
            "/v1/documents",
            { method: "POST", headers: jsonHeaders, body: `{"title":"t","content":${word}}` },
          ],
          ["/v1/documents", { method: "POST", headers: { "content-type": "application/xml" }, body: word }],
          ["/v1/documents", { method: "POST", headers: { "content-type": "text/plain" }, body: word }],
          [
            `/v1/documents?title=${word.repeat(40)}`,
            { method: "POST", headers: { "content-type": "text/plain" }, body: word },
          ],
          [`/v1/documents/${doc.id}`, { method: "PUT", json: { title: word, content: word, format: word } }],
          [
            `/v1/documents/${doc.id}`,
            { method: "PUT", headers: { "content-type": "text/plain" }, body: word },
          ],
          [`/v1/documents/${doc.id}`, { method: "PUT", headers: jsonHeaders, body: `{"content":"${word}` }],
          ["/v1/documents/dxxxxxxxxxxxxxxxx", { method: "PUT", json: { title: word, content: word } }],
          [`/v1/documents?limit=${word}`, {}],
          [`/v1/documents?cursor=${word}`, {}],
          [`/v1/search?q=${word}&limit=${word}`, {}],
          [`/v1/search?q=${encodeURIComponent(`${word} `.repeat(80))}`, {}],
          [`/v1/search?q=${encodeURIComponent(`${word} `.repeat(80))}`, {}],
        ];
        for (const [path, init] of attempts) {
          const res = await app.request(path, { token: apiKey, ...init });
          const text = await res.clone().text();
          expect(res.status, `${init.method ?? "GET"} ${path} answered ${res.status}`).toBeGreaterThanOrEqual(
            400,
          );
          expect(text.toLowerCase()).not.toContain(word);
          expect([...res.headers.values()].join(" ").toLowerCase()).not.toContain(word);
          await expectError(res, res.status, JSON.parse(text).error.code);
        }
        // A second document holding an externalId, so the conflict path is covered too.
        const holder = await addDocument(app, apiKey, {
          title: "t",
          content: "x",
          externalId: `ext-${word}`,
        });
        expect(holder.version).toBe(1);
        const conflict = await app.request(`/v1/documents/${doc.id}`, {
          method: "PUT",
          token: apiKey,
          json: { title: word, content: word, externalId: `ext-${word}` },
        });
        const text = await conflict.clone().text();
        await expectError(conflict, 409, "conflict");
        expect(text.toLowerCase()).not.toContain(word);
      },
      { config: { maxDocumentBytes: 1000 } },
    ));
});
