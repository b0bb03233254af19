import { describe, expect, it } from "vitest";
import { documentAnswer, documentListAnswer, documentWithContentAnswer } from "../../src/routes/documents.js";
import { searchAnswer } from "../../src/routes/schemas.js";
import { addDocument, makeTeam, type TestApp } from "../support/app.js";
import { expectError, expectNoContent, expectOk, tickingClock, withApp } from "./contract.js";

type DocumentList = ReturnType<typeof documentListAnswer.parse>;

async function searchFor(app: TestApp, apiKey: string, q: string) {
  const res = await app.request(`/v1/search?${new URLSearchParams({ q })}`, { token: apiKey });
  return expectOk(res, 200, searchAnswer);
}

describe("POST /v1/documents (JSON)", () => {
  it("stores a document: 201, chunks ≥ 1, version 1, path echoed, format markdown by default", () =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app);
      const res = await app.request("/v1/documents", {
        method: "POST",
        token: apiKey,
        json: {
          title: "Onboarding guide",
          content: "# Welcome\n\nAsk the platypus desk for a laptop.\n",
          path: ["Handbook", "Onboarding"],
        },
      });
      const { document } = await expectOk(res, 201, documentAnswer);
      expect(document.title).toBe("Onboarding guide");
      expect(document.path).toEqual(["Handbook", "Onboarding"]);
      expect(document.format).toBe("markdown");
      expect(document.chunks).toBeGreaterThanOrEqual(1);
      expect(document.version).toBe(1);
      expect(document.externalId).toBeUndefined();
      expect(document.id.length).toBeGreaterThan(0);
      expect(Number.isNaN(Date.parse(document.createdAt))).toBe(false);
      expect(document.updatedAt).toBe(document.createdAt);
      expect(document.createdAt.endsWith("Z")).toBe(true);
    }));

  it("keeps the format given and defaults path to []", () =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app);
      for (const format of ["markdown", "text", "html"] as const) {
        const res = await app.request("/v1/documents", {
          method: "POST",
          token: apiKey,
          json: { title: `A ${format} page`, content: "<p>Some words</p>", format },
        });
        const { document } = await expectOk(res, 201, documentAnswer);
        expect(document.format).toBe(format);
        expect(document.path).toEqual([]);
      }
    }));

  it("replaces the document holding the same externalId: 200, same id, version 2", () =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app);
      const first = await expectOk(
        await app.request("/v1/documents", {
          method: "POST",
          token: apiKey,
          json: { title: "Runbook", content: "Restart the gryphon service.", externalId: "file:runbook.md" },
        }),
        201,
        documentAnswer,
      );
      expect(first.document.externalId).toBe("file:runbook.md");
      const second = await expectOk(
        await app.request("/v1/documents", {
          method: "POST",
          token: apiKey,
          json: {
            title: "Runbook v2",
            content: "Restart the hippogriff service.",
            externalId: "file:runbook.md",
          },
        }),
        200,
        documentAnswer,
      );
      expect(second.document.id).toBe(first.document.id);
      expect(second.document.version).toBe(2);
      expect(second.document.title).toBe("Runbook v2");
      expect(second.document.externalId).toBe("file:runbook.md");
      expect(second.document.createdAt).toBe(first.document.createdAt);
      const list = await expectOk(
        await app.request("/v1/documents", { token: apiKey }),
        200,
        documentListAnswer,
      );
      expect(list.documents.map((d) => d.id)).toEqual([first.document.id]);
      expect((await searchFor(app, apiKey, "gryphon")).hits).toEqual([]);
      expect((await searchFor(app, apiKey, "hippogriff")).hits.map((h) => h.documentId)).toEqual([
        first.document.id,
      ]);
    }));

  it("keeps content exactly as sent and answers it from GET /v1/documents/{id}", () =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app);
      const content =
        "# Tïtle 🦊\r\n\r\n  indented  \ttabs\n\n<b>not escaped</b> & \"quotes\" 'apos' \\ back\n日本語\n";
      const created = await expectOk(
        await app.request("/v1/documents", {
          method: "POST",
          token: apiKey,
          json: { title: "Exact", content, format: "text", path: ["A"], externalId: "ext-1" },
        }),
        201,
        documentAnswer,
      );
      const got = await expectOk(
        await app.request(`/v1/documents/${created.document.id}`, { token: apiKey }),
        200,
        documentWithContentAnswer,
      );
      expect(got.document.content).toBe(content);
      const { content: _content, ...meta } = got.document;
      expect(meta).toEqual(created.document);
    }));

  it("accepts empty content and keeps the title findable", () =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app);
      const created = await expectOk(
        await app.request("/v1/documents", {
          method: "POST",
          token: apiKey,
          json: { title: "Quarterly narwhal roadmap", content: "" },
        }),
        201,
        documentAnswer,
      );
      expect(created.document.chunks).toBeGreaterThanOrEqual(1);
      const got = await expectOk(
        await app.request(`/v1/documents/${created.document.id}`, { token: apiKey }),
        200,
        documentWithContentAnswer,
      );
      expect(got.document.content).toBe("");
      const found = await searchFor(app, apiKey, "narwhal");
      expect(found.hits.map((h) => h.documentId)).toContain(created.document.id);
    }));

  it("accepts a 512-code-point title of emoji", () =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app);
      const title = "🦊".repeat(512);
      const res = await app.request("/v1/documents", {
        method: "POST",
        token: apiKey,
        json: { title, content: "x" },
      });
      expect((await expectOk(res, 201, documentAnswer)).document.title).toBe(title);
    }));
});

