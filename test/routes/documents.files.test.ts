// PDF and DOCX over HTTP (docs/api.md v1.2 "PDF and DOCX"): real files (a manual page printed by Debian's
// Chromium, a README written as DOCX by pandoc) sent raw or as a multipart file are found by their words
// under their own titles, DOCX headings as the trail; hostile ones (not the format, encrypted, cut, a scan,
// a ZIP bomb, too large) are refused in the envelope with the reason and store nothing; the file itself is
// never kept; and while the extract worker chews on hostile files, another team's searches keep answering.

import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { documentAnswer, documentListAnswer } from "../../src/routes/documents.js";
import { ExtractPool } from "../../src/runtime/extract-pool.js";
import { serveOnLoopback } from "../http/loopback.js";
import { buildTestApp, makeTeam, search, type TestApp } from "../support/app.js";
import {
  docxZipBomb,
  GIT_MV_HTML,
  pandocDocx,
  printImageOnlyPdf,
  printPdf,
  qpdfEncrypt,
  SEMVER_README,
  scratchDir,
  zip,
} from "../support/files.js";
import { needs, outside } from "../support/outside.js";
import { expectError, expectOk, withApp } from "./contract.js";

const PDF = "application/pdf";
const DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document";

function postRaw(app: TestApp, apiKey: string, bytes: Uint8Array, type: string, query = "") {
  return app.request(`/v1/documents${query}`, {
    method: "POST",
    token: apiKey,
    headers: { "content-type": type },
    body: bytes as Uint8Array<ArrayBuffer>,
  });
}

function postFile(
  app: TestApp,
  apiKey: string,
  bytes: Uint8Array,
  name: string,
  fields: Record<string, string> = {},
) {
  const form = new FormData();
  form.append(
    "file",
    new File([bytes as Uint8Array<ArrayBuffer>], name, { type: "application/octet-stream" }),
  );
  for (const [field, value] of Object.entries(fields)) form.append(field, value);
  return app.request("/v1/documents", { method: "POST", token: apiKey, body: form });
}

async function documentCount(app: TestApp, apiKey: string): Promise<number> {
  const res = await app.request("/v1/documents?limit=200", { token: apiKey });
  return (await expectOk(res, 200, documentListAnswer)).documents.length;
}

const documentXml = (body: string) =>
  Buffer.from(
    `<?xml version="1.0"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>${body}</w:body></w:document>`,
  );

