// The layering src/ keeps (README.md, "How the code is laid out"): dependencies between top-level folders point one way, and
// the pure core — memory/ (ranking and rendering) and the query builder — imports nothing from Hono or
// libSQL. Read off the source text itself, so a new import that breaks either fails here with the files that
// did it, whoever wrote it.

import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const src = resolve(dirname(fileURLToPath(import.meta.url)), "../src");

/** One import of one file: `from` and `to` relative to src/ (`to` is the specifier for a package). */
interface Import {
  from: string;
  to: string;
  isPackage: boolean;
}

/**
 * What each folder of src/ may import besides itself, as README.md's "How the code is laid out" lists it.
 * Every folder may also import the top-level leaf modules (LEAVES); app.ts, which wires everything, and the
 * leaves themselves are not listed.
 */
const MAY_IMPORT: Record<string, readonly string[]> = {
  // index/: a search thread (runtime/search-thread.ts) runs the index's own searcher over its connection.
  "runtime/": ["app.ts", "http/", "store/", "seal/", "async/", "ingest/", "text/", "extract/", "index/"],
  "http/": ["seal/", "services/"],
  "page/": ["routes/", "services/", "http/", "index/", "memory/", "ingest/", "seal/"],
  "routes/": ["services/", "http/", "index/", "memory/", "ingest/", "seal/", "sources/", "text/"],
  "services/": [
    "live/",
    "index/",
    "memory/",
    "sealed-rows/",
    "sources/",
    "store/",
    "seal/",
    "ingest/",
    "extract/",
    "async/",
    "text/",
  ],
  "live/": ["index/", "sealed-rows/", "store/", "seal/", "async/"],
  "sources/": ["sealed-rows/", "store/", "seal/", "async/"],
  "sealed-rows/": ["seal/", "store/", "ingest/"],
  "index/": ["memory/", "text/"],
  "memory/": ["text/"],
  "ingest/": ["text/", "seal/"],
  "extract/": [],
  "store/": [],
  "seal/": [],
  "async/": [],
  "text/": [],
  "cli/": ["ingest/", "async/"],
};
const LEAVES = [
  "errors.ts",
  "ids.ts",
  "api-key.ts",
  "clock.ts",
  "logger.ts",
  "config.ts",
  "scope.ts",
  "role.ts",
  "audit.ts",
  "oauth-token.ts",
  "oauth-scope.ts",
  "oauth-error.ts",
  "tuning.ts",
];

/**
 * What routes/ and page/ may call in the layers below services/. README's table lets them take the constants
 * and types of those layers, and a function only from this list. None reads storage or an index: the edge checks
 * a file's format and text before any service sees its body, renders a document's outline for the page, and
 * makes and checks the page's sessions and CSRF tokens (the key work stays in seal/; page/sessions.ts calls it).
 */
const EDGE_MAY_CALL: Record<string, readonly string[]> = {
  "ingest/formats.ts": ["formatOfFile", "stem", "documentFormats"],
  "ingest/text.ts": ["decodeUtf8", "describeNotText", "notTextReason"],
  "ingest/chunk.ts": ["defaultChunkLimits"],
  "ingest/html.ts": ["renderHtml"],
  "ingest/markdown.ts": ["renderMarkdown"],
  "ingest/sections.ts": ["SectionBuilder"],
  "ingest/entities.ts": ["decodeEntities"],
  "seal/page-session.ts": [
    "csrfToken",
    "csrfTokenMatches",
    "generateSessionSecret",
    "openSessionKey",
    "pageSessionKeys",
    "sealSessionKey",
  ],
  "seal/sign-in-attempt.ts": ["signInAttempt"],
  "seal/bytes.ts": ["fromBase64", "fromUtf8", "toBase64Url", "utf8"],
  "text/length.ts": ["utf8Length"],
  "sources/notion/signature.ts": [],
};
/** The folders routes/ and page/ reach past services/ for constants and types. */
const BELOW_THE_EDGE = ["index/", "memory/", "ingest/", "seal/", "sources/", "text/"];

