import { describe, expect, it } from "vitest";
import { MAX_BATCH_DOCUMENTS } from "../../src/http/body-limit.js";
import { inlineChunker } from "../../src/ingest/chunker.js";
import { batchAnswer, documentAnswer } from "../../src/routes/documents.js";
import { addDocument, makeTeam, search, type TestApp } from "../support/app.js";
import { expectError, expectOk, withApp } from "./contract.js";

type BatchAnswer = ReturnType<typeof batchAnswer.parse>;

function postBatch(app: TestApp, apiKey: string, documents: unknown[], headers: Record<string, string> = {}) {
  return app.request("/v1/documents/batch", { method: "POST", token: apiKey, json: { documents }, headers });
}

async function batch(app: TestApp, apiKey: string, documents: unknown[]): Promise<BatchAnswer> {
  return expectOk(await postBatch(app, apiKey, documents), 200, batchAnswer);
}

/** Counts the storage transactions (libSQL batches and interactive transactions) run from now on. */
function countTransactions(app: TestApp): { count: () => number } {
  const client = app.storage.client;
  let count = 0;
  const batchOf = client.batch.bind(client);
  const transactionOf = client.transaction.bind(client);
  client.batch = ((...args: Parameters<typeof client.batch>) => {
    count++;
    return batchOf(...args);
  }) as typeof client.batch;
  client.transaction = ((...args: Parameters<typeof client.transaction>) => {
    count++;
    return transactionOf(...args);
  }) as typeof client.transaction;
  return { count: () => count };
}

