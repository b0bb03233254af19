// Real text for the bench: manuals from Debian's documentation packages, read at bench time from
// /usr/share/doc (nothing is copied into the repository). Several generators' HTML (Sphinx, Doxygen,
// asciidoc, Texinfo, rustdoc's books) and plain text, so the vocabulary, the passage lengths and the markup
// are what people's own documents look like rather than a generator's.
//
// Every tenth file (in sorted order) is held out of the index: long questions are real sentences of 10–20
// words taken from those, so a question is never a passage's own words.

import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import type { IndexedDocument } from "../src/index/passages/passage-index.js";
import { chunkDocument } from "../src/ingest/chunk.js";
import type { DocumentFormat } from "../src/ingest/formats.js";

/**
 * The packages read: each package's folder under /usr/share/doc (a -doc package often installs into its
 * program's name) and the folders in it that hold its manual.
 */
export const DEBIAN_MANUALS: readonly { pkg: string; root: string; dirs: readonly string[] }[] = [
  { pkg: "python-django-doc", root: "python-django-doc", dirs: ["html"] },
  { pkg: "sphinx-doc", root: "sphinx-doc", dirs: ["html"] },
  { pkg: "git-doc", root: "git-doc", dirs: ["."] },
  { pkg: "libsdl2-doc", root: "libsdl2-doc", dirs: ["html"] },
  { pkg: "gnutls-doc", root: "gnutls-doc", dirs: ["."] },
  { pkg: "r-doc-html", root: "r-doc-html", dirs: ["."] },
  // rustdoc's API pages are mostly signatures; its books are prose, and those are what a team writes.
  {
    pkg: "rust-doc",
    root: "rust-doc",
    dirs: [
      "html/book",
      "html/reference",
      "html/cargo",
      "html/rustc",
      "html/embedded-book",
      "html/rust-by-example",
      "html/nomicon",
      "html/edition-guide",
      "html/rustdoc",
    ],
  },
  // The manuals above ran out at 19,144 passages once HTML pages were read for their main content only:
  // four more Rust books, and these three, add Texinfo (gettext's manual), MkDocs and Xerces-C's
  // hand-written guides (not its Doxygen API), for 21,324 passages in all (2,565 documents indexed).
  { pkg: "gettext-doc", root: "gettext", dirs: ["."] },
  { pkg: "mkdocs-doc", root: "mkdocs", dirs: ["html"] },
  { pkg: "libxerces-c-doc", root: "libxerces-c-doc", dirs: ["html"] },
];

/**
 * For a team past what the manuals above hold (the remote suite's ~90k passages): Python's documentation
 * (Sphinx, Debian's python3.11-doc) and Node.js's API reference (its own generator, Debian's nodejs-doc),
 * read round-robin with the rest.
 */
export const LARGE_TEAM_MANUALS: readonly { pkg: string; root: string; dirs: readonly string[] }[] = [
  ...DEBIAN_MANUALS,
  {
    pkg: "python3.11-doc",
    root: "python3.11",
    // Its pages, not _sources/ (the same text again as reStructuredText).
    dirs: [
      "html/library",
      "html/reference",
      "html/tutorial",
      "html/howto",
      "html/faq",
      "html/using",
      "html/c-api",
    ],
  },
  { pkg: "nodejs-doc", root: "nodejs", dirs: ["api"] },
  // The standard library's reference: its modules, types and traits are documented in prose between the
  // signatures.
  { pkg: "rust-doc (std)", root: "rust-doc", dirs: ["html/std"] },
  // Java's class library reference (javadoc): each class and method described in prose.
  { pkg: "openjdk-17-doc", root: "openjdk-17-jdk-headless", dirs: ["api/java.base", "api/java.desktop"] },
];

const DOC_ROOT = "/usr/share/doc";

/**
 * Files past this are generated listings (Doxygen's source pages, indexes), not documents; they would each be
 * hundreds of passages of identifiers. 256 KiB keeps every manual chapter the packages ship.
 */
const MAX_FILE_BYTES = 256 * 1024;

/**
 * Doxygen's generated pages that are listings of names, not prose; and Xerces-C's Doxygen API folder, a
 * thousand pages of signatures beside its guides.
 */
const LISTING =
  /(^|\/)(globals|functions|files|dir_|namespace|classes|annotated|hierarchy)[^/]*\.html$|_source\.html$|\/apiDocs-3\//;

export interface RealDocument {
  title: string;
  content: string;
  format: DocumentFormat;
  /** package/relative path: where it came from. */
  source: string;
}