/** Each name one file imports from one other file of src/, and whether it is imported as a type only. */
function importedNames(file: string): { to: string; name: string; typeOnly: boolean }[] {
  const path = join(src, file);
  const source = ts.createSourceFile(path, readFileSync(path, "utf8"), ts.ScriptTarget.Latest, false);
  return source.statements.flatMap((statement) => {
    if (!ts.isImportDeclaration(statement) || !ts.isStringLiteral(statement.moduleSpecifier)) return [];
    const specifier = statement.moduleSpecifier.text;
    if (!specifier.startsWith(".")) return [];
    const target = resolve(dirname(path), specifier).replace(/\.js$/, ".ts");
    const to = relative(src, existsSync(target) ? target : `${target}x`);
    const clause = statement.importClause;
    if (clause === undefined) return [{ to, name: "(side effects)", typeOnly: false }];
    const wholeTypeOnly = clause.isTypeOnly;
    const names: { to: string; name: string; typeOnly: boolean }[] = [];
    if (clause.name) names.push({ to, name: clause.name.text, typeOnly: wholeTypeOnly });
    const bindings = clause.namedBindings;
    if (bindings && ts.isNamespaceImport(bindings)) names.push({ to, name: "* as", typeOnly: wholeTypeOnly });
    if (bindings && ts.isNamedImports(bindings)) {
      for (const element of bindings.elements) {
        names.push({ to, name: element.name.text, typeOnly: wholeTypeOnly || element.isTypeOnly });
      }
    }
    return names;
  });
}

/** An import routes/ or page/ makes past services/ that is neither a type, a constant, nor listed above. */
function edgeReachesBelow(imported: { to: string; name: string; typeOnly: boolean }): boolean {
  if (!BELOW_THE_EDGE.includes(folderOf(imported.to))) return false;
  if (imported.typeOnly || /^[A-Z][A-Z0-9_]*$/.test(imported.name)) return false;
  return !(EDGE_MAY_CALL[imported.to] ?? []).includes(imported.name);
}

/** The files of ranking's arithmetic: pure functions of explicit parameters, no engine, no package. */
const RANKING_ARITHMETIC = [
  "index/ranking/bm25.ts",
  "index/ranking/prune.ts",
  "index/ranking/feedback.ts",
  "index/ranking/weights.ts",
];

/** Packages the pure core must not import: the HTTP framework and the database drivers. */
const NOT_IN_THE_CORE = /^(hono|@hono\/.*|@libsql\/.*|libsql|@photostructure\/sqlite)(\/.*)?$/;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

/** Every import and re-export of every file under src/, static or dynamic, `import type` included. */
function imports(): Import[] {
  return sourceFiles(src).flatMap((file) => {
    const from = relative(src, file);
    const { importedFiles } = ts.preProcessFile(readFileSync(file, "utf8"), true, true);
    return importedFiles.map(({ fileName }) => {
      if (!fileName.startsWith(".")) return { from, to: fileName, isPackage: true };
      // A `.js` specifier names a .ts file, or a .tsx one (the page's views).
      const target = resolve(dirname(file), fileName).replace(/\.js$/, ".ts");
      const to = relative(src, existsSync(target) ? target : `${target}x`);
      return { from, to, isPackage: false };
    });
  });
}

/** The part of src/ a file belongs to: its top-level folder, or the file itself for one at the top. */
function folderOf(path: string): string {
  const [first, ...rest] = path.split("/");
  return rest.length > 0 ? `${first}/` : (first as string);
}

/**
 * The groups of folders that import each other, directly or round a longer loop (the strongly connected
 * components of the folder graph with more than one folder), each with the file imports that make it.
 */
