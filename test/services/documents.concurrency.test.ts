// Writes racing each other: versions only go up, the stored document is the last write that committed, and
// nothing a lost race sealed reaches storage or search.

import { afterEach, describe, expect, it } from "vitest";
import { ADMIN_TOKEN, addDocument, buildTestApp, makeTeam, search, type TestApp } from "../support/app.js";

describe("concurrent writes", () => {
  const open: TestApp[] = [];
  afterEach(() => {
    for (const a of open.splice(0)) a.close();
  });

  it("concurrent PUTs of one document apply one after another: every version distinct, the last one stored", async () => {
    const app = await buildTestApp();
    open.push(app);
    const { apiKey } = await makeTeam(app);
    const doc = await addDocument(app, apiKey, { title: "Plan", content: "original" });
    const words = ["aardvark", "bison", "caracal", "dingo", "echidna", "fossa"];
    // A first search builds the index, so every PUT also has to bring it level.
    await search(app, apiKey, "original");
    const answers = await Promise.all(
      words.map(async (word) => {
        const res = await app.request(`/v1/documents/${doc.id}`, {
          method: "PUT",
          token: apiKey,
          json: { title: "Plan", content: `The ${word} plan.` },
        });
        expect(res.status).toBe(200);
        return { word, version: ((await res.json()) as { document: { version: number } }).document.version };
      }),
    );
    const versions = answers.map((a) => a.version).sort((a, b) => a - b);
    expect(versions).toEqual([2, 3, 4, 5, 6, 7]);
    const last = answers.find((a) => a.version === 7)?.word;
    const stored = (await (await app.request(`/v1/documents/${doc.id}`, { token: apiKey })).json()) as {
      document: { version: number; content: string };
    };
    expect(stored.document.version).toBe(7);
    expect(stored.document.content).toBe(`The ${last} plan.`);
    for (const word of words) {
      expect((await search(app, apiKey, word)).hits.length).toBe(word === last ? 1 : 0);
    }
    const chunks = await app.storage.documents.chunkRuns(
      (await app.memoria.directory.authenticate(apiKey))?.teamId ?? "",
      doc.id,
    );
    expect(chunks.every((c) => c.version === 7)).toBe(true);
  });

  it("a POST replacing by externalId that races a DELETE of that document still stores it, never 404", async () => {
    const app = await buildTestApp();
    open.push(app);
    const { apiKey } = await makeTeam(app);
    for (let round = 0; round < 8; round++) {
      const externalId = `file:notes/${round}.md`;
      const doc = await addDocument(app, apiKey, { title: "Note", content: "first", externalId });
      const [post, del] = await Promise.all([
        app.request("/v1/documents", {
          method: "POST",
          token: apiKey,
          json: { title: "Note", content: `second ${round}`, externalId },
        }),
        app.request(`/v1/documents/${doc.id}`, { method: "DELETE", token: apiKey }),
      ]);
      expect([200, 201]).toContain(post.status);
      expect([204, 404]).toContain(del.status);
      const posted = ((await post.json()) as { document: { id: string } }).document;
      const after = await app.request(`/v1/documents/${posted.id}`, { token: apiKey });
      // Either the POST landed after the delete (a new document, still there) or before it (then deleted).
      if (post.status === 201) expect(after.status).toBe(200);
    }
  });

  it("deleting a team while its searches are in flight leaves no index or key of it behind", async () => {
    const app = await buildTestApp();
    open.push(app);
    const { apiKey, teamId } = await makeTeam(app);
    await addDocument(app, apiKey, { title: "Plan", content: "The walrus plan." });
    const searches = Array.from({ length: 5 }, () => app.request("/v1/search?q=walrus", { token: apiKey }));
    const deleted = await app.request(`/v1/teams/${teamId}`, { method: "DELETE", token: ADMIN_TOKEN });
    expect(deleted.status).toBe(204);
    for (const res of await Promise.all(searches)) expect([200, 401, 503]).toContain(res.status);
    expect(app.memoria.indexes.status(teamId).state).toBe("cold");
    expect((await app.request("/v1/search?q=walrus", { token: apiKey })).status).toBe(401);
    expect(app.memoria.indexes.status(teamId).state).toBe("cold");
  });
});
