// The extract suite of `npm run bench` (bench/run.ts --suites extract, not run unless named): reading the
// text of real PDFs printed by Debian's Chromium, against the floor of poppler's `pdftotext` on the same
// file, measured in the same run, each side in a fresh process, alternating; and the refusal of a DOCX zip
// bomb (1 GiB of XML). Files:
//   - a manual of 200+ pages: The Rust Programming Language (rust-doc's book/print.html), printed once and
//     kept under .bench/ (printing it takes a minute or more here);
//   - a file at MEMORIA_MAX_UPLOAD_BYTES (25 MiB): the book's pages with their streams uncompressed (qpdf),
//     as many as fit, in order, leaving out the pages whose images would pass the limit.
// memoria's side is extractPdf as the extract worker runs it, and the extract pool itself (its worker
// thread under its heap bound and time limit: what an upload goes through). Memory is measured from outside
// on both sides, as GNU time's maximum resident set of the process: memoria's extra memory is that peak less
// the process's resident set just before reading (node, the modules and the file's bytes); pdftotext's is
// its whole peak.
//
// As a child process (run by bench/run.ts, prints one JSON line):
//   tsx bench/extract.ts pdf <file>
//   tsx bench/extract.ts pool <file>
//   tsx bench/extract.ts bomb

import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { extractDocx } from "../src/extract/docx.js";
import { extractPdf } from "../src/extract/pdf.js";
import { ExtractPool } from "../src/runtime/extract-pool.js";
import { docxZipBomb } from "../test/support/files.js";

const BOOK_HTML = "/usr/share/doc/rust-doc/html/book/print.html";
/** MEMORIA_MAX_UPLOAD_BYTES's default: the largest file an upload may be. */
const MAX_UPLOAD_BYTES = 25 * 1024 * 1024;
/** Pairs (floor, memoria) per file; the median of 3 is what is quoted. */
const PAIRS = 3;
/** GNU time, which reports a process's maximum resident set (`%M`, in KiB) as the kernel counted it. */
const GNU_TIME = "/usr/bin/time";

