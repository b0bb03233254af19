// The extract suite of `npm run bench` (bench/run.ts --suites extract, not run unless named): reading the
// text of real PDFs printed by Debian's Chromium, against the floor of poppler's `pdftotext` on the same
// file, measured in the same run, each side in a fresh process, alternating; and the refusal of a DOCX zip
// bomb (1 GiB of XML). Files:
//   - a manual of 200+ pages: The Rust Programming Language (rust-doc's book/print.html), printed once and
//     kept under .bench/ (printing it takes a minute or more here);
//   - a file near MEMORIA_MAX_UPLOAD_BYTES (25 MiB): the book's first pages with their streams uncompressed
//     (qpdf), as many as fit.
// memoria's side is extractPdf, as the extract worker runs it; peak memory is the growth of the process's
// peak resident set (process.resourceUsage().maxRSS) over its resident set just before reading.
//
// As a child process (run by bench/run.ts, prints one JSON line):
//   tsx bench/extract.ts pdf <file>
//   tsx bench/extract.ts bomb

import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { extractDocx } from "../src/extract/docx.js";
import { extractPdf } from "../src/extract/pdf.js";
import { docxZipBomb } from "../test/support/files.js";

const BOOK_HTML = "/usr/share/doc/rust-doc/html/book/print.html";
/** MEMORIA_MAX_UPLOAD_BYTES's default: the largest file an upload may be. */
const MAX_UPLOAD_BYTES = 25 * 1024 * 1024;
/** Pairs (floor, memoria) per file; the median of 3 is what is quoted. */
const PAIRS = 3;

interface Measured {
  ms: number;
  cpuMs: number;
  peakGrowthMb: number;
  pages?: number;
  chars?: number;
  refused?: string;
}

const MB = 1024 * 1024;

function cpuMs(): number {
  const { userCPUTime, systemCPUTime } = process.resourceUsage();
  return (userCPUTime + systemCPUTime) / 1000;
}

