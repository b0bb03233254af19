// A sealed row copied onto another row or another team's row must fail to open with a clear error
// (500 `unreadable` when it is asked for by id), never open as someone else's data and never answer as if it
// were empty: a listing or a search answers the rows that open and counts the one that did not.

import { afterEach, describe, expect, it } from "vitest";
import { errorEnvelopeSchema } from "../../src/http/errors.js";
import { addDocument, buildTestApp, makeTeam, type TestApp, tempDir } from "../support/app.js";

describe("tampered rows", () => {
  const open: TestApp[] = [];
  const cleanups: (() => void)[] = [];
  afterEach(() => {
    for (const a of open.splice(0)) a.close();
    for (const c of cleanups.splice(0)) c();
  });

  async function expectUnreadable(res: Response, secretWord: string) {
    expect(res.status).toBe(500);
    const text = await res.text();
    const body = errorEnvelopeSchema.parse(JSON.parse(text));
    expect(body.error.code).toBe("unreadable");
    expect(body.error.message).toMatch(/failed to open/);
    expect(text).not.toContain(secretWord);
  }

  it("document content copied onto another document of the same team fails to open", async () => {
    const app = await buildTestApp();
    open.push(app);
    const { apiKey } = await makeTeam(app);
    const one = await addDocument(app, apiKey, { title: "One", content: "The capybara ledger." });
    const two = await addDocument(app, apiKey, { title: "Two", content: "The tapir ledger." });
    await app.storage.client.execute({
      sql: "UPDATE documents SET content = (SELECT content FROM documents WHERE id = ?) WHERE id = ?",
      args: [one.id, two.id],
    });
    await expectUnreadable(await app.request(`/v1/documents/${two.id}`, { token: apiKey }), "capybara");
    expect((await app.request(`/v1/documents/${one.id}`, { token: apiKey })).status).toBe(200);
  });

  it("document metadata copied onto another team's document fails to open", async () => {
    const app = await buildTestApp();
    open.push(app);
    const a = await makeTeam(app, "A");
    const b = await makeTeam(app, "B");
    const docA = await addDocument(app, a.apiKey, { title: "Capybara secrets", content: "x" });
    const docB = await addDocument(app, b.apiKey, { title: "Plain", content: "y" });
    await app.storage.client.execute({
      sql: "UPDATE documents SET sealed = (SELECT sealed FROM documents WHERE id = ?) WHERE id = ?",
      args: [docA.id, docB.id],
    });
    await expectUnreadable(await app.request(`/v1/documents/${docB.id}`, { token: b.apiKey }), "Capybara");
    const list = await app.request("/v1/documents", { token: b.apiKey });
    expect(list.status).toBe(200);
    const text = await list.text();
    expect(JSON.parse(text)).toMatchObject({ documents: [], unreadable: 1 });
    expect(text).not.toContain("Capybara");
  });

  it("a chunk copied onto another chunk is left out of the rebuild and counted, not searched as empty", async () => {
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    const first = await buildTestApp({ dbUrl: tmp.dbUrl });
    const { apiKey } = await makeTeam(first);
    const one = await addDocument(first, apiKey, { title: "One", content: "The capybara ledger." });
    const two = await addDocument(first, apiKey, { title: "Two", content: "The tapir ledger." });
    await first.storage.client.execute({
      sql: `UPDATE chunks SET sealed = (SELECT sealed FROM chunks WHERE document_id = ? AND first_ordinal = 0)
            WHERE document_id = ? AND first_ordinal = 0`,
      args: [one.id, two.id],
    });
    first.close();
    const second = await buildTestApp({ dbUrl: tmp.dbUrl, masterKey: first.masterKey });
    open.push(second);
    const found = await second.request("/v1/search?q=ledger", { token: apiKey });
    expect(found.status).toBe(200);
    const text = await found.text();
    const body = JSON.parse(text) as { hits: { documentId: string }[]; corpus: unknown };
    // Two's run opens as nothing: neither its own words nor the copied capybara are searchable under it.
    expect(body.hits.map((h) => h.documentId)).toEqual([one.id]);
    expect(body.corpus).toEqual({ documents: 1, chunks: 1, unreadable: 1 });
    expect(text).not.toContain("tapir");
    const stats = (await (await second.request("/v1/stats", { token: apiKey })).json()) as {
      unreadable: unknown;
      index: { state: string };
    };
    expect(stats.index.state).toBe("ready");
    expect(stats.unreadable).toEqual({ documents: 1, entries: 0 });
  });

  it("a team key under the wrong master key cannot be opened: the team's requests fail, they do not look empty", async () => {
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    const first = await buildTestApp({ dbUrl: tmp.dbUrl });
    const { apiKey } = await makeTeam(first);
    await addDocument(first, apiKey, { title: "One", content: "The capybara ledger." });
    first.close();
    const wrong = await buildTestApp({ dbUrl: tmp.dbUrl });
    open.push(wrong);
    await expectUnreadable(await wrong.request("/v1/search?q=ledger", { token: apiKey }), "capybara");
  });
});