describe("POST /v1/documents (raw bodies)", () => {
  it.each([
    ["text/markdown", "markdown", "# Heading\n\nThe ocelot sleeps."],
    ["text/markdown; charset=utf-8", "markdown", "The ocelot sleeps."],
    ["text/plain", "text", "The ocelot sleeps.\nSecond line."],
    ["text/html", "html", "<h1>Heading</h1><p>The ocelot sleeps.</p>"],
  ])("stores a %s body with ?title= as %s", (contentType, format, content) =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app);
      const res = await app.request(`/v1/documents?${new URLSearchParams({ title: "Raw ✓ page" })}`, {
        method: "POST",
        token: apiKey,
        headers: { "content-type": contentType },
        body: content,
      });
      const { document } = await expectOk(res, 201, documentAnswer);
      expect(document.title).toBe("Raw ✓ page");
      expect(document.format).toBe(format);
      expect(document.version).toBe(1);
      expect(document.chunks).toBeGreaterThanOrEqual(1);
      expect(document.path).toEqual([]);
      const got = await expectOk(
        await app.request(`/v1/documents/${document.id}`, { token: apiKey }),
        200,
        documentWithContentAnswer,
      );
      expect(got.document.content).toBe(content);
      expect((await searchFor(app, apiKey, "ocelot")).hits.map((h) => h.documentId)).toEqual([document.id]);
    }),
  );
});

describe("POST /v1/documents (multipart)", () => {
  it.each([
    ["notes.md", "markdown", "notes"],
    ["notes.txt", "text", "notes"],
    ["page.html", "html", "page"],
    ["release.notes.v2.md", "markdown", "release.notes.v2"],
  ])("stores a file field %s as %s, titled by its name without the extension", (name, format, title) =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app);
      const content = format === "html" ? "<p>The axolotl swims.</p>" : "The axolotl swims.\n";
      const form = new FormData();
      form.append("file", new File([content], name, { type: "application/octet-stream" }));
      const res = await app.request("/v1/documents", { method: "POST", token: apiKey, body: form });
      const { document } = await expectOk(res, 201, documentAnswer);
      expect(document.title).toBe(title);
      expect(document.format).toBe(format);
      expect(document.chunks).toBeGreaterThanOrEqual(1);
      const got = await expectOk(
        await app.request(`/v1/documents/${document.id}`, { token: apiKey }),
        200,
        documentWithContentAnswer,
      );
      expect(got.document.content).toBe(content);
      expect((await searchFor(app, apiKey, "axolotl")).hits.map((h) => h.documentId)).toEqual([document.id]);
    }),
  );

  it("accepts a Blob appended with a file name", () =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app);
      const form = new FormData();
      form.append("file", new Blob(["# Hi\n\nquokka"], { type: "text/markdown" }), "Quokka notes.md");
      const res = await app.request("/v1/documents", { method: "POST", token: apiKey, body: form });
      const { document } = await expectOk(res, 201, documentAnswer);
      // Its heading names it first (docs/ingest/markdown.md, "Titles"); the file name is the title of last resort.
      expect(document.title).toBe("Hi");
      expect(document.format).toBe("markdown");
    }));
});