async function child(kind: string, file?: string): Promise<void> {
  const bytes = kind === "pdf" ? new Uint8Array(readFileSync(file as string)) : docxZipBomb();
  const rssBefore = process.memoryUsage().rss;
  const cpu0 = cpuMs();
  const t0 = performance.now();
  let result: Measured;
  if (kind === "pdf") {
    const { content } = await extractPdf(bytes);
    const ms = performance.now() - t0;
    const pages = (content.match(/^# Page \d+$/gm) ?? []).length;
    result = { ms, cpuMs: cpuMs() - cpu0, peakGrowthMb: 0, pages, chars: content.length };
  } else {
    let refused = "read";
    try {
      extractDocx(bytes);
    } catch (error) {
      refused = (error as { problem?: string }).problem ?? "error";
    }
    result = { ms: performance.now() - t0, cpuMs: cpuMs() - cpu0, peakGrowthMb: 0, refused };
  }
  // maxRSS is in KiB.
  result.peakGrowthMb = (process.resourceUsage().maxRSS * 1024 - rssBefore) / MB;
  console.log(JSON.stringify(result));
}

function runChild(args: string[]): Measured {
  const out = execFileSync(process.execPath, ["--import", "tsx", "bench/extract.ts", ...args], {
    encoding: "utf8",
    maxBuffer: 16 * MB,
    timeout: 600_000,
  });
  return JSON.parse(out.trim().split("\n").at(-1) as string) as Measured;
}

function floorMs(file: string): number {
  const t0 = performance.now();
  execFileSync("pdftotext", [file, "-"], { maxBuffer: 256 * MB, stdio: ["ignore", "ignore", "ignore"] });
  return performance.now() - t0;
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
};

function pagesOf(file: string): number {
  const info = execFileSync("pdfinfo", [file], { encoding: "utf8" });
  return Number(/^Pages:\s+(\d+)/m.exec(info)?.[1] ?? 0);
}

/** The manual printed once to .bench/, and the file near the upload limit made from it. */
function benchFiles(dir: string): { label: string; file: string }[] {
  const book = join(dir, "rust-book.pdf");
  if (!existsSync(book)) {
    console.log("printing the Rust book with Chromium (once; kept in .bench/) …");
    execFileSync(
      "chromium",
      [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--no-pdf-header-footer",
        `--print-to-pdf=${book}`,
        `file://${BOOK_HTML}`,
      ],
      { stdio: "ignore", timeout: 600_000 },
    );
  }
  const big = join(dir, "rust-book-25mib.pdf");
  if (!existsSync(big)) {
    // The book's streams written uncompressed (as many producers write them) are ~46 MB for its 628 pages:
    // its first pages, as many as fit under the limit (found by halving), make a real file at the limit.
    // (Joining copies of the book does not: qpdf shares their fonts and images, two copies come to 6 MB.)
    const write = (pages: number) => {
      execFileSync("qpdf", [
        "--stream-data=uncompress",
        "--object-streams=disable",
        book,
        "--pages",
        book,
        `1-${pages}`,
        "--",
        big,
      ]);
      return statSync(big).size;
    };
    let fits = 1;
    let over = pagesOf(book) + 1;
    while (over - fits > 8) {
      const middle = Math.floor((fits + over) / 2);
      if (write(middle) <= MAX_UPLOAD_BYTES) fits = middle;
      else over = middle;
    }
    write(fits);
  }
  return [
    { label: "manual (The Rust Programming Language)", file: book },
    { label: "near the upload limit (the book's first pages, uncompressed)", file: big },
  ];
}

export async function benchExtract(): Promise<void> {
  console.log("\n== extract: PDF text against pdftotext on the same file (noisy shared 2-core machine)");
  const missing = ["chromium", "pdftotext", "qpdf"].filter((tool) => !existsSync(`/usr/bin/${tool}`));
  if (missing.length > 0 || !existsSync(BOOK_HTML)) {
    console.log(`skipped: needs ${[...missing, ...(existsSync(BOOK_HTML) ? [] : ["rust-doc"])].join(", ")}`);
    return;
  }
  for (const { label, file } of benchFiles(resolve(".bench"))) {
    const pages = pagesOf(file);
    const floors: number[] = [];
    const runs: Measured[] = [];
    for (let i = 0; i < PAIRS; i++) {
      floors.push(floorMs(file));
      runs.push(runChild(["pdf", file]));
    }
    const floor = median(floors);
    const ms = median(runs.map((r) => r.ms));
    const cpu = median(runs.map((r) => r.cpuMs));
    const peak = median(runs.map((r) => r.peakGrowthMb));
    const size = (statSync(file).size / MB).toFixed(1);
    console.log(`${label}: ${pages} pages, ${size} MiB`);
    console.log(`  pdftotext (floor) p50 ${floor.toFixed(0)} ms`);
    console.log(
      `  memoria extractPdf p50 ${ms.toFixed(0)} ms (${(ms / floor).toFixed(2)}× the floor), ` +
        `${(ms / pages).toFixed(1)} ms a page, CPU ${cpu.toFixed(0)} ms, peak RSS growth ${peak.toFixed(0)} MB`,
    );
  }
  const bombs = Array.from({ length: PAIRS }, () => runChild(["bomb"]));
  const bomb = median(bombs.map((r) => r.ms));
  console.log(
    `DOCX zip bomb (document.xml of 1 GiB, ${(docxZipBomb().length / MB).toFixed(1)} MiB file): refused as ` +
      `${bombs[0]?.refused} in p50 ${bomb.toFixed(0)} ms, peak RSS growth ${median(bombs.map((r) => r.peakGrowthMb)).toFixed(0)} MB`,
  );
}

if (process.argv[1]?.endsWith("extract.ts") && process.argv[2]) await child(process.argv[2], process.argv[3]);