export interface RealCorpus {
  /** The documents to index, in a fixed order. */
  indexed: RealDocument[];
  /** The documents held out: long questions come from their sentences. */
  heldOut: RealDocument[];
  /** The packages that were found and read. */
  packages: string[];
}

function filesUnder(dir: string): string[] {
  let entries: string[];
  try {
    entries = readdirSync(dir).sort();
  } catch {
    return [];
  }
  return entries.flatMap((name) => {
    const path = join(dir, name);
    let stat: ReturnType<typeof statSync>;
    try {
      stat = statSync(path);
    } catch {
      return [];
    }
    if (stat.isDirectory()) return filesUnder(path);
    if (!/\.(html?|txt)$/.test(name) || stat.size === 0 || stat.size > MAX_FILE_BYTES) return [];
    return LISTING.test(path) ? [] : [path];
  });
}

function titleOf(path: string, content: string): string {
  const title = /<title[^>]*>([^<]{1,200})<\/title>/i.exec(content)?.[1]?.trim();
  return title && title.length > 0 ? title : (path.split("/").pop() ?? path);
}

/**
 * The manuals' documents, until at least `passages` passages (as memoria's chunker cuts them) are indexed:
 * packages are taken in turn, a file of each at a time, so every manual is represented at any size.
 */
export function readDebianManuals(passages: number, manuals = DEBIAN_MANUALS): RealCorpus {
  const perPackage = manuals
    .map(({ pkg, root, dirs }) => ({
      pkg,
      root: join(DOC_ROOT, root),
      files: dirs.flatMap((dir) => filesUnder(join(DOC_ROOT, root, dir))),
    }))
    .filter((p) => p.files.length > 0);
  const indexed: RealDocument[] = [];
  const heldOut: RealDocument[] = [];
  let count = 0;
  let seen = 0;
  for (let i = 0; count < passages; i++) {
    let any = false;
    for (const { pkg, root, files } of perPackage) {
      const path = files[i];
      if (!path || count >= passages) continue;
      any = true;
      const content = readFileSync(path, "utf8");
      const format: DocumentFormat = path.endsWith(".txt") ? "text" : "html";
      const doc = {
        title: titleOf(path, content),
        content,
        format,
        source: `${pkg}/${relative(root, path)}`,
      };
      seen++;
      if (seen % 10 === 0) {
        heldOut.push(doc);
        continue;
      }
      const n = chunkDocument(doc).length;
      if (n === 0) continue;
      indexed.push(doc);
      count += n;
    }
    if (!any) break;
  }
  return { indexed, heldOut, packages: perPackage.map((p) => p.pkg) };
}

/** Visible text of an HTML page, roughly: enough to cut sentences from, not to index. */
function visibleText(doc: RealDocument): string {
  if (doc.format !== "html") return doc.content;
  return doc.content
    .replace(/<(script|style|pre|code)[^>]*>[\s\S]*?<\/\1>/gi, " ")
    .replace(/<[^>]+>/g, " ")
    .replace(/&[a-z]+;|&#\d+;/gi, " ");
}

/**
 * Real sentences of 10–20 words from the held-out documents, each once, in document order, at most `count`.
 * A sentence is prose: it ends in a full stop and its words are mostly letters.
 */
export function heldOutSentences(corpus: RealCorpus, count: number, minWords = 10, maxWords = 20): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const doc of corpus.heldOut) {
    for (const raw of visibleText(doc)
      .replace(/\s+/g, " ")
      .split(/(?<=[.?!])\s+(?=[A-Z])/)) {
      const sentence = raw.trim();
      const words = sentence.split(" ");
      if (words.length < minWords || words.length > maxWords || !/[.?!]$/.test(sentence)) continue;
      const wordy = words.filter((w) => /^[A-Za-z][a-z'-]*[,.;:?!]?$/.test(w)).length;
      if (wordy < words.length * 0.8 || seen.has(sentence)) continue;
      seen.add(sentence);
      out.push(sentence);
      if (out.length >= count) return out;
    }
  }
  return out;
}

/** The corpus's indexed documents as an in-process PassageIndex takes them: chunked, ids in reading order. */
export function indexedDocuments(corpus: RealCorpus): IndexedDocument[] {
  return corpus.indexed.map((doc, d) => ({
    id: `d${String(d).padStart(6, "0")}`,
    title: doc.title,
    path: [doc.source.split("/")[0] ?? ""],
    passages: chunkDocument(doc).map((p, i) => ({
      chunkId: `c${d}-${i}`,
      ordinal: p.ordinal,
      heading: p.heading,
      text: p.text,
    })),
  }));
}