describe("GET /v1/documents", () => {
  it("lists newest first and pages with limit and cursor", () =>
    withApp(
      async (app) => {
        const { apiKey } = await makeTeam(app);
        const made = [];
        for (const title of ["first", "second", "third"]) {
          made.push(await addDocument(app, apiKey, { title, content: `${title} body` }));
        }
        const newestFirst = made.map((d) => d.id).reverse();

        const all = await expectOk(
          await app.request("/v1/documents", { token: apiKey }),
          200,
          documentListAnswer,
        );
        expect(all.documents.map((d) => d.id)).toEqual(newestFirst);
        expect(all.documents.map((d) => d.title)).toEqual(["third", "second", "first"]);
        expect(all.nextCursor).toBeNull();

        const page1 = await expectOk(
          await app.request("/v1/documents?limit=2", { token: apiKey }),
          200,
          documentListAnswer,
        );
        expect(page1.documents.map((d) => d.id)).toEqual(newestFirst.slice(0, 2));
        expect(page1.nextCursor).toEqual(expect.any(String));

        const page2 = await expectOk(
          await app.request(
            `/v1/documents?${new URLSearchParams({ limit: "2", cursor: page1.nextCursor ?? "" })}`,
            {
              token: apiKey,
            },
          ),
          200,
          documentListAnswer,
        );
        expect(page2.documents.map((d) => d.id)).toEqual(newestFirst.slice(2));
        expect(page2.nextCursor).toBeNull();

        const exact = await expectOk(
          await app.request("/v1/documents?limit=3", { token: apiKey }),
          200,
          documentListAnswer,
        );
        expect(exact.documents.map((d) => d.id)).toEqual(newestFirst);
        expect(exact.nextCursor).toBeNull();

        const ones: string[] = [];
        let cursor: string | null = null;
        do {
          const params: URLSearchParams = new URLSearchParams({ limit: "1", ...(cursor ? { cursor } : {}) });
          const page: DocumentList = await expectOk(
            await app.request(`/v1/documents?${params}`, { token: apiKey }),
            200,
            documentListAnswer,
          );
          expect(page.documents.length).toBeLessThanOrEqual(1);
          ones.push(...page.documents.map((d) => d.id));
          cursor = page.nextCursor;
        } while (cursor !== null && ones.length < 10);
        expect(ones).toEqual(newestFirst);
      },
      { clock: tickingClock() },
    ));

  it("orders documents made in the same millisecond by id, descending", () =>
    withApp(
      async (app) => {
        const { apiKey } = await makeTeam(app);
        for (let i = 0; i < 5; i++)
          await addDocument(app, apiKey, { title: `doc ${i}`, content: "same time" });
        const all = await expectOk(
          await app.request("/v1/documents", { token: apiKey }),
          200,
          documentListAnswer,
        );
        const ids = all.documents.map((d) => d.id);
        expect(ids).toEqual([...ids].sort().reverse());
        const seen: string[] = [];
        let cursor: string | null = null;
        do {
          const params: URLSearchParams = new URLSearchParams({ limit: "2", ...(cursor ? { cursor } : {}) });
          const page: DocumentList = await expectOk(
            await app.request(`/v1/documents?${params}`, { token: apiKey }),
            200,
            documentListAnswer,
          );
          seen.push(...page.documents.map((d) => d.id));
          cursor = page.nextCursor;
        } while (cursor !== null && seen.length < 20);
        expect(seen).toEqual(ids);
      },
      { clock: { now: () => new Date("2025-06-01T12:00:00.000Z") } },
    ));

  it("answers an empty list for a team with no documents", () =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app);
      const list = await expectOk(
        await app.request("/v1/documents", { token: apiKey }),
        200,
        documentListAnswer,
      );
      expect(list).toEqual({ documents: [], unreadable: 0, nextCursor: null });
    }));

  it("accepts limit 1 and 200", () =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app);
      await addDocument(app, apiKey, { title: "one", content: "x" });
      for (const limit of ["1", "200"]) {
        const list = await expectOk(
          await app.request(`/v1/documents?limit=${limit}`, { token: apiKey }),
          200,
          documentListAnswer,
        );
        expect(list.documents.length).toBe(1);
      }
    }));
});

