// PDFs as people have them: manual pages printed by Debian's Chromium (with and without the outline Chromium
// makes from the headings), an encrypted one (qpdf), a cut one, a scan (an image and no text), and bytes
// that are not a PDF at all. Each gives its text with the right title and sections, or says why it cannot.

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { ExtractionError } from "../../src/extract/extraction-error.js";
import { extractPdf } from "../../src/extract/pdf.js";
import { chunkDocument } from "../../src/ingest/chunk.js";
import {
  DJANGO_HUMANIZE_HTML,
  GIT_MV_HTML,
  printImageOnlyPdf,
  printPdf,
  qpdfEncrypt,
  scratchDir,
} from "../support/files.js";
import { needs, outside } from "../support/outside.js";

async function refusal(bytes: Uint8Array): Promise<ExtractionError> {
  const error = await extractPdf(bytes).then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ExtractionError);
  return error as ExtractionError;
}

needs(outside.chromium, outside.gitManuals, outside.djangoManual).describe(
  "PDF text, from pages printed by Chromium",
  () => {
    const scratch = scratchDir();
    let withOutline: Uint8Array;
    let withoutOutline: Uint8Array;
    let imageOnly: Uint8Array;

    beforeAll(async () => {
      [withOutline, withoutOutline, imageOnly] = await Promise.all([
        printPdf(GIT_MV_HTML, join(scratch.dir, "git-mv.pdf"), { outline: true }),
        printPdf(DJANGO_HUMANIZE_HTML, join(scratch.dir, "humanize.pdf")),
        printImageOnlyPdf(scratch.dir),
      ]);
    }, 240_000);
    afterAll(() => scratch.remove());

    it("titles a PDF by its Title metadata and keeps its words", async () => {
      const { title, content } = await extractPdf(withOutline);
      expect(title).toBe("git-mv(1)");
      expect(content).toContain("Move or rename a file, directory or symlink.");
    });

    it("makes the outline's entries headings, placed where they point, so each holds its own text", async () => {
      const { content } = await extractPdf(withOutline);
      const passages = chunkDocument({ title: "git-mv(1)", content, format: "pdf" });
      const synopsis = passages.find((p) => p.heading.endsWith("DESCRIPTION"));
      expect(synopsis?.text).toContain("Move or rename a file, directory or symlink.");
      const name = passages.find((p) => p.heading.endsWith("NAME"));
      expect(name?.text).toContain("Move or rename a file, a directory, or a symlink");
      // The heading's own printed line is the heading, not a passage's first words as well.
      expect(name?.text.startsWith("NAME")).toBe(false);
    });

    it("makes each page a section when the PDF has no outline", async () => {
      const { title, content } = await extractPdf(withoutOutline);
      expect(title).toMatch(/^django\.contrib\.humanize/);
      expect(content).toMatch(/^# Page 1\n/);
      expect(content).toContain("naturaltime");
    });

    it("refuses an image-only PDF (no text layer) as no_text, saying to OCR it", async () => {
      const error = await refusal(imageOnly);
      expect(error.problem).toBe("no_text");
      expect(error.message).toMatch(/no text layer/);
    });

    it("refuses a PDF cut short as truncated", async () => {
      const error = await refusal(withoutOutline.subarray(0, Math.floor(withoutOutline.length / 2)));
      expect(error.problem).toBe("truncated");
    });

    it("refuses a PDF whose body is damaged though its ends are intact as damaged", async () => {
      const damaged = new Uint8Array(withoutOutline);
      // Keep the header and the end marker; overwrite everything between with the same byte.
      damaged.fill(0x20, 16, damaged.length - 16);
      const error = await refusal(damaged);
      expect(["damaged", "no_text"]).toContain(error.problem);
    });

    needs(outside.qpdf).it("refuses a password-encrypted PDF (qpdf --encrypt) as encrypted", async () => {
      const source = join(scratch.dir, "humanize.pdf");
      const encrypted = await qpdfEncrypt(source, join(scratch.dir, "encrypted.pdf"));
      const error = await refusal(encrypted);
      expect(error.problem).toBe("encrypted");
      expect(error.message).toMatch(/password/);
    });

    it("refuses bytes that are not a PDF as not_format", async () => {
      const html = new Uint8Array(readFileSync(GIT_MV_HTML));
      expect((await refusal(html)).problem).toBe("not_format");
      expect((await refusal(new Uint8Array())).problem).toBe("not_format");
    });
  },
);