function folderCycles(edges: readonly { from: string; to: string }[]): string[] {
  const next = new Map<string, Set<string>>();
  for (const { from, to } of edges) {
    const [a, b] = [folderOf(from), folderOf(to)];
    if (a === b) continue;
    next.set(a, (next.get(a) ?? new Set()).add(b));
    if (!next.has(b)) next.set(b, new Set());
  }
  // Tarjan's algorithm.
  const order = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const groups: string[][] = [];
  const visit = (folder: string) => {
    order.set(folder, order.size);
    low.set(folder, order.get(folder) as number);
    stack.push(folder);
    onStack.add(folder);
    for (const to of next.get(folder) ?? []) {
      if (!order.has(to)) {
        visit(to);
        low.set(folder, Math.min(low.get(folder) as number, low.get(to) as number));
      } else if (onStack.has(to)) {
        low.set(folder, Math.min(low.get(folder) as number, order.get(to) as number));
      }
    }
    if (low.get(folder) !== order.get(folder)) return;
    const group: string[] = [];
    for (let top = stack.pop(); top !== undefined; top = stack.pop()) {
      onStack.delete(top);
      group.push(top);
      if (top === folder) break;
    }
    if (group.length > 1) groups.push(group.sort());
  };
  for (const folder of [...next.keys()].sort()) if (!order.has(folder)) visit(folder);
  return groups.map((group) => {
    const inGroup = new Set(group);
    const files = edges
      .filter((e) => folderOf(e.from) !== folderOf(e.to))
      .filter((e) => inGroup.has(folderOf(e.from)) && inGroup.has(folderOf(e.to)))
      .map((e) => `${e.from} -> ${e.to}`);
    return `${group.join(", ")} import each other: ${[...new Set(files)].sort().join("; ")}`;
  });
}

