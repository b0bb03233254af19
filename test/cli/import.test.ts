// `memoria import` end to end: the real CLI as a child process against a real app over loopback HTTP.

import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openDocumentMeta, sealDocumentMeta } from "../../src/sealed-rows/documents.js";
import { addDocument, search, type TestApp } from "../support/app.js";
import { type FetchWrapper, runCli, summaryOf, withServer, writeTree } from "./harness.js";

/** Records each request as `METHOD /path` (with `?` when it had a query) before the app answers it. */
function recordCalls(calls: string[]): FetchWrapper {
  return (req, app) => {
    const url = new URL(req.url);
    calls.push(`${req.method} ${url.pathname}${url.search ? "?" : ""}`);
    return app.memoria.app.fetch(req);
  };
}

/** Re-seals the meta of the documents holding `externalIds` without contentHash, as rows before v1.1. */
async function withoutContentHash(app: TestApp, externalIds: string[]): Promise<void> {
  const rows = await app.storage.client.execute("SELECT team_id, id, sealed FROM documents");
  for (const row of rows.rows) {
    const teamId = String(row.team_id);
    const id = String(row.id);
    const key = await app.memoria.directory.teamKey(teamId);
    if (!key) throw new Error("no team key");
    const meta = await openDocumentMeta(key, id, new Uint8Array(row.sealed as ArrayBuffer));
    if (meta.externalId === null || !externalIds.includes(meta.externalId)) continue;
    const { contentHash: _, ...older } = meta;
    await app.storage.client.execute({
      sql: "UPDATE documents SET sealed = ? WHERE id = ?",
      args: [await sealDocumentMeta(key, id, older), id],
    });
  }
}

const tree = {
  "README.md": "# Team handbook\n\nWelcome aboard, the quokkaword is how we greet.\n",
  "guides/onboarding.md":
    "Read this first.\n\n## First week\n\nSet up the laptop with the wombatword script.\n",
  "guides/deep/nested/setup.markdown": "No heading here, only the echidnaword.\n",
  "notes.txt": "# not a heading in plain text\nthe dingoword stays plain\n",
  "site/page.html":
    "<html><head><title>Site page</title></head><body><h1>Welcome page</h1><p>the bilbyword</p></body></html>",
  "site/about.html": "<html><head><title>About us</title></head><body><p>the numbatword</p></body></html>",
  "site/logo.png": "not an image, and not sent",
  "data.json": '{"not": "sent"}',
  ".drafts/hidden.md": "# Hidden\n\nthe hiddenword is never sent\n",
};

