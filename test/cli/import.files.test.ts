// `memoria import` with PDF and DOCX files, end to end: the real CLI as a child process against a real app
// over loopback HTTP, on a README written as DOCX by pandoc and a manual page printed to PDF by Chromium.
// Each file is sent as it is and found by its words under its own title; a second run sends neither (the
// listing's contentHash is the file's); a file the server cannot read fails alone, with the server's reason.

import { copyFileSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { search } from "../support/app.js";
import { GIT_MV_HTML, pandocDocx, printPdf, SEMVER_README } from "../support/files.js";
import { needs, outside } from "../support/outside.js";
import { runCli, summaryOf, withServer } from "./harness.js";

describe("memoria import with PDF and DOCX files", () => {
  it("lists every extension it takes in --help", async () => {
    const help = await runCli(["--help"]);
    expect(help.stdout).toMatch(/\.md, \.markdown, \.txt, \.html, \.htm, \.pdf and \.docx/);
  });

  needs(outside.chromium, outside.pandoc, outside.gitManuals).it(
    "sends a folder's PDF and DOCX files as they are, found under their own titles, and nothing again on a second run",
    async () => {
      await withServer(async (s) => {
        mkdirSync(join(s.folder, "libraries"));
        await pandocDocx(SEMVER_README, join(s.folder, "libraries", "semver.docx"));
        await printPdf(GIT_MV_HTML, join(s.folder, "git-mv.pdf"), { outline: true });
        // Not a PDF, though named as one: refused by the server, and only this file fails.
        copyFileSync(GIT_MV_HTML, join(s.folder, "saved-page.pdf"));
        writeFileSync(join(s.folder, "notes.md"), "# Notes\n\nthe wallabyword\n");

        const first = await s.importCli();
        expect(first.code).toBe(1);
        expect(summaryOf(first.stdout)).toEqual({ sent: 3, unchanged: 0, deleted: 0, failed: 1 });
        expect(first.stderr).toMatch(/saved-page\.pdf.*unsupported_media_type/);

        const documents = await s.documents();
        const byExternalId = new Map(documents.map((d) => [d.externalId, d]));
        expect(byExternalId.get("file:notes/libraries/semver.docx")).toMatchObject({
          title: "semver(1) -- The semantic versioner for npm",
          format: "docx",
          path: ["libraries"],
        });
        expect(byExternalId.get("file:notes/git-mv.pdf")).toMatchObject({
          title: "git-mv(1)",
          format: "pdf",
          path: [],
        });
        expect((await search(s.app, s.apiKey, "caret ranges left-most non-zero")).hits[0]?.title).toMatch(
          /^semver/,
        );
        expect((await search(s.app, s.apiKey, "rename symlink")).hits[0]?.title).toBe("git-mv(1)");

        const again = await s.importCli();
        expect(summaryOf(again.stdout)).toEqual({ sent: 0, unchanged: 3, deleted: 0, failed: 1 });
      });
    },
    180_000,
  );
});