describe("source layout", () => {
  const all = imports();

  it("reads the imports it checks", () => {
    // A parser that found nothing would pass every check below.
    expect(all.filter((i) => i.from === "memory/gather.ts" && !i.isPackage).map((i) => i.to)).toContain(
      "memory/constants.ts",
    );
    expect(all.filter((i) => i.from === "index/engine.ts").map((i) => i.to)).toContain(
      "@photostructure/sqlite",
    );
  });

  it("names the folders and files of a cycle", () => {
    const cycles = folderCycles([
      { from: "memory/gather.ts", to: "index/query.ts" },
      { from: "index/entry-index.ts", to: "memory/entry.ts" },
      { from: "a/x.ts", to: "b/y.ts" },
      { from: "b/y.ts", to: "c/z.ts" },
      { from: "c/z.ts", to: "a/w.ts" },
      { from: "app.ts", to: "a/x.ts" },
    ]);
    expect(cycles.sort()).toEqual([
      "a/, b/, c/ import each other: a/x.ts -> b/y.ts; b/y.ts -> c/z.ts; c/z.ts -> a/w.ts",
      "index/, memory/ import each other: index/entry-index.ts -> memory/entry.ts; memory/gather.ts -> index/query.ts",
    ]);
    expect(folderCycles([{ from: "routes/a.ts", to: "store/b.ts" }])).toEqual([]);
  });

  it("has no two folders of src/ importing each other, directly or round a loop", () => {
    expect(folderCycles(all.filter((i) => !i.isPackage))).toEqual([]);
  });

  it("has every folder import only what README's layout table lets it", () => {
    const folders = new Set(sourceFiles(src).map((file) => folderOf(relative(src, file))));
    // A new folder needs its row: the table is the map a newcomer reads.
    expect([...folders].filter((f) => f.endsWith("/") && !(f in MAY_IMPORT)).sort()).toEqual([]);
    const outside = all
      .filter((i) => !i.isPackage)
      .filter((i) => {
        const [from, to] = [folderOf(i.from), folderOf(i.to)];
        const allowed = MAY_IMPORT[from];
        return allowed !== undefined && from !== to && !LEAVES.includes(to) && !allowed.includes(to);
      })
      .map((i) => `${i.from} -> ${i.to}`);
    expect(outside).toEqual([]);
  });

  it('is the table under README\'s own heading "How the code is laid out", folder for folder', () => {
    const readme = readFileSync(join(src, "../README.md"), "utf8");
    const section = readme.split(/^## /m).find((part) => part.startsWith("How the code is laid out\n"));
    expect(section, "README has no section headed How the code is laid out").toBeDefined();
    const listed = [...(section ?? "").matchAll(/^\| (`[^|]+`) \|/gm)].flatMap((row) =>
      [...(row[1] ?? "").matchAll(/`([^`]+)`/g)].map((name) => name[1]),
    );
    expect(listed.sort()).toEqual(Object.keys(MAY_IMPORT).sort());
  });

  it("has routes/ and page/ take only constants, types and the listed pure functions from below services/", () => {
    const edgeFiles = sourceFiles(src)
      .map((file) => relative(src, file))
      .filter((path) => path.startsWith("routes/") || path.startsWith("page/"));
    const names = edgeFiles.flatMap((file) => importedNames(file).map((imported) => ({ file, imported })));
    // A parser that read nothing would pass: the page's views import the passage index's separator constant.
    expect(names.some(({ imported }) => imported.name === "TRAIL_SEPARATOR")).toBe(true);
    const offending = names
      .filter(({ imported }) => edgeReachesBelow(imported))
      .map(({ file, imported }) => `${file} calls ${imported.name} of ${imported.to}`);
    expect(offending).toEqual([]);
  });

  it("flags a function routes/ would take from the index, and lets a constant or a type through", () => {
    expect(edgeReachesBelow({ to: "index/query.ts", name: "matchQuery", typeOnly: false })).toBe(true);
    expect(edgeReachesBelow({ to: "index/query.ts", name: "MAX_QUERY_BYTES", typeOnly: false })).toBe(false);
    expect(
      edgeReachesBelow({ to: "index/passages/passage-index.ts", name: "PassageHit", typeOnly: true }),
    ).toBe(false);
    expect(edgeReachesBelow({ to: "seal/page-session.ts", name: "csrfToken", typeOnly: false })).toBe(false);
    expect(edgeReachesBelow({ to: "services/search.ts", name: "SearchService", typeOnly: false })).toBe(
      false,
    );
  });

  it("keeps ranking's arithmetic free of the engine and of every package", () => {
    for (const file of RANKING_ARITHMETIC) expect(existsSync(join(src, file)), file).toBe(true);
    const offending = all
      .filter((i) => RANKING_ARITHMETIC.includes(i.from))
      .filter((i) => i.isPackage || !RANKING_ARITHMETIC.includes(i.to))
      .map((i) => `${i.from} -> ${i.to}`);
    expect(offending).toEqual([]);
  });

  it("opens the indexes' SQL engine in index/engine.ts alone", () => {
    const importers = all
      .filter((i) => i.isPackage && i.to.startsWith("@photostructure/sqlite"))
      .map((i) => i.from);
    expect(importers).toEqual(["index/engine.ts"]);
  });

  it("keeps Hono and libSQL out of memory/ and the query builder, also through what they import", () => {
    const core = sourceFiles(src)
      .map((file) => relative(src, file))
      .filter((path) => path.startsWith("memory/") || path === "index/query.ts");
    // Every file of src/ the core reaches, with the chain that reaches it.
    const via = new Map<string, string>(core.map((path) => [path, path]));
    for (const path of via.keys()) {
      for (const i of all.filter((i) => i.from === path && !i.isPackage)) {
        if (!via.has(i.to)) via.set(i.to, `${via.get(path)} -> ${i.to}`);
      }
    }
    const offending = all
      .filter((i) => via.has(i.from) && i.isPackage && NOT_IN_THE_CORE.test(i.to))
      .map((i) => `${via.get(i.from)} imports ${i.to}`);
    expect(offending).toEqual([]);
    expect(via.size).toBeGreaterThan(core.length);
  });
});