needs(outside.chromium, outside.pandoc, outside.gitManuals, outside.djangoManual).describe(
  "PDF and DOCX files over HTTP",
  () => {
    const scratch = scratchDir();
    let manPage: Uint8Array;
    let readme: Uint8Array;
    let imageOnly: Uint8Array;

    beforeAll(async () => {
      [manPage, readme, imageOnly] = await Promise.all([
        printPdf(GIT_MV_HTML, join(scratch.dir, "git-mv.pdf"), { outline: true }),
        pandocDocx(SEMVER_README, join(scratch.dir, "semver.docx")),
        printImageOnlyPdf(scratch.dir),
      ]);
    }, 240_000);
    afterAll(() => scratch.remove());

    it("stores a raw PDF under its Title metadata, format pdf, found by its words with its outline as the trail", async () => {
      await withApp(async (app) => {
        const { apiKey } = await makeTeam(app);
        const { document } = await expectOk(await postRaw(app, apiKey, manPage, PDF), 201, documentAnswer);
        expect(document).toMatchObject({ title: "git-mv(1)", format: "pdf" });
        const found = await search(app, apiKey, "rename symlink destination directory");
        expect(found.hits[0]?.title).toBe("git-mv(1)");
        expect(found.hits.some((hit) => hit.heading.includes("DESCRIPTION"))).toBe(true);
      });
    });

    it("stores a multipart .docx under its first heading, its headings the hits' trail, in the given folders", async () => {
      await withApp(async (app) => {
        const { apiKey } = await makeTeam(app);
        const res = await postFile(app, apiKey, readme, "semver.docx", {
          path: "Libraries/npm",
          externalId: "file:semver.docx",
        });
        const { document } = await expectOk(res, 201, documentAnswer);
        expect(document).toMatchObject({
          title: "semver(1) -- The semantic versioner for npm",
          format: "docx",
          path: ["Libraries", "npm"],
          externalId: "file:semver.docx",
        });
        const found = await search(app, apiKey, "caret ranges left-most non-zero element");
        expect(found.hits[0]?.title).toBe("semver(1) -- The semantic versioner for npm");
        expect(found.hits[0]?.heading).toMatch(/Advanced Range Syntax › Caret Ranges/);
        // The same externalId again replaces, as any upload's does.
        const again = await postFile(app, apiKey, readme, "semver.docx", { externalId: "file:semver.docx" });
        expect((await expectOk(again, 200, documentAnswer)).document.version).toBe(2);
      });
    });

    it("titles a file with no title of its own by ?title=, or by its name when it is a multipart file", async () => {
      await withApp(async (app) => {
        const { apiKey } = await makeTeam(app);
        const untitled = zip([
          {
            name: "word/document.xml",
            data: documentXml("<w:p><w:r><w:t>plain words only</w:t></w:r></w:p>"),
          },
        ]);
        await expectError(await postRaw(app, apiKey, untitled, DOCX), 400, "invalid_request");
        const raw = await expectOk(
          await postRaw(app, apiKey, untitled, DOCX, "?title=Given"),
          201,
          documentAnswer,
        );
        expect(raw.document.title).toBe("Given");
        const named = await expectOk(
          await postFile(app, apiKey, untitled, "Minutes 2026-11.docx"),
          201,
          documentAnswer,
        );
        expect(named.document.title).toBe("Minutes 2026-11");
      });
    });

    it("refuses what cannot be read with the reason, 415 or 422 in the envelope, and stores nothing", async () => {
      await withApp(async (app) => {
        const { apiKey } = await makeTeam(app);
        const html = new Uint8Array(readFileSync(GIT_MV_HTML));
        await expectError(await postRaw(app, apiKey, html, PDF, "?title=t"), 415, "unsupported_media_type");
        await expectError(await postRaw(app, apiKey, html, DOCX, "?title=t"), 415, "unsupported_media_type");
        await expectError(await postFile(app, apiKey, html, "page.pdf"), 415, "unsupported_media_type");
        const cut = await expectError(
          await postRaw(app, apiKey, manPage.subarray(0, 9000), PDF),
          422,
          "unprocessable",
        );
        expect(cut.error.message).toMatch(/truncated/);
        const scan = await expectError(await postRaw(app, apiKey, imageOnly, PDF), 422, "unprocessable");
        expect(scan.error.message).toMatch(/no text layer/);
        const bomb = await expectError(
          await postFile(app, apiKey, docxZipBomb(), "bomb.docx"),
          422,
          "unprocessable",
        );
        expect(bomb.error.message).toMatch(/inflates past/);
        await expectError(
          await postRaw(app, apiKey, new Uint8Array(), PDF, "?title=t"),
          400,
          "invalid_request",
        );
        expect(await documentCount(app, apiKey)).toBe(0);
      });
    });

    needs(outside.qpdf).it(
      "refuses a PDF encrypted with a password (qpdf --encrypt), 422, and stores nothing",
      async () => {
        await withApp(async (app) => {
          const { apiKey } = await makeTeam(app);
          writeScratch(scratch.dir, "man.pdf", manPage);
          const encrypted = await qpdfEncrypt(
            join(scratch.dir, "man.pdf"),
            join(scratch.dir, "encrypted.pdf"),
          );
          const locked = await expectError(await postRaw(app, apiKey, encrypted, PDF), 422, "unprocessable");
          expect(locked.error.message).toMatch(/encrypted with a password/);
          expect(await documentCount(app, apiKey)).toBe(0);
        });
      },
    );

    it("bounds the file by MEMORIA_MAX_UPLOAD_BYTES and its text by MEMORIA_MAX_DOCUMENT_BYTES (413)", async () => {
      await withApp(
        async (app) => {
          const { apiKey } = await makeTeam(app);
          const big = await postRaw(app, apiKey, new Uint8Array(200 * 1024).fill(0x25), PDF, "?title=t");
          await expectError(big, 413, "payload_too_large");
          const longText = zip([
            {
              name: "word/document.xml",
              data: documentXml(`<w:p><w:r><w:t>${"word ".repeat(4000)}</w:t></w:r></w:p>`),
            },
          ]);
          await expectError(await postRaw(app, apiKey, longText, DOCX, "?title=t"), 413, "payload_too_large");
          expect(await documentCount(app, apiKey)).toBe(0);
        },
        { config: { maxUploadBytes: 64 * 1024, maxDocumentBytes: 8 * 1024 } },
      );
    });

    it("keeps no readable trace of the file at rest: neither its words nor the file's own bytes reach disk", async () => {
      const dbDir = scratchDir();
      const app = await buildTestApp({ dbUrl: `file:${join(dbDir.dir, "memoria.db")}` });
      try {
        const { apiKey } = await makeTeam(app);
        const marker = "zanzibarquokkaflux";
        const docx = zip([
          {
            name: "word/document.xml",
            data: documentXml(`<w:p><w:r><w:t>the ${marker} clause</w:t></w:r></w:p>`),
          },
        ]);
        await expectOk(await postFile(app, apiKey, docx, "contract.docx"), 201, documentAnswer);
        await expectOk(await postRaw(app, apiKey, manPage, PDF), 201, documentAnswer);
        expect((await search(app, apiKey, marker)).hits).toHaveLength(1);
        for (const name of readdirSync(dbDir.dir)) {
          const bytes = readFileSync(join(dbDir.dir, name));
          expect(bytes.includes(marker), name).toBe(false);
          expect(bytes.includes("Move or rename a file"), name).toBe(false);
          expect(bytes.includes("%PDF-"), name).toBe(false);
        }
      } finally {
        app.close();
        dbDir.remove();
      }
    });

    it("keeps answering another team's searches while the extract worker reads hostile files", async () => {
      const pool = new ExtractPool();
      const app = await buildTestApp({ extractor: pool.extractor });
      const served = await serveOnLoopback(app);
      try {
        const hostile = await makeTeam(app, "Hostile");
        const other = await makeTeam(app, "Other");
        await expectOk(await postRaw(app, other.apiKey, manPage, PDF), 201, documentAnswer);
        const post = (bytes: Uint8Array, type: string) =>
          fetch(`${served.base}/v1/documents?title=t`, {
            method: "POST",
            headers: { authorization: `Bearer ${hostile.apiKey}`, "content-type": type },
            body: bytes as Uint8Array<ArrayBuffer>,
          });
        let hostileDone = false;
        const hostileAnswers = Promise.all([
          post(docxZipBomb(), DOCX),
          post(docxZipBomb(), DOCX),
          post(imageOnly, PDF),
          post(new Uint8Array(manPage.subarray(0, 20_000)), PDF),
        ]).finally(() => {
          hostileDone = true;
        });
        let answeredMeanwhile = 0;
        for (let i = 0; i < 200 && !hostileDone; i++) {
          const res = await fetch(`${served.base}/v1/search?q=${encodeURIComponent("rename symlink")}`, {
            headers: { authorization: `Bearer ${other.apiKey}` },
          });
          expect(res.status).toBe(200);
          const body = (await res.json()) as { hits: { title: string }[] };
          expect(body.hits[0]?.title).toBe("git-mv(1)");
          if (!hostileDone) answeredMeanwhile++;
        }
        const statuses = (await hostileAnswers).map((res) => res.status);
        expect(statuses).toEqual([422, 422, 422, 422]);
        expect(answeredMeanwhile).toBeGreaterThan(0);
        // And the worker still reads the next good file.
        await expectOk(await postRaw(app, other.apiKey, readme, DOCX), 201, documentAnswer);
      } finally {
        await served.close();
        await pool.close();
        app.close();
      }
    });
  },
);

function writeScratch(dir: string, name: string, bytes: Uint8Array): void {
  // qpdf reads its input from a file; the file is the test's own copy of a printed manual page.
  writeFileSync(join(dir, name), bytes);
}