describe("PUT /v1/documents/{id}", () => {
  it("replaces: version up, old words gone from search, new words found", () =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app);
      const created = await addDocument(app, apiKey, {
        title: "Coffee machine",
        content: "# Coffee\n\nDescale the espresso wombat weekly.\n\n## Beans\n\nBuy wombat roast.",
      });
      // Warm the index first, so the replacement has to reach a live index, not only storage.
      expect((await searchFor(app, apiKey, "wombat")).hits.length).toBeGreaterThanOrEqual(1);

      const res = await app.request(`/v1/documents/${created.id}`, {
        method: "PUT",
        token: apiKey,
        json: {
          title: "Tea kettle",
          content: "Boil the kettle for the capybara.",
          format: "text",
          path: ["Kitchen"],
        },
      });
      const { document } = await expectOk(res, 200, documentAnswer);
      expect(document.id).toBe(created.id);
      expect(document.version).toBe(2);
      expect(document.title).toBe("Tea kettle");
      expect(document.format).toBe("text");
      expect(document.path).toEqual(["Kitchen"]);
      expect(Date.parse(document.updatedAt)).toBeGreaterThanOrEqual(Date.parse(document.createdAt));

      expect((await searchFor(app, apiKey, "wombat")).hits).toEqual([]);
      expect((await searchFor(app, apiKey, "espresso descale beans")).hits).toEqual([]);
      expect((await searchFor(app, apiKey, "Coffee")).hits).toEqual([]);
      const found = await searchFor(app, apiKey, "capybara");
      expect(found.hits.map((h) => h.documentId)).toEqual([created.id]);
      expect(found.hits[0]?.title).toBe("Tea kettle");
      expect(found.hits[0]?.path).toEqual(["Kitchen"]);
      expect(found.corpus.documents).toBe(1);
      expect(found.corpus.chunks).toBe(document.chunks);

      const got = await expectOk(
        await app.request(`/v1/documents/${created.id}`, { token: apiKey }),
        200,
        documentWithContentAnswer,
      );
      expect(got.document.content).toBe("Boil the kettle for the capybara.");
      expect(got.document.version).toBe(2);

      const third = await expectOk(
        await app.request(`/v1/documents/${created.id}`, {
          method: "PUT",
          token: apiKey,
          json: { title: "Tea kettle", content: "" },
        }),
        200,
        documentAnswer,
      );
      expect(third.document.version).toBe(3);
      expect(third.document.format).toBe("markdown");
      expect(third.document.path).toEqual([]);
      expect((await searchFor(app, apiKey, "capybara")).hits).toEqual([]);
    }));

  it("lets a document keep its own externalId", () =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app);
      const created = await addDocument(app, apiKey, { title: "A", content: "a", externalId: "ext-a" });
      const res = await app.request(`/v1/documents/${created.id}`, {
        method: "PUT",
        token: apiKey,
        json: { title: "A2", content: "a2", externalId: "ext-a" },
      });
      const { document } = await expectOk(res, 200, documentAnswer);
      expect(document.externalId).toBe("ext-a");
      expect(document.version).toBe(2);
    }));
});

describe("DELETE /v1/documents/{id}", () => {
  it("answers 204; GET is then 404 and search finds nothing of it", () =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app);
      const keep = await addDocument(app, apiKey, { title: "Keeper", content: "The kestrel stays." });
      const gone = await addDocument(app, apiKey, {
        title: "Leaving note",
        content: "# Farewell\n\nThe pangolin leaves.\n\n## More\n\nPangolin scales.",
      });
      expect((await searchFor(app, apiKey, "pangolin")).hits.length).toBeGreaterThanOrEqual(1);

      await expectNoContent(
        await app.request(`/v1/documents/${gone.id}`, { method: "DELETE", token: apiKey }),
      );

      await expectError(await app.request(`/v1/documents/${gone.id}`, { token: apiKey }), 404, "not_found");
      expect((await searchFor(app, apiKey, "pangolin")).hits).toEqual([]);
      expect((await searchFor(app, apiKey, "Leaving farewell")).hits).toEqual([]);
      const kept = await searchFor(app, apiKey, "kestrel pangolin");
      expect(kept.hits.map((h) => h.documentId)).toEqual([keep.id]);
      expect(kept.corpus).toEqual({ documents: 1, chunks: keep.chunks, unreadable: 0 });
      const list = await expectOk(
        await app.request("/v1/documents", { token: apiKey }),
        200,
        documentListAnswer,
      );
      expect(list.documents.map((d) => d.id)).toEqual([keep.id]);
    }));

  it("frees the externalId for a new document", () =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app);
      const first = await addDocument(app, apiKey, { title: "A", content: "a", externalId: "ext-a" });
      await expectNoContent(
        await app.request(`/v1/documents/${first.id}`, { method: "DELETE", token: apiKey }),
      );
      const res = await app.request("/v1/documents", {
        method: "POST",
        token: apiKey,
        json: { title: "B", content: "b", externalId: "ext-a" },
      });
      const { document } = await expectOk(res, 201, documentAnswer);
      expect(document.id).not.toBe(first.id);
      expect(document.version).toBe(1);
    }));
});