describe("memoria import", () => {
  it("sends a nested folder tree with titles from headings, paths from folders and file: externalIds", async () => {
    await withServer(async (s) => {
      writeTree(s.folder, tree);
      const run = await s.importCli();
      expect(run.code, run.stderr).toBe(0);
      expect(summaryOf(run.stdout)).toEqual({ sent: 6, unchanged: 0, deleted: 0, failed: 0 });

      const docs = await s.byExternalId();
      expect([...docs.keys()].sort()).toEqual([
        "file:notes/README.md",
        "file:notes/guides/deep/nested/setup.markdown",
        "file:notes/guides/onboarding.md",
        "file:notes/notes.txt",
        "file:notes/site/about.html",
        "file:notes/site/page.html",
      ]);
      const shape = (id: string) => {
        const d = docs.get(id);
        return d && { title: d.title, path: d.path, format: d.format };
      };
      expect(shape("file:notes/README.md")).toEqual({ title: "Team handbook", path: [], format: "markdown" });
      expect(shape("file:notes/guides/onboarding.md")).toEqual({
        title: "First week",
        path: ["guides"],
        format: "markdown",
      });
      expect(shape("file:notes/guides/deep/nested/setup.markdown")).toEqual({
        title: "setup",
        path: ["guides", "deep", "nested"],
        format: "markdown",
      });

      const hit = (await search(s.app, s.apiKey, "wombatword")).hits[0];
      expect(hit).toMatchObject({ title: "First week", path: ["guides"] });
      expect((await search(s.app, s.apiKey, "hiddenword")).hits).toEqual([]);

      // Progress names files by relative path; nothing a file says is ever printed.
      expect(run.stderr).toContain("sent guides/deep/nested/setup.markdown (new)");
      for (const word of ["quokkaword", "wombatword", "Welcome aboard", "Team handbook", "First week"]) {
        expect(run.stdout + run.stderr).not.toContain(word);
      }
    });
  });

  it("gives .txt files the text format and .html files the html format, titled by <h1>, else <title>", async () => {
    await withServer(async (s) => {
      writeTree(s.folder, tree);
      expect((await s.importCli()).code).toBe(0);
      const docs = await s.byExternalId();
      expect(docs.get("file:notes/notes.txt")).toMatchObject({ title: "notes", path: [], format: "text" });
      expect(docs.get("file:notes/site/page.html")).toMatchObject({
        title: "Welcome page",
        path: ["site"],
        format: "html",
      });
      expect(docs.get("file:notes/site/about.html")).toMatchObject({ title: "About us", format: "html" });
      // The HTML was indexed as HTML (the tags are not words of the passage), the text as text.
      const bilby = (await search(s.app, s.apiKey, "bilbyword")).hits[0];
      expect(bilby?.snippet).not.toContain("&lt;p&gt;");
      expect((await search(s.app, s.apiKey, "dingoword")).hits).toHaveLength(1);
    });
  });

  it("sends nothing on a second run", async () => {
    await withServer(async (s) => {
      writeTree(s.folder, tree);
      expect((await s.importCli()).code).toBe(0);
      const before = await s.documents();
      const again = await s.importCli();
      expect(again.code, again.stderr).toBe(0);
      expect(summaryOf(again.stdout)).toEqual({ sent: 0, unchanged: 6, deleted: 0, failed: 0 });
      expect(again.stdout).toContain("sent 0, unchanged 6");
      const after = await s.documents();
      expect(after.map((d) => [d.id, d.version])).toEqual(before.map((d) => [d.id, d.version]));
    });
  });

  it("lists the team's documents once, page by page, and sends only what the listing shows to differ", async () => {
    const calls: string[] = [];
    await withServer(
      async (s) => {
        // 201 documents from elsewhere, so the listing takes two pages of 200.
        for (let i = 0; i < 201; i++) {
          await addDocument(s.app, s.apiKey, { title: `Other ${i}`, content: "x", externalId: `wiki:${i}` });
        }
        writeTree(s.folder, { "a.md": "# A\n\nalpha", "b.md": "# B\n\nbravo", "c.txt": "charlie" });
        expect((await s.importCli()).code).toBe(0);
        expect(calls.filter((c) => c.startsWith("GET /v1/documents?"))).toHaveLength(2);
        expect(calls.filter((c) => c.startsWith("GET /v1/documents/"))).toEqual([]);

        calls.length = 0;
        writeFileSync(join(s.folder, "a.md"), "# A renamed\n\nalpha"); // the title differs
        writeFileSync(join(s.folder, "c.txt"), "charlie, edited"); // same metadata, another contentHash
        const run = await s.importCli();
        expect(summaryOf(run.stdout)).toEqual({ sent: 2, unchanged: 1, deleted: 0, failed: 0 });
        expect(calls.filter((c) => c.startsWith("GET /v1/documents?"))).toHaveLength(2);
        expect(calls.filter((c) => c.startsWith("GET /v1/documents/"))).toEqual([]);
        // Both changed files in one batch request.
        expect(calls.filter((c) => c.startsWith("POST"))).toEqual(["POST /v1/documents/batch"]);
        const docs = await s.byExternalId();
        expect(docs.get("file:notes/a.md")?.version).toBe(2);
        expect(docs.get("file:notes/b.md")?.version).toBe(1);
        expect(docs.get("file:notes/c.txt")?.version).toBe(2);
      },
      { wrap: recordCalls(calls) },
    );
  });

  it("costs one listing request when nothing changed: 50 files, 1 request where rows before v1.1 cost 51", async () => {
    const calls: string[] = [];
    await withServer(
      async (s) => {
        const files: Record<string, string> = {};
        for (let i = 0; i < 50; i++) files[`notes/n${i}.md`] = `# Note ${i}\n\nThe body of note ${i}.\n`;
        writeTree(s.folder, files);
        const first = await s.importCli();
        expect(summaryOf(first.stdout)).toEqual({ sent: 50, unchanged: 0, deleted: 0, failed: 0 });
        // The listing, and the 50 files in one batch.
        expect(calls).toEqual(["GET /v1/documents?", "POST /v1/documents/batch"]);

        calls.length = 0;
        const again = await s.importCli();
        expect(again.code, again.stderr).toBe(0);
        expect(summaryOf(again.stdout)).toEqual({ sent: 0, unchanged: 50, deleted: 0, failed: 0 });
        expect(calls).toEqual(["GET /v1/documents?"]);

        // The same run over rows as stored before v1.1 (no hash in the sealed meta): what it cost then.
        await withoutContentHash(
          s.app,
          Object.keys(files).map((path) => `file:notes/${path}`),
        );
        calls.length = 0;
        const before = await s.importCli();
        expect(summaryOf(before.stdout)).toEqual({ sent: 0, unchanged: 50, deleted: 0, failed: 0 });
        expect(calls).toHaveLength(51);
        expect(calls.filter((c) => c.startsWith("GET /v1/documents/"))).toHaveLength(50);
      },
      { wrap: recordCalls(calls) },
    );
  });

  it("reads back only the documents listed without contentHash (stored before v1.1)", async () => {
    const calls: string[] = [];
    await withServer(
      async (s) => {
        const files: Record<string, string> = {};
        for (let i = 0; i < 6; i++) files[`n${i}.md`] = `# Note ${i}\n\nbody ${i}\n`;
        writeTree(s.folder, files);
        expect((await s.importCli()).code).toBe(0);
        // Rewrite two rows' sealed meta as a server before v1.1 wrote it: without contentHash.
        const old = ["file:notes/n1.md", "file:notes/n4.md"];
        await withoutContentHash(s.app, old);
        const listed = await s.byExternalId();
        expect(old.map((id) => listed.get(id)).every((d) => d && !("contentHash" in d))).toBe(true);

        writeFileSync(join(s.folder, "n4.md"), "# Note 4\n\nbody 4, edited\n");
        calls.length = 0;
        const run = await s.importCli();
        expect(run.code, run.stderr).toBe(0);
        expect(summaryOf(run.stdout)).toEqual({ sent: 1, unchanged: 5, deleted: 0, failed: 0 });
        expect(run.stderr).toContain("sent n4.md (replaced)");
        const read = calls.filter((c) => c.startsWith("GET /v1/documents/")).sort();
        expect(read).toEqual(old.map((id) => `GET /v1/documents/${listed.get(id)?.id}`).sort());
        expect(calls.filter((c) => c.startsWith("POST"))).toHaveLength(1);
      },
      { wrap: recordCalls(calls) },
    );
  });

  it("replaces an edited file: the new text is found, the old text is not", async () => {
    await withServer(async (s) => {
      writeTree(s.folder, tree);
      expect((await s.importCli()).code).toBe(0);
      const id = (await s.byExternalId()).get("file:notes/README.md")?.id;

      writeFileSync(join(s.folder, "README.md"), "# Team handbook\n\nWelcome aboard, the walrusword now.\n");
      const run = await s.importCli();
      expect(run.code, run.stderr).toBe(0);
      expect(summaryOf(run.stdout)).toEqual({ sent: 1, unchanged: 5, deleted: 0, failed: 0 });
      expect(run.stderr).toContain("sent README.md (replaced)");

      const doc = (await s.byExternalId()).get("file:notes/README.md");
      expect(doc).toMatchObject({ id, version: 2 });
      expect((await search(s.app, s.apiKey, "walrusword")).hits.map((h) => h.documentId)).toEqual([id]);
      expect((await search(s.app, s.apiKey, "quokkaword")).hits).toEqual([]);
    });
  });

  it("compares with what the team holds, not with what this machine sent: a copy changed elsewhere is re-sent", async () => {
    await withServer(async (s) => {
      writeTree(s.folder, tree);
      expect((await s.importCli()).code).toBe(0);
      // Another import (another machine, an older checkout) stored different text under the same file.
      await addDocument(s.app, s.apiKey, {
        title: "Team handbook",
        content: "# Team handbook\n\nan older draft with the ferretword\n",
        format: "markdown",
        path: [],
        externalId: "file:notes/README.md",
      });
      const run = await s.importCli();
      expect(run.code, run.stderr).toBe(0);
      expect(summaryOf(run.stdout)).toEqual({ sent: 1, unchanged: 5, deleted: 0, failed: 0 });
      expect(run.stderr).toContain("sent README.md (replaced)");
      expect((await search(s.app, s.apiKey, "quokkaword")).hits).toHaveLength(1);
      expect((await search(s.app, s.apiKey, "ferretword")).hits).toEqual([]);
    });
  });

  it("deletes a removed file's document with --prune, not without, and never a document that is not file:", async () => {
    await withServer(async (s) => {
      writeTree(s.folder, tree);
      expect((await s.importCli()).code).toBe(0);
      const others = [
        await addDocument(s.app, s.apiKey, { title: "Wiki page", content: "x", externalId: "wiki:42" }),
        await addDocument(s.app, s.apiKey, { title: "Pasted", content: "y" }),
        await addDocument(s.app, s.apiKey, { title: "Near miss", content: "z", externalId: "files:a.md" }),
        await addDocument(s.app, s.apiKey, { title: "Upper", content: "w", externalId: "FILE:a.md" }),
      ];
      rmSync(join(s.folder, "guides/onboarding.md"));

      const kept = await s.importCli();
      expect(kept.code, kept.stderr).toBe(0);
      expect(summaryOf(kept.stdout)).toEqual({ sent: 0, unchanged: 5, deleted: 0, failed: 0 });
      expect((await s.byExternalId()).has("file:notes/guides/onboarding.md")).toBe(true);

      const pruned = await s.importCli(["--prune"]);
      expect(pruned.code, pruned.stderr).toBe(0);
      expect(summaryOf(pruned.stdout)).toEqual({ sent: 0, unchanged: 5, deleted: 1, failed: 0 });
      expect(pruned.stderr).toContain("deleted guides/onboarding.md");
      const docs = await s.documents();
      expect(docs.some((d) => d.externalId === "file:notes/guides/onboarding.md")).toBe(false);
      expect(docs).toHaveLength(5 + others.length);
      for (const other of others) expect(docs.map((d) => d.id)).toContain(other.id);
      expect((await search(s.app, s.apiKey, "wombatword")).hits).toEqual([]);
    });
  });

  it("two folders with the same relative paths imported with --prune in turn both survive", async () => {
    await withServer(async (s) => {
      const wiki = join(s.tmp, "wiki");
      writeTree(s.folder, {
        "README.md": "# Handbook\n\nthe quokkaword\n",
        "guides/a.md": "# A\n\nthe wombatword\n",
      });
      writeTree(wiki, { "README.md": "# Wiki\n\nthe ferretword\n", "guides/b.md": "# B\n\nthe otterword\n" });
      const importWiki = () => runCli(["import", wiki, "--url", s.url, "--key", s.apiKey, "--prune"]);
      for (let turn = 0; turn < 2; turn++) {
        const notes = await s.importCli(["--prune"]);
        expect(notes.code, notes.stderr).toBe(0);
        const other = await importWiki();
        expect(other.code, other.stderr).toBe(0);
        expect(summaryOf(other.stdout).deleted).toBe(0);
        expect(summaryOf(notes.stdout).deleted).toBe(0);
      }
      expect([...(await s.byExternalId()).keys()].sort()).toEqual([
        "file:notes/README.md",
        "file:notes/guides/a.md",
        "file:wiki/README.md",
        "file:wiki/guides/b.md",
      ]);
      for (const word of ["quokkaword", "wombatword", "ferretword", "otterword"]) {
        expect((await search(s.app, s.apiKey, word)).hits, word).toHaveLength(1);
      }
      // --prune still deletes the source's own documents whose files are gone, and only those.
      rmSync(join(wiki, "guides/b.md"));
      const pruned = await importWiki();
      expect(summaryOf(pruned.stdout)).toEqual({ sent: 0, unchanged: 1, deleted: 1, failed: 0 });
      expect([...(await s.byExternalId()).keys()].sort()).toEqual([
        "file:notes/README.md",
        "file:notes/guides/a.md",
        "file:wiki/README.md",
      ]);
    });
  });

  it("--source names the source instead of the folder, so a folder checked out elsewhere keeps its documents", async () => {
    await withServer(async (s) => {
      const elsewhere = join(s.tmp, "checkout-2", "handbook-copy");
      writeTree(s.folder, { "README.md": "# Handbook\n\nthe quokkaword\n" });
      writeTree(elsewhere, { "README.md": "# Handbook\n\nthe quokkaword\n" });
      expect((await s.importCli(["--source", "handbook"])).code).toBe(0);
      const again = await runCli([
        "import",
        elsewhere,
        ...["--url", s.url, "--key", s.apiKey, "--source", "handbook", "--prune"],
      ]);
      expect(summaryOf(again.stdout)).toEqual({ sent: 0, unchanged: 1, deleted: 0, failed: 0 });
      expect([...(await s.byExternalId()).keys()]).toEqual(["file:handbook/README.md"]);
    });
  });

  it("adopts documents an import before sources stored as file:<relative path>: same ids, not duplicated, not lost", async () => {
    await withServer(async (s) => {
      writeTree(s.folder, {
        "README.md": "# Handbook\n\nthe quokkaword\n",
        "guides/a.md": "# A\n\nthe wombatword, edited since\n",
      });
      // What an import before sources left: ids without a source, one of them for a file gone since.
      const readme = await addDocument(s.app, s.apiKey, {
        title: "Handbook",
        content: "# Handbook\n\nthe quokkaword\n",
        externalId: "file:README.md",
      });
      const guide = await addDocument(s.app, s.apiKey, {
        title: "A",
        content: "# A\n\nthe wombatword\n",
        path: ["guides"],
        externalId: "file:guides/a.md",
      });
      const elsewhere = await addDocument(s.app, s.apiKey, {
        title: "Old",
        content: "the ferretword",
        externalId: "file:old/gone.md",
      });

      const run = await s.importCli(["--prune"]);
      expect(run.code, run.stderr).toBe(0);
      expect(summaryOf(run.stdout)).toEqual({ sent: 2, unchanged: 0, deleted: 0, failed: 0 });
      expect(run.stderr).toContain("sent README.md (adopted from an import before sources)");
      const docs = await s.byExternalId();
      expect([...docs.keys()].sort()).toEqual([
        "file:notes/README.md",
        "file:notes/guides/a.md",
        "file:old/gone.md",
      ]);
      expect(docs.get("file:notes/README.md")?.id).toBe(readme.id);
      expect(docs.get("file:notes/guides/a.md")?.id).toBe(guide.id);
      // One it cannot tell the folder of is kept, --prune or not.
      expect(docs.get("file:old/gone.md")?.id).toBe(elsewhere.id);
      expect((await search(s.app, s.apiKey, "edited")).hits.map((h) => h.documentId)).toEqual([guide.id]);

      const second = await s.importCli(["--prune"]);
      expect(summaryOf(second.stdout)).toEqual({ sent: 0, unchanged: 2, deleted: 0, failed: 0 });
    });
  });

  it("refuses a --source holding a slash, and a folder with no name without one, as bad arguments", async () => {
    await withServer(async (s) => {
      const slash = await s.importCli(["--source", "a/b"]);
      expect(slash.code).toBe(2);
      expect(slash.stderr).toContain("--source must not hold a /");
      const root = await runCli(["import", "/", "--url", s.url, "--key", s.apiKey, "--dry-run"]);
      expect(root.code).toBe(2);
      expect(root.stderr).toContain("give --source <name>");
      expect(await s.documents()).toEqual([]);
    });
  });

  it("--dry-run sends and deletes nothing and says what it would do", async () => {
    await withServer(async (s) => {
      writeTree(s.folder, tree);
      const first = await s.importCli(["--dry-run"]);
      expect(first.code, first.stderr).toBe(0);
      expect(first.stdout).toContain("dry run");
      expect(first.stdout).toContain("would send 6, unchanged 0, would delete 0, failed 0");
      expect(await s.documents()).toEqual([]);

      expect((await s.importCli()).code).toBe(0);
      const before = await s.documents();
      writeFileSync(join(s.folder, "README.md"), "# Team handbook\n\nrewritten\n");
      writeFileSync(join(s.folder, "new.md"), "# New\n\nfresh\n");
      rmSync(join(s.folder, "notes.txt"));

      const dry = await s.importCli(["--dry-run", "--prune"]);
      expect(dry.code, dry.stderr).toBe(0);
      expect(dry.stdout).toContain("would send 2, unchanged 4, would delete 1, failed 0");
      expect(dry.stderr).toContain("would send new.md (new)");
      expect(dry.stderr).toContain("would send README.md (changed)");
      expect(dry.stderr).toContain("would delete notes.txt");
      expect(await s.documents()).toEqual(before);
      expect((await search(s.app, s.apiKey, "quokkaword")).hits).toHaveLength(1);
    });
  });

  it("sends 300 files in at most 4 batch requests, each findable, and tells new from replaced", async () => {
    const calls: string[] = [];
    await withServer(
      async (s) => {
        const files: Record<string, string> = {};
        for (let i = 0; i < 300; i++) files[`notes/n${i}.md`] = `# Note ${i}\n\nThe lyrebird${i} note.\n`;
        writeTree(s.folder, files);
        const run = await s.importCli();
        expect(run.code, run.stderr).toBe(0);
        expect(summaryOf(run.stdout)).toEqual({ sent: 300, unchanged: 0, deleted: 0, failed: 0 });
        const posts = calls.filter((c) => c.startsWith("POST"));
        expect(posts.length).toBeGreaterThan(0);
        expect(posts.length).toBeLessThanOrEqual(4);
        expect(posts.every((c) => c === "POST /v1/documents/batch")).toBe(true);
        expect(run.stderr).toContain("sent notes/n7.md (new)");
        for (const i of [0, 150, 299])
          expect((await search(s.app, s.apiKey, `lyrebird${i}`)).hits).toHaveLength(1);

        writeFileSync(join(s.folder, "notes/n7.md"), "# Note 7\n\nedited");
        const again = await s.importCli();
        expect(summaryOf(again.stdout)).toEqual({ sent: 1, unchanged: 299, deleted: 0, failed: 0 });
        expect(again.stderr).toContain("sent notes/n7.md (replaced)");
      },
      { wrap: recordCalls(calls) },
    );
  });

  // Against a server before the batch route (404 here), one request a file; a refused one fails alone.
  it("counts a file the server refuses as failed, sends the others, and exits 1", async () => {
    let refuse = true;
    await withServer(
      async (s) => {
        writeTree(s.folder, { "a.md": "# A\n\nalpha", "b.md": "# B\n\nbravo", "c.md": "# C\n\ncharlie" });
        const run = await s.importCli();
        expect(run.code).toBe(1);
        expect(summaryOf(run.stdout)).toEqual({ sent: 2, unchanged: 0, deleted: 0, failed: 1 });
        expect(run.stderr).toContain("failed b.md (500 internal: Internal error.)");
        expect([...(await s.byExternalId()).keys()].sort()).toEqual(["file:notes/a.md", "file:notes/c.md"]);

        refuse = false;
        const retry = await s.importCli();
        expect(retry.code, retry.stderr).toBe(0);
        expect(summaryOf(retry.stdout)).toEqual({ sent: 1, unchanged: 2, deleted: 0, failed: 0 });
      },
      {
        async wrap(req, app) {
          if (new URL(req.url).pathname === "/v1/documents/batch") {
            return Response.json(
              { error: { code: "not_found", message: "Not found.", requestId: "r0" } },
              { status: 404 },
            );
          }
          if (refuse && req.method === "POST" && new URL(req.url).pathname === "/v1/documents") {
            const body = (await req.clone().json()) as { externalId?: string };
            if (body.externalId === "file:notes/b.md") {
              return Response.json(
                { error: { code: "internal", message: "Internal error.", requestId: "r1" } },
                { status: 500 },
              );
            }
          }
          return app.memoria.app.fetch(req);
        },
      },
    );
  });

  it("counts a file holding a NUL byte as failed with the server's reason, and sends the others", async () => {
    await withServer(async (s) => {
      writeTree(s.folder, { "a.md": "# A\n\nalpha", "b.md": "# B\n\nbravo\u0000binary" });
      const run = await s.importCli();
      expect(run.code).toBe(1);
      expect(summaryOf(run.stdout)).toEqual({ sent: 1, unchanged: 0, deleted: 0, failed: 1 });
      expect(run.stderr).toMatch(/failed b\.md \(invalid_request: .*NUL/);
      expect(run.stderr).not.toContain("bravo");
      expect([...(await s.byExternalId()).keys()]).toEqual(["file:notes/a.md"]);
    });
  });

  it("counts a file over the server's size limit as failed and exits 1", async () => {
    await withServer(
      async (s) => {
        writeTree(s.folder, { "small.md": "# Small\n\nfine", "big.md": `# Big\n\n${"x".repeat(5000)}` });
        const run = await s.importCli();
        expect(run.code).toBe(1);
        expect(summaryOf(run.stdout)).toEqual({ sent: 1, unchanged: 0, deleted: 0, failed: 1 });
        expect(run.stderr).toMatch(/failed big\.md \(payload_too_large: /);
      },
      { app: { config: { maxDocumentBytes: 1000 } } },
    );
  });

  it("stops with exit 1 and sends nothing when the server refuses the key", async () => {
    await withServer(async (s) => {
      writeTree(s.folder, tree);
      const wrong = `${s.apiKey.slice(0, -4)}AAAA`;
      const run = await runCli(["import", s.folder, "--url", s.url, "--key", wrong]);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain("could not list the team's documents: 401 unauthorized");
      expect(run.stderr).not.toContain(wrong);
      expect(run.stdout).toBe("");
      expect(await s.documents()).toEqual([]);
    });
  });
});