interface Measured {
  ms: number;
  cpuMs: number;
  /** The process's resident set just before reading, as it saw it. */
  rssBeforeMb: number;
  /** The process's peak resident set, from outside (GNU time). */
  peakRssMb: number;
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
  const bytes = kind === "bomb" ? docxZipBomb() : new Uint8Array(readFileSync(file as string));
  const pool = kind === "pool" ? new ExtractPool() : null;
  const rssBefore = process.memoryUsage().rss;
  // The pool's CPU time is the process's, its worker's included: process.resourceUsage counts every thread.
  const cpu0 = cpuMs();
  const t0 = performance.now();
  let result: Omit<Measured, "peakRssMb">;
  if (kind === "pdf" || kind === "pool") {
    const { content } = pool ? await pool.extract({ format: "pdf", bytes }) : await extractPdf(bytes);
    const ms = performance.now() - t0;
    const pages = (content.match(/^# Page \d+$/gm) ?? []).length;
    result = { ms, cpuMs: cpuMs() - cpu0, rssBeforeMb: rssBefore / MB, pages, chars: content.length };
  } else {
    let refused = "read";
    try {
      extractDocx(bytes);
    } catch (error) {
      refused = (error as { problem?: string }).problem ?? "error";
    }
    result = { ms: performance.now() - t0, cpuMs: cpuMs() - cpu0, rssBeforeMb: rssBefore / MB, refused };
  }
  await pool?.close();
  console.log(JSON.stringify(result));
}

/** Runs `command` under GNU time: its standard output, its peak resident set in MB and its CPU time. */
function peakOf(command: string, args: string[]): { stdout: string; peakRssMb: number; cpuMs: number } {
  const marker = "peak-rss-kib:";
  const run = spawnSync(GNU_TIME, ["-f", `${marker}%M %U %S`, command, ...args], {
    encoding: "utf8",
    maxBuffer: 256 * MB,
    timeout: 600_000,
  });
  if (run.status !== 0)
    throw new Error(`${command} failed (status ${run.status}): ${run.stderr.slice(-400)}`);
  const [kib, user, system] = run.stderr
    .slice(run.stderr.lastIndexOf(marker) + marker.length)
    .trim()
    .split(" ")
    .map(Number);
  return {
    stdout: run.stdout,
    peakRssMb: ((kib ?? Number.NaN) * 1024) / MB,
    cpuMs: ((user ?? Number.NaN) + (system ?? Number.NaN)) * 1000,
  };
}

function runChild(args: string[]): Measured {
  const { stdout, peakRssMb } = peakOf(process.execPath, ["--import", "tsx", "bench/extract.ts", ...args]);
  const measured = JSON.parse(stdout.trim().split("\n").at(-1) as string) as Omit<Measured, "peakRssMb">;
  return { ...measured, peakRssMb };
}

function floor(file: string): { ms: number; peakRssMb: number; cpuMs: number } {
  const t0 = performance.now();
  const { peakRssMb, cpuMs } = peakOf("pdftotext", [file, "/dev/null"]);
  return { ms: performance.now() - t0, peakRssMb, cpuMs };
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
  const big = join(dir, "rust-book-at-limit.pdf");
  if (!existsSync(big)) {
    // The book's streams written uncompressed (as many producers write them) are ~46 MB for its 628 pages,
    // so its pages, as many as fit under the limit, make a real file at the limit. Its images are not spread
    // evenly: pages 368–372 alone add 11 MB, so the first pages that fit (367, 23.1 MiB) are topped up with
    // the later pages that still fit, in order. (Joining copies of the book does not make a large file: qpdf
    // shares their fonts and images.)
    const last = pagesOf(book);
    const write = (ranges: readonly string[]) => {
      execFileSync("qpdf", [
        "--stream-data=uncompress",
        "--object-streams=disable",
        book,
        "--pages",
        ...ranges.flatMap((range) => [book, range]),
        "--",
        big,
      ]);
      return statSync(big).size;
    };
    /** The longest run of pages from `first` that fits after `kept`, by halving; its last page, or 0. */
    const longestFrom = (kept: readonly string[], first: number) => {
      let fits = first - 1;
      let over = last + 1;
      while (over - fits > 1) {
        const middle = Math.floor((fits + over) / 2);
        if (write([...kept, `${first}-${middle}`]) <= MAX_UPLOAD_BYTES) fits = middle;
        else over = middle;
      }
      return fits >= first ? fits : 0;
    };
    const kept: string[] = [];
    // Each round keeps the longest run that fits and skips the page that did not; a page too large alone is
    // skipped after one write. It stops within 1% of the limit, or after a bounded number of writes.
    let size = 0;
    for (let first = 1, round = 0; first <= last && size < MAX_UPLOAD_BYTES * 0.99 && round < 48; round++) {
      if (kept.length > 0 && write([...kept, `${first}`]) > MAX_UPLOAD_BYTES) {
        first++;
        continue;
      }
      const end = longestFrom(kept, first);
      if (end > 0) kept.push(`${first}-${end}`);
      size = write(kept);
      first = Math.max(end, first) + 1;
    }
    write(kept);
  }
  return [
    { label: "manual (The Rust Programming Language)", file: book },
    { label: "at the upload limit (the book's pages uncompressed, as many as fit)", file: big },
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
    const floors: { ms: number; peakRssMb: number; cpuMs: number }[] = [];
    const runs: Measured[] = [];
    for (let i = 0; i < PAIRS; i++) {
      floors.push(floor(file));
      runs.push(runChild(["pdf", file]));
    }
    // Once through the pool: the worker under its heap bound, as an upload is read.
    const pooled = runChild(["pool", file]);
    const floorMs = median(floors.map((f) => f.ms));
    const floorCpu = median(floors.map((f) => f.cpuMs));
    const ms = median(runs.map((r) => r.ms));
    const cpu = median(runs.map((r) => r.cpuMs));
    const extra = median(runs.map((r) => r.peakRssMb - r.rssBeforeMb));
    const size = (statSync(file).size / MB).toFixed(1);
    console.log(`${label}: ${pages} pages, ${size} MiB`);
    console.log(
      `  pdftotext (floor) p50 ${floorMs.toFixed(0)} ms, CPU ${floorCpu.toFixed(0)} ms, peak RSS ${median(floors.map((f) => f.peakRssMb)).toFixed(0)} MB`,
    );
    console.log(
      `  memoria extractPdf p50 ${ms.toFixed(0)} ms (${(ms / floorMs).toFixed(2)}× the floor), ` +
        `${(ms / pages).toFixed(1)} ms a page; CPU ${cpu.toFixed(0)} ms (${(cpu / floorCpu).toFixed(2)}× the floor's), ` +
        `${(cpu / pages).toFixed(1)} ms a page; extra RSS ${extra.toFixed(0)} MB ` +
        `(peak ${median(runs.map((r) => r.peakRssMb)).toFixed(0)} MB from outside, less ${median(runs.map((r) => r.rssBeforeMb)).toFixed(0)} MB before reading) ` +
        `[${runs.map((r) => `${r.ms.toFixed(0)} ms/${(r.peakRssMb - r.rssBeforeMb).toFixed(0)} MB`).join(", ")}]`,
    );
    console.log(
      `  through the extract pool (worker, heap bound): ${pooled.ms.toFixed(0)} ms, ${(pooled.ms / pages).toFixed(1)} ms a page, ` +
        `CPU ${(pooled.cpuMs / pages).toFixed(1)} ms a page, ` +
        `${pooled.pages} pages read, extra RSS ${(pooled.peakRssMb - pooled.rssBeforeMb).toFixed(0)} MB`,
    );
  }
  const bombs = Array.from({ length: PAIRS }, () => runChild(["bomb"]));
  const bomb = median(bombs.map((r) => r.ms));
  console.log(
    `DOCX zip bomb (document.xml of 1 GiB, ${(docxZipBomb().length / MB).toFixed(1)} MiB file): refused as ` +
      `${bombs[0]?.refused} in p50 ${bomb.toFixed(0)} ms, extra RSS ${median(bombs.map((r) => r.peakRssMb - r.rssBeforeMb)).toFixed(0)} MB`,
  );
}

if (process.argv[1]?.endsWith("extract.ts") && process.argv[2]) await child(process.argv[2], process.argv[3]);
