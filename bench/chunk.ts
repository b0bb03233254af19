// The chunk suite of `npm run bench` (bench/run.ts --suites chunk): chunking a generated 5 MiB markdown
// document, and a 5 MiB page made of real pages (Sphinx's and rustdoc's, from Debian's documentation
// packages), each against its floor — the same bytes chunked as `format: "text"`, measured in the same run —
// and chunking a folder of real README files (every *.md under node_modules).
//
// Each side runs in a fresh process, so peak memory is that process's own: the growth of its peak resident
// set (process.resourceUsage().maxRSS) over its resident set just before chunking. The first run is the one
// an upload pays (cold code); the median of the warm runs after it is the steady state of a busy server.
// CPU time is given beside wall time because this machine is shared: CPU time moves less with other load.
//
// As a child process (run by bench/run.ts, prints one JSON line):
//   tsx bench/chunk.ts document <markdown|text> <bytes>
//   tsx bench/chunk.ts page <html|text> <bytes>
//   tsx bench/chunk.ts readmes

import { readdirSync, readFileSync, realpathSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { chunkDocument } from "../src/ingest/chunk.js";
import { packageFiles, samplePages, sites } from "../test/support/doc-sites.js";

// 5 MiB: the largest document the service accepts (maxDocumentBytes), so the worst a single upload costs.
export const DOCUMENT_BYTES = 5 * 1024 * 1024;
// Warm runs after the first; the median of 5 is stable to a few percent here.
const WARM_RUNS = 5;
const SEED = 20_260_401;

/** A deterministic pseudo-random sequence (mulberry32), so every run chunks the same document. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const vocabulary = [
  "the team decided to move the billing service onto the new queue after the incident in march because retries",
  "were lost when a worker restarted during deploys so we now keep an outbox table and replay it on start",
  "latency budget owner runbook rollback migration index search memory cache shard replica token review",
]
  .join(" ")
  .split(" ");

/** A markdown document of about `bytes` UTF-16 units, shaped like team notes and READMEs. */
export function generateMarkdown(bytes: number, seed = SEED): string {
  const next = random(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
  const word = () => pick(vocabulary);
  const inline = () => {
    const r = next();
    const w = word();
    if (r < 0.04) return `**${w}**`;
    if (r < 0.07) return `_${w}_`;
    if (r < 0.1) return `\`${w}()\``;
    if (r < 0.13) return `[${w}](https://example.com/docs/${w})`;
    if (r < 0.14) return `![${w}](img/${w}.png)`;
    return w;
  };
  const sentence = () => {
    const words = Array.from({ length: 8 + Math.floor(next() * 14) }, inline);
    const text = words.join(" ");
    return `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;
  };
  const paragraph = () => Array.from({ length: 2 + Math.floor(next() * 4) }, sentence).join(" ");
  const blocks: string[] = [];
  let size = 0;
  let section = 0;
  while (size < bytes) {
    const r = next();
    let block: string;
    if (r < 0.08) block = `${"#".repeat(1 + Math.floor(next() * 3))} ${word()} ${word()} ${section++}`;
    else if (r < 0.5) block = paragraph();
    else if (r < 0.62) {
      block = Array.from({ length: 3 + Math.floor(next() * 5) }, (_, i) =>
        i > 0 && next() < 0.3 ? `  - ${sentence()}` : `- ${sentence()}`,
      ).join("\n");
    } else if (r < 0.67) block = Array.from({ length: 4 }, (_, i) => `${i + 1}. ${sentence()}`).join("\n");
    else if (r < 0.77) {
      const lines = Array.from(
        { length: 4 + Math.floor(next() * 8) },
        () => `  const ${word()} = ${word()}(${word()});`,
      );
      block = `\`\`\`ts\nfunction ${word()}() {\n${lines.join("\n")}\n}\n\`\`\``;
    } else if (r < 0.85) {
      const rows = Array.from(
        { length: 3 + Math.floor(next() * 8) },
        () => `| ${word()} | ${inline()} | ${word()} |`,
      );
      block = `| Name | Value | Owner |\n| --- | :-: | --- |\n${rows.join("\n")}`;
    } else if (r < 0.92) block = `> ${sentence()}\n> ${sentence()}`;
    else if (r < 0.95) block = `<details>\n<summary>${word()}</summary>\n\n${paragraph()}\n\n</details>`;
    else if (r < 0.97) block = `<!-- ${word()} ${word()} -->`;
    else block = `[${word()}]: https://example.com/${word()}`;
    blocks.push(block);
    size += block.length + 2;
  }
  return blocks.join("\n\n");
}

/**
 * A page of about `bytes` UTF-16 units made of real pages, Sphinx's and rustdoc's (the sampled pages of
 * test/support/doc-sites.ts), each whole with its chrome, one after another; null when neither package is
 * installed. Real markup is denser than generated HTML (rustdoc's code is mostly `<span class>`).
 */
export function realPagesHtml(bytes: number): string | null {
  const pieces = sites
    .filter((site) => site.generator === "Sphinx" || site.generator === "rustdoc")
    .flatMap((site) => samplePages(site, packageFiles(site.package) ?? []).map((page) => page.content));
  if (pieces.length === 0) return null;
  const parts: string[] = [];
  for (let size = 0, i = 0; size < bytes; i++) {
    const piece = pieces[i % pieces.length] as string;
    parts.push(piece);
    size += piece.length;
  }
  return parts.join("\n").slice(0, bytes);
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? (s[m] ?? Number.NaN) : ((s[m - 1] ?? 0) + (s[m] ?? 0)) / 2;
};

function collectGarbage(): void {
  setFlagsFromString("--expose-gc");
  (runInNewContext("gc") as () => void)();
}

function timed(run: () => void): { wallMs: number; cpuMs: number } {
  const cpu = process.cpuUsage();
  const started = performance.now();
  run();
  const wallMs = performance.now() - started;
  const used = process.cpuUsage(cpu);
  return { wallMs, cpuMs: (used.user + used.system) / 1000 };
}

function measureDocument(format: "markdown" | "html" | "text", content: string) {
  collectGarbage();
  const rssBefore = process.memoryUsage().rss;
  let passages = 0;
  const first = timed(() => {
    passages = chunkDocument({ title: "Bench", content, format }).length;
  });
  // maxRSS is in KiB; the peak since the process started, which the chunk just set (or generation did).
  const peakGrowthMiB = Math.max(0, process.resourceUsage().maxRSS * 1024 - rssBefore) / 1024 / 1024;
  const warm = Array.from({ length: WARM_RUNS }, () =>
    timed(() => chunkDocument({ title: "Bench", content, format })),
  );
  return {
    mib: content.length / 1024 / 1024,
    passages,
    firstMs: first.wallMs,
    firstCpuMs: first.cpuMs,
    warmMs: median(warm.map((w) => w.wallMs)),
    warmCpuMs: median(warm.map((w) => w.cpuMs)),
    peakGrowthMiB,
  };
}

function markdownFiles(root: string): string[] {
  const found: string[] = [];
  const seen = new Set<string>();
  const stack = [root];
  while (stack.length > 0) {
    const dir = stack.pop() as string;
    try {
      const real = realpathSync(dir);
      if (seen.has(real)) continue;
      seen.add(real);
      for (const name of readdirSync(dir)) {
        const path = join(dir, name);
        const stat = statSync(path, { throwIfNoEntry: false });
        if (stat?.isDirectory()) stack.push(path);
        else if (stat?.isFile() && /\.(md|markdown)$/i.test(name)) found.push(path);
      }
    } catch {
      // An unreadable directory or a dangling link is no README.
    }
  }
  return found.sort();
}

function measureReadmes() {
  const files = markdownFiles(resolve("node_modules")).map((path) => readFileSync(path, "utf8"));
  const bytes = files.reduce((sum, content) => sum + Buffer.byteLength(content), 0);
  let failures = 0;
  let passages = 0;
  const run = (format: "markdown" | "text") =>
    timed(() => {
      for (const content of files) {
        try {
          passages += chunkDocument({ title: "README", content, format }).length;
        } catch {
          // Counted, never printed: the content is not ours to log.
          if (format === "markdown") failures++;
        }
      }
    });
  // One warm-up pass of each, so both sides are measured with compiled code.
  run("text");
  run("markdown");
  const text = run("text");
  const markdown = run("markdown");
  return {
    files: files.length,
    mib: bytes / 1024 / 1024,
    markdownMs: markdown.wallMs,
    markdownCpuMs: markdown.cpuMs,
    textMs: text.wallMs,
    textCpuMs: text.cpuMs,
    failures,
    passages,
  };
}

type Measure = (args: string[], script?: string) => Record<string, number>;
const script = "bench/chunk.ts";

/** Runs the chunk suite: `pairs` fresh-process pairs of the 5 MiB document, then the README folder. */
export function benchChunk(pairs: number, measure: Measure): void {
  const markdown: Record<string, number>[] = [];
  const text: Record<string, number>[] = [];
  for (let i = 0; i < pairs; i++) {
    text.push(measure(["document", "text", String(DOCUMENT_BYTES)], script));
    markdown.push(measure(["document", "markdown", String(DOCUMENT_BYTES)], script));
  }
  const of = (runs: Record<string, number>[], key: string) => runs.map((r) => r[key] ?? Number.NaN);
  const ratio = (key: string) =>
    markdown.map((m, i) => (m[key] ?? Number.NaN) / (text[i]?.[key] ?? Number.NaN));
  const list = (xs: number[], digits = 2) => xs.map((x) => x.toFixed(digits)).join(", ");
  const line = (xs: number[], unit: string, digits = 2) =>
    `${median(xs).toFixed(digits)}${unit}  [${list(xs, digits)}]`;
  const mib = markdown[0]?.mib ?? 0;
  const rate = (runs: Record<string, number>[], key: string) => of(runs, key).map((ms) => mib / (ms / 1000));
  console.log(
    `\n## chunking a ${mib.toFixed(1)} MiB markdown document (${pairs} fresh-process pairs, medians; every run in brackets)`,
  );
  const rows: [string, string][] = [
    [
      "floor: same bytes as text, warm",
      `${line(of(text, "warmMs"), " ms", 0)}, ${median(rate(text, "warmMs")).toFixed(0)} MiB/s`,
    ],
    [
      "markdown, warm",
      `${line(of(markdown, "warmMs"), " ms", 0)}, ${median(rate(markdown, "warmMs")).toFixed(0)} MiB/s`,
    ],
    ["markdown / floor, warm wall (target ≤ 3)", line(ratio("warmMs"), "×")],
    ["markdown / floor, warm CPU", line(ratio("warmCpuMs"), "×")],
    [
      "markdown, first run (cold code)",
      `${line(of(markdown, "firstMs"), " ms", 0)}; floor ${line(of(text, "firstMs"), " ms", 0)}`,
    ],
    ["markdown / floor, first run", line(ratio("firstMs"), "×")],
    [
      "peak RSS growth, markdown (target ≤ 20× = 100 MiB)",
      `${line(of(markdown, "peakGrowthMiB"), " MiB", 0)} = ${(median(of(markdown, "peakGrowthMiB")) / mib).toFixed(1)}× the document`,
    ],
    ["peak RSS growth, floor", line(of(text, "peakGrowthMiB"), " MiB", 0)],
    ["passages", `${markdown[0]?.passages ?? 0} markdown, ${text[0]?.passages ?? 0} as text`],
  ];
  for (const [k, v] of rows) console.log(`${k.padEnd(52)} ${v}`);

  const page: Record<string, number>[] = [];
  const pageText: Record<string, number>[] = [];
  for (let i = 0; i < pairs; i++) {
    const text = measure(["page", "text", String(DOCUMENT_BYTES)], script);
    if (!Number.isFinite(text.mib)) break;
    pageText.push(text);
    page.push(measure(["page", "html", String(DOCUMENT_BYTES)], script));
  }
  if (page.length === 0)
    console.log("\n(the 5 MiB page of real pages: skipped, needs sphinx-doc or rust-doc)");
  else {
    const pageRatio = (key: string) =>
      page.map((m, i) => (m[key] ?? Number.NaN) / (pageText[i]?.[key] ?? Number.NaN));
    console.log(
      `\n## chunking a ${(page[0]?.mib ?? 0).toFixed(1)} MiB page of real Sphinx and rustdoc pages (${page.length} fresh-process pairs, medians; every run in brackets)`,
    );
    const pageRows: [string, string][] = [
      ["floor: same bytes as text, warm", line(of(pageText, "warmMs"), " ms", 0)],
      ["HTML (page rules), warm", line(of(page, "warmMs"), " ms", 0)],
      ["HTML / floor, warm wall (target ≤ 3)", line(pageRatio("warmMs"), "×")],
      ["HTML / floor, warm CPU", line(pageRatio("warmCpuMs"), "×")],
      ["HTML / floor, first run", line(pageRatio("firstMs"), "×")],
      ["peak RSS growth, HTML", line(of(page, "peakGrowthMiB"), " MiB", 0)],
      ["passages", `${page[0]?.passages ?? 0} HTML, ${pageText[0]?.passages ?? 0} as text`],
    ];
    for (const [k, v] of pageRows) console.log(`${k.padEnd(52)} ${v}`);
  }

  const readmes = measure(["readmes"], script);
  const seconds = (readmes.markdownMs ?? Number.NaN) / 1000;
  console.log(`\n## chunking real README files (every *.md under node_modules, warm, one process)`);
  const readmeRows: [string, string][] = [
    ["files, total size", `${readmes.files ?? 0} files, ${(readmes.mib ?? 0).toFixed(2)} MiB`],
    [
      "markdown",
      `${(readmes.markdownMs ?? 0).toFixed(0)} ms, ${((readmes.mib ?? 0) / seconds).toFixed(1)} MiB/s, ${((readmes.files ?? 0) / seconds).toFixed(0)} files/s`,
    ],
    [
      "markdown / same files as text",
      `${((readmes.markdownMs ?? 0) / (readmes.textMs ?? 1)).toFixed(2)}× wall, ${((readmes.markdownCpuMs ?? 0) / (readmes.textCpuMs ?? 1)).toFixed(2)}× CPU`,
    ],
    ["failures (must be 0)", String(readmes.failures ?? Number.NaN)],
  ];
  for (const [k, v] of readmeRows) console.log(`${k.padEnd(52)} ${v}`);
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(script)) {
  const [mode, format, bytes] = process.argv.slice(2);
  const size = Number(bytes ?? DOCUMENT_BYTES);
  let result: Record<string, number>;
  if (mode === "document") {
    result = measureDocument(format === "text" ? "text" : "markdown", generateMarkdown(size));
  } else if (mode === "page") {
    const html = realPagesHtml(size);
    // No documentation package: NaN figures, which the suite reads as skipped.
    result = html === null ? { mib: Number.NaN } : measureDocument(format === "text" ? "text" : "html", html);
  } else result = measureReadmes();
  console.log(JSON.stringify(result));
}
