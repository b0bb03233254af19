// DOCX files as Word and pandoc write them: a real README (node_modules' semver) written as DOCX by Debian's
// pandoc keeps its headings as headings and its words; a ZIP bomb (a document.xml of 1 GiB from ~3 MiB), a
// cut file and bytes that are not a DOCX are refused with the reason, within a bound on memory.

import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { extractDocx } from "../../src/extract/docx.js";
import { ExtractionError } from "../../src/extract/extraction-error.js";
import { chunkDocument } from "../../src/ingest/chunk.js";
import { docxZipBomb, pandocDocx, SEMVER_README, scratchDir, zip } from "../support/files.js";
import { needs, outside } from "../support/outside.js";

function refusal(bytes: Uint8Array, maxPartBytes?: number): ExtractionError {
  try {
    extractDocx(bytes, maxPartBytes);
  } catch (error) {
    expect(error).toBeInstanceOf(ExtractionError);
    return error as ExtractionError;
  }
  throw new Error("the DOCX was read");
}

const documentXml = (body: string) =>
  Buffer.from(
    `<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>${body}</w:body></w:document>`,
  );

needs(outside.pandoc).describe("DOCX written by pandoc from a real README", () => {
  const scratch = scratchDir();
  let titled: Uint8Array;
  let untitled: Uint8Array;

  beforeAll(async () => {
    [titled, untitled] = await Promise.all([
      pandocDocx(SEMVER_README, join(scratch.dir, "titled.docx"), "The semver manual"),
      pandocDocx(SEMVER_README, join(scratch.dir, "untitled.docx")),
    ]);
  }, 120_000);
  afterAll(() => scratch.remove());

  it("titles it by its dc:title, else by its first heading", () => {
    expect(extractDocx(titled).title).toBe("The semver manual");
    expect(extractDocx(untitled).title).toBe("semver(1) -- The semantic versioner for npm");
  });

  it("keeps Word's heading styles as headings, so passages carry the README's heading trail", () => {
    const { content } = extractDocx(untitled);
    expect(content).toMatch(/^# semver\(1\) -- The semantic versioner for npm$/m);
    expect(content).toMatch(/^## Usage$/m);
    const passages = chunkDocument({ title: "semver", content, format: "docx" });
    const caret = passages.find((p) =>
      p.text.includes("Allows changes that do not modify the left-most non-zero"),
    );
    expect(caret?.heading).toMatch(/Ranges › Advanced Range Syntax › Caret Ranges/);
  });

  it("refuses the same file cut in half as truncated", () => {
    const error = refusal(titled.subarray(0, Math.floor(titled.length / 2)));
    expect(error.problem).toBe("truncated");
  });
});

describe("DOCX refusals and bounds", () => {
  it("stops a ZIP bomb (document.xml inflating to 1 GiB) at the part bound, as too_large", () => {
    const bomb = docxZipBomb();
    expect(bomb.length).toBeLessThan(4 * 1024 * 1024);
    const before = process.memoryUsage().arrayBuffers;
    const error = refusal(bomb, 64 * 1024 * 1024);
    expect(error.problem).toBe("too_large");
    expect(error.message).toMatch(/word\/document\.xml.*inflates past 67108864 bytes/);
    // Inflating stopped at the bound: nothing near 1 GiB was ever held.
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(256 * 1024 * 1024);
  });

  it("refuses bytes that are not a ZIP, and a ZIP without word/document.xml, as not_format", () => {
    expect(refusal(new TextEncoder().encode("<html>not a docx</html>")).problem).toBe("not_format");
    expect(refusal(zip([{ name: "hello.txt", data: Buffer.from("hello") }])).problem).toBe("not_format");
  });

  it("reads headings by style name in any language, list items, and leaves deleted text and field codes out", () => {
    const styles = Buffer.from(
      '<w:styles><w:style w:type="paragraph" w:styleId="berschrift2"><w:name w:val="heading 2"/></w:style></w:styles>',
    );
    const body =
      '<w:p><w:pPr><w:pStyle w:val="berschrift2"/></w:pPr><w:r><w:t>Zahlungsbedingungen</w:t></w:r></w:p>' +
      '<w:p><w:pPr><w:numPr><w:ilvl w:val="0"/></w:numPr></w:pPr><w:r><w:t xml:space="preserve">net </w:t></w:r><w:r><w:t>30 days &amp; more</w:t></w:r></w:p>' +
      "<w:p><w:del><w:r><w:delText>withdrawn clause</w:delText></w:r></w:del><w:r><w:instrText>PAGEREF _Toc1</w:instrText></w:r><w:r><w:t>kept</w:t></w:r></w:p>";
    const { content, title } = extractDocx(
      zip([
        { name: "word/document.xml", data: documentXml(body) },
        { name: "word/styles.xml", data: styles },
      ]),
    );
    expect(content).toBe("## Zahlungsbedingungen\n\n- net 30 days \\& more\n\nkept");
    expect(title).toBe("Zahlungsbedingungen");
  });

  it("escapes what markdown would read as syntax, so a contract's '# 1.' line stays prose", () => {
    const body = "<w:p><w:r><w:t># 1. Scope &lt;b&gt;</w:t></w:r></w:p>";
    const { content } = extractDocx(zip([{ name: "word/document.xml", data: documentXml(body) }]));
    const passages = chunkDocument({ title: "Contract", content, format: "docx" });
    expect(passages).toHaveLength(1);
    // No heading was made of it: the passage sits under the title alone.
    expect(passages[0]?.heading).toBe("");
    expect(passages[0]?.text).toContain("# 1. Scope <b>");
  });
});