describe("POST /v1/documents/batch", () => {
  it("answers each item in request order: stored, refused alone, replaced by externalId", () =>
    withApp(
      async (app) => {
        const { apiKey } = await makeTeam(app);
        const known = await addDocument(app, apiKey, {
          title: "Old runbook",
          content: "The old words.",
          externalId: "runbook",
        });
        const { results } = await batch(app, apiKey, [
          { title: "Onboarding", content: "Ask the quokka desk for a laptop.", path: ["Handbook"] },
          { title: "", content: "a blank title" },
          { title: "Runbook", content: "Restart the wombat service first.", externalId: "runbook" },
          { title: "Too long", content: "x".repeat(2001) },
          { title: "Binary", content: "a\u0000b" },
          "not an object",
          { title: "Notion", content: "reserved", externalId: "notion:abc" },
        ]);
        expect(results).toHaveLength(7);
        const [made, blank, replaced, tooLong, binary, notObject, reserved] = results;
        if (!made || !("document" in made)) throw new Error("the first item was not stored");
        expect(made.document.version).toBe(1);
        expect(made.document.path).toEqual(["Handbook"]);
        expect(blank).toMatchObject({ error: { code: "invalid_request" } });
        expect(blank && "error" in blank && blank.error.message).toMatch(/^Invalid request: title:/);
        if (!replaced || !("document" in replaced)) throw new Error("the replacement was not stored");
        expect(replaced.document.id).toBe(known.id);
        expect(replaced.document.version).toBe(2);
        expect(replaced.document.title).toBe("Runbook");
        expect(tooLong).toEqual({
          error: { code: "payload_too_large", message: "Document content is 2001 bytes; the limit is 2000." },
        });
        expect(binary).toMatchObject({ error: { code: "invalid_request" } });
        expect(notObject).toMatchObject({ error: { code: "invalid_request" } });
        expect(reserved).toMatchObject({ error: { code: "invalid_request" } });

        // What was stored is what GET answers, and search finds both documents at once.
        const got = await expectOk(
          await app.request(`/v1/documents/${made.document.id}`, { token: apiKey }),
          200,
          documentAnswer,
        );
        expect(got.document.title).toBe("Onboarding");
        expect((await search(app, apiKey, "quokka")).hits).toHaveLength(1);
        expect((await search(app, apiKey, "wombat")).hits.map((h) => h.documentId)).toEqual([known.id]);
        expect((await search(app, apiKey, "old words")).hits).toHaveLength(0);
        const list = (await (await app.request("/v1/documents", { token: apiKey })).json()) as {
          documents: unknown[];
        };
        expect(list.documents).toHaveLength(2);
      },
      { config: { maxDocumentBytes: 2000 } },
    ));

  it("applies two items with one externalId in order: the later replaces the earlier", () =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app);
      const { results } = await batch(app, apiKey, [
        { title: "First", content: "the first echidna", externalId: "same" },
        { title: "Other", content: "unrelated", externalId: "other" },
        { title: "Second", content: "the second platypus", externalId: "same" },
      ]);
      const [first, , second] = results;
      if (!first || !("document" in first) || !second || !("document" in second))
        throw new Error("not stored");
      expect(second.document.id).toBe(first.document.id);
      expect([first.document.version, second.document.version]).toEqual([1, 2]);
      expect((await search(app, apiKey, "platypus")).hits).toHaveLength(1);
      expect((await search(app, apiKey, "echidna")).hits).toHaveLength(0);
    }));

  it(`refuses more than ${MAX_BATCH_DOCUMENTS} items, or a body that is not {"documents": [...]}, with 400`, () =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app);
      const many = Array.from({ length: MAX_BATCH_DOCUMENTS + 1 }, (_, i) => ({
        title: `N${i}`,
        content: "x",
      }));
      await expectError(await postBatch(app, apiKey, many), 400, "invalid_request");
      for (const json of [{ docs: [] }, [{ title: "a", content: "b" }], { documents: "no" }]) {
        const res = await app.request("/v1/documents/batch", { method: "POST", token: apiKey, json });
        await expectError(res, 400, "invalid_request");
      }
      expect((await search(app, apiKey, "x")).corpus.documents).toBe(0);
    }));

  it("refuses a body over MEMORIA_MAX_BATCH_BYTES with 413, and takes one of exactly that size", () =>
    withApp(
      async (app) => {
        const { apiKey } = await makeTeam(app);
        const limit = 256 * 1024;
        const body = (size: number) => {
          const head = '{"documents":[{"title":"t","content":"ok"}],"pad":"';
          return `${head}${" ".repeat(size - head.length - 2)}"}`;
        };
        const over = await app.request("/v1/documents/batch", {
          method: "POST",
          token: apiKey,
          headers: { "content-type": "application/json" },
          body: body(limit + 1),
        });
        await expectError(over, 413, "payload_too_large");
        const under = await app.request("/v1/documents/batch", {
          method: "POST",
          token: apiKey,
          headers: { "content-type": "application/json" },
          body: body(limit),
        });
        const { results } = await expectOk(under, 200, batchAnswer);
        expect(results[0]).toHaveProperty("document");
      },
      { config: { maxBatchBytes: 256 * 1024 } },
    ));

  it("replays a batch sent again with the same Idempotency-Key, storing nothing twice", () =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app);
      const documents = [
        { title: "One", content: "first numbat note" },
        { title: "Two", content: "second numbat note" },
      ];
      const headers = { "idempotency-key": "batch-0001" };
      const first = await expectOk(await postBatch(app, apiKey, documents, headers), 200, batchAnswer);
      const again = await postBatch(app, apiKey, documents, headers);
      expect(again.headers.get("idempotent-replayed")).toBe("true");
      expect(await expectOk(again, 200, batchAnswer)).toEqual(first);
      expect((await search(app, apiKey, "numbat")).corpus.documents).toBe(2);
      const other = await postBatch(app, apiKey, documents.slice(0, 1), headers);
      await expectError(other, 422, "invalid_request");
    }));

  it("stores the groups it could when storage fails part way, says which items were not, and replays that", () =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app);
      // A real storage failure, from the 101st document on: the first group of 100 commits, the second cannot.
      // The batch is cut into two groups before item 100, whose externalId item 0 already holds.
      await app.storage.client.execute(
        `CREATE TRIGGER storage_full BEFORE INSERT ON documents
         WHEN (SELECT count(*) FROM documents) >= 100 BEGIN SELECT RAISE(ABORT, 'storage full'); END`,
      );
      const documents = Array.from({ length: 150 }, (_, i) => ({
        title: `Note ${i}`,
        content: `dugong note ${i}`,
        ...(i === 0 || i === 100 ? { externalId: "cut-here" } : {}),
      }));
      const headers = { "idempotency-key": "batch-partial-1" };
      const first = await expectOk(await postBatch(app, apiKey, documents, headers), 200, batchAnswer);
      const stored = first.results.filter((r) => "document" in r).length;
      expect(stored).toBe(100);
      expect(first.results.slice(100).every((r) => "error" in r && r.error.code === "unavailable")).toBe(
        true,
      );
      // The same batch sent again is told the same: the first 100 are not stored twice.
      const again = await postBatch(app, apiKey, documents, headers);
      expect(again.headers.get("idempotent-replayed")).toBe("true");
      expect(await expectOk(again, 200, batchAnswer)).toEqual(first);
      expect((await search(app, apiKey, "dugong", 100)).corpus.documents).toBe(100);
    }));

  it("fails the whole batch, storing nothing, when storage fails before any group is stored", () =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app);
      await app.storage.client.execute(
        "CREATE TRIGGER storage_full BEFORE INSERT ON documents BEGIN SELECT RAISE(ABORT, 'storage full'); END",
      );
      const documents = [{ title: "One", content: "manatee one" }];
      const headers = { "idempotency-key": "batch-none-1" };
      expect((await postBatch(app, apiKey, documents, headers)).status).toBe(500);
      await app.storage.client.execute("DROP TRIGGER storage_full");
      // Nothing was remembered for the key: the retry stores the batch.
      const retry = await expectOk(await postBatch(app, apiKey, documents, headers), 200, batchAnswer);
      expect(retry.results.every((r) => "document" in r)).toBe(true);
    }));

  it("fails only the item that cannot be chunked", () =>
    withApp(
      async (app) => {
        const { apiKey } = await makeTeam(app);
        const answer = await batch(app, apiKey, [
          { title: "A", content: "sirenian a" },
          { title: "B", content: "explode here" },
          { title: "C", content: "sirenian c" },
        ]);
        expect(answer.results.map((r) => ("document" in r ? "stored" : r.error.code))).toEqual([
          "stored",
          "unavailable",
          "stored",
        ]);
        expect((await search(app, apiKey, "sirenian")).corpus.documents).toBe(2);
      },
      {
        // A chunker that fails as a crashed pool worker does: a plain Error, not a domain error.
        chunker: async (doc) => {
          if (doc.content.includes("explode")) throw new Error("chunk worker crashed");
          return inlineChunker(doc);
        },
      },
    ));

  it("writes 500 small documents in one transaction, which the live index takes without re-reading", () =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app);
      // A first search loads the team's index, so the batch has a live index to bring level.
      await addDocument(app, apiKey, { title: "Seed", content: "seed" });
      expect((await search(app, apiKey, "seed")).hits).toHaveLength(1);
      const indexes = app.memoria.indexes;
      let catchUps = 0;
      const committed = indexes.committed.bind(indexes);
      indexes.committed = async (key) => {
        catchUps++;
        return committed(key);
      };
      const rows = app.storage.documents;
      const reread = rows.chunkRuns.bind(rows);
      let rereads = 0;
      rows.chunkRuns = async (...args) => {
        rereads++;
        return reread(...args);
      };
      const transactions = countTransactions(app);
      const documents = Array.from({ length: MAX_BATCH_DOCUMENTS }, (_, i) => ({
        title: `Note ${i}`,
        content: `# Note ${i}\n\nword${i} appears in this note alone, with the shared word kookaburra.`,
        ...(i % 2 === 0 ? { externalId: `note-${i}` } : {}),
      }));
      const { results } = await batch(app, apiKey, documents);
      expect(transactions.count()).toBe(1);
      // Its documents went from memory into the index, which was level with the change log before it.
      expect(catchUps).toBe(0);
      expect(rereads).toBe(0);
      expect(results.every((r) => "document" in r)).toBe(true);
      for (const i of [0, 1, 137, 250, 499]) {
        const hits = (await search(app, apiKey, `word${i}`)).hits;
        expect(hits.map((h) => h.documentId)).toEqual([
          (results[i] as { document: { id: string } }).document.id,
        ]);
      }
      expect((await search(app, apiKey, "kookaburra")).corpus.documents).toBe(MAX_BATCH_DOCUMENTS + 1);
    }));
});
