// Real PDF and DOCX files made at test time by Debian's tools from documentation nobody here wrote:
// Chromium prints a manual page to PDF (as a person saves a page), pandoc writes a markdown file as DOCX,
// qpdf encrypts a PDF. Hostile files (a ZIP bomb, a cut file) are built from them or from bytes in memory.
// Whether each tool and page is here is test/support/outside.ts's to say.

import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { crc32, deflateRawSync } from "node:zlib";

const run = promisify(execFile);

export const CHROMIUM = "/usr/bin/chromium";

/** Debian manual pages printed in the tests: git-doc (asciidoc) and python-django-doc (Sphinx). */
export const GIT_MV_HTML = "/usr/share/doc/git-doc/git-mv.html";
export const DJANGO_HUMANIZE_HTML = "/usr/share/doc/python-django-doc/html/ref/contrib/humanize.html";
/** A README nobody here wrote, shipped in node_modules, for pandoc to write as DOCX. */
export const SEMVER_README = "node_modules/semver/README.md";

/** A folder for one test file's made files, removed by the returned function. */
export function scratchDir(): { dir: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), "memoria-files-"));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * Prints a page to PDF with headless Chromium, with the document outline (bookmarks) Chromium makes from
 * the page's headings when `outline` is set. Printing a page takes seconds here, so tests print few.
 */
export async function printPdf(page: string, out: string, { outline = false } = {}): Promise<Uint8Array> {
  await run(
    CHROMIUM,
    [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--no-pdf-header-footer",
      ...(outline ? ["--generate-pdf-document-outline"] : []),
      `--print-to-pdf=${out}`,
      page.startsWith("file:") ? page : `file://${page}`,
    ],
    { timeout: 120_000 },
  );
  return new Uint8Array(readFileSync(out));
}

/** A page that holds one image and no text, printed to PDF: what a scan looks like to a reader. */
export async function printImageOnlyPdf(dir: string): Promise<Uint8Array> {
  const html = join(dir, "image-only.html");
  const image = "/usr/share/doc/python-django-doc/html/_static/docicons-warning.png";
  writeFileSync(html, `<!doctype html><html><body><img src="file://${image}" width="400"></body></html>`);
  return printPdf(html, join(dir, "image-only.pdf"));
}

/** A markdown file as pandoc writes it to DOCX (Word's built-in heading styles, dc:title from `title`). */
export async function pandocDocx(markdown: string, out: string, title?: string): Promise<Uint8Array> {
  await run(
    "pandoc",
    ["-f", "gfm", "-t", "docx", "-o", out, ...(title ? ["--metadata", `title=${title}`] : []), markdown],
    {
      timeout: 120_000,
    },
  );
  return new Uint8Array(readFileSync(out));
}

/** The PDF encrypted with a user password (AES-256), as `qpdf --encrypt` makes it. */
export async function qpdfEncrypt(input: string, out: string): Promise<Uint8Array> {
  await run("qpdf", ["--encrypt", "user-secret", "owner-secret", "256", "--", input, out], {
    timeout: 60_000,
  });
  return new Uint8Array(readFileSync(out));
}

export interface ZipPart {
  name: string;
  /** Deflated bytes with their inflated size and CRC, or plain bytes to deflate. */
  data: Uint8Array | { deflated: Uint8Array; size: number; crc: number };
}

/** A ZIP archive of `parts` (deflate), as a DOCX is. */
export function zip(parts: readonly ZipPart[]): Uint8Array {
  const chunks: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const part of parts) {
    const name = Buffer.from(part.name);
    const made =
      part.data instanceof Uint8Array
        ? { deflated: deflateRawSync(part.data), size: part.data.length, crc: crc32(part.data) }
        : part.data;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(8, 8);
    local.writeUInt32LE(made.crc >>> 0, 14);
    local.writeUInt32LE(made.deflated.length, 18);
    local.writeUInt32LE(made.size >>> 0, 22);
    local.writeUInt16LE(name.length, 26);
    const header = Buffer.alloc(46);
    header.writeUInt32LE(0x02014b50, 0);
    header.writeUInt16LE(20, 4);
    header.writeUInt16LE(20, 6);
    header.writeUInt16LE(8, 10);
    header.writeUInt32LE(made.crc >>> 0, 16);
    header.writeUInt32LE(made.deflated.length, 20);
    header.writeUInt32LE(made.size >>> 0, 24);
    header.writeUInt16LE(name.length, 28);
    header.writeUInt32LE(offset, 42);
    chunks.push(local, name, Buffer.from(made.deflated));
    central.push(header, name);
    offset += local.length + name.length + made.deflated.length;
  }
  const directory = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(parts.length, 8);
  end.writeUInt16LE(parts.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return new Uint8Array(Buffer.concat([...chunks, directory, end]));
}

/**
 * A DOCX whose word/document.xml inflates to `inflatedBytes` (1 GiB by default) of repeated XML from about
 * a thousandth of that: one deflated MiB of a repeated run, repeated. Its blocks refer only within
 * themselves, so the copies concatenate into one valid stream, ended by an empty final block; nothing of
 * the 1 GiB is ever in memory here. The sizes it declares are the true ones (a bomb may also forge them).
 */
export function docxZipBomb(inflatedBytes = 1024 * 1024 * 1024): Uint8Array {
  const MIB = 1024 * 1024;
  const run = Buffer.alloc(MIB, "<w:r><w:t>boom</w:t></w:r>");
  const block = deflateRawSync(run, { finishFlush: 2 /* Z_SYNC_FLUSH: not final, byte-aligned */ });
  const copies = Math.ceil(inflatedBytes / MIB);
  // An empty final block with fixed codes: BFINAL=1, BTYPE=01, end-of-block; two bytes.
  const deflated = Buffer.concat([...Array.from({ length: copies }, () => block), Buffer.from([0x03, 0x00])]);
  return zip([
    { name: "[Content_Types].xml", data: Buffer.from('<?xml version="1.0"?><Types/>') },
    { name: "word/document.xml", data: { deflated, size: copies * MIB, crc: 0 } },
  ]);
}
