// Documents' front matter over the documents routes: `tags` on every Document answer, searchable, re-read on
// every write; a title from front matter when the request names none; rows from before tags answer [].

import { describe, expect, it } from "vitest";
import { documentAnswer, documentListAnswer, documentWithContentAnswer } from "../../src/routes/documents.js";
import { openDocumentMeta, sealDocumentMeta } from "../../src/sealed-rows/documents.js";
import { makeTeam, search, type TestApp } from "../support/app.js";
import { expectError, expectOk, withApp } from "./contract.js";

const note =
  "---\ntitle: Failover runbook\ntags: [quokkatag, ops]\naliases: [Switchover]\nowner: ada\n---\n\nBody text.\n";

async function post(app: TestApp, apiKey: string, json: unknown) {
  return expectOk(
    await app.request("/v1/documents", { method: "POST", token: apiKey, json }),
    201,
    documentAnswer,
  );
}

/** Re-seals every document's meta without `tags`, as a server before tags were read wrote it. */
async function withoutTags(app: TestApp): Promise<void> {
  const rows = await app.storage.client.execute("SELECT team_id, id, sealed FROM documents");
  for (const row of rows.rows) {
    const id = String(row.id);
    const key = await app.memoria.directory.teamKey(String(row.team_id));
    if (!key) throw new Error("no team key");
    const { tags: _, ...older } = await openDocumentMeta(key, id, new Uint8Array(row.sealed as ArrayBuffer));
    await app.storage.client.execute({
      sql: "UPDATE documents SET sealed = ? WHERE id = ?",
      args: [await sealDocumentMeta(key, id, older), id],
    });
  }
}

describe("front matter through the documents routes", () => {
  it("titles a JSON document without a title by its front matter, and lists its tags everywhere", () =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app);
      const { document } = await post(app, apiKey, { content: note });
      expect(document).toMatchObject({ title: "Failover runbook", tags: ["quokkatag", "ops", "Switchover"] });
      const got = await expectOk(
        await app.request(`/v1/documents/${document.id}`, { token: apiKey }),
        200,
        documentWithContentAnswer,
      );
      expect(got.document.tags).toEqual(["quokkatag", "ops", "Switchover"]);
      expect(got.document.content).toBe(note);
      const list = await expectOk(
        await app.request("/v1/documents", { token: apiKey }),
        200,
        documentListAnswer,
      );
      expect(list.documents[0]?.tags).toEqual(["quokkatag", "ops", "Switchover"]);
    }));

  it("keeps the request's title first, and a document without front matter has tags []", () =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app);
      expect((await post(app, apiKey, { title: "Given", content: note })).document.title).toBe("Given");
      expect((await post(app, apiKey, { title: "Plain", content: "# Heading\n\nx" })).document.tags).toEqual(
        [],
      );
      const raw = await expectOk(
        await app.request("/v1/documents", {
          method: "POST",
          token: apiKey,
          headers: { "content-type": "text/markdown" },
          body: note,
        }),
        201,
        documentAnswer,
      );
      expect(raw.document.title).toBe("Failover runbook");
    }));

  it("finds a document by a tag or an alias, not by another key, and shows no front matter in a hit", () =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app);
      const { document } = await post(app, apiKey, { content: note });
      for (const q of ["quokkatag", "switchover"]) {
        const { hits } = await search(app, apiKey, q);
        expect(
          hits.map((h) => [h.documentId, h.title]),
          q,
        ).toEqual([[document.id, "Failover runbook"]]);
        expect(hits[0]?.snippet).toBe("Body text.");
      }
      expect((await search(app, apiKey, "ada")).hits).toEqual([]);
      expect((await search(app, apiKey, "owner")).hits).toEqual([]);
    }));

  it("re-reads tags on PUT: the old ones no longer find the document", () =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app);
      const { document } = await post(app, apiKey, { content: note });
      const replaced = await expectOk(
        await app.request(`/v1/documents/${document.id}`, {
          method: "PUT",
          token: apiKey,
          json: { content: "---\ntitle: Renamed\ntags: wombattag\n---\nBody text." },
        }),
        200,
        documentAnswer,
      );
      expect(replaced.document).toMatchObject({ title: "Renamed", tags: ["wombattag"] });
      expect((await search(app, apiKey, "quokkatag")).hits).toEqual([]);
      expect((await search(app, apiKey, "wombattag")).hits.map((h) => h.documentId)).toEqual([document.id]);
    }));

  it("answers tags [] for a document stored before tags were read", () =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app);
      const { document } = await post(app, apiKey, { title: "Old", content: note });
      await withoutTags(app);
      const got = await expectOk(
        await app.request(`/v1/documents/${document.id}`, { token: apiKey }),
        200,
        documentWithContentAnswer,
      );
      expect(got.document.tags).toEqual([]);
    }));

  it("refuses a JSON document whose content gives no title with 400, naming what to send", () =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app);
      const { error } = await expectError(
        await app.request("/v1/documents", {
          method: "POST",
          token: apiKey,
          json: { content: "---\ntags: [x]\n---\nno heading" },
        }),
        400,
        "invalid_request",
      );
      expect(error.message).toMatch(/title/);
      expect(error.message).not.toMatch(/no heading/);
    }));
});
