// Shared by the export, restore and CLI tests: a team filled with real text nobody here wrote (the READMEs
// of installed packages) beside a few synthetic documents and entries, and the export's lines read back.

import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";

const modules = join(import.meta.dirname, "../../node_modules");

/** Up to `count` README.md files of installed packages, by package name, each at most `maxBytes`. */
export function packageReadmes(count: number, maxBytes = 64 * 1024): { name: string; content: string }[] {
  const found: { name: string; content: string }[] = [];
  for (const name of readdirSync(modules).sort()) {
    if (found.length >= count) break;
    const file = join(modules, name, "README.md");
    try {
      if (!statSync(file).isFile() || statSync(file).size > maxBytes) continue;
    } catch {
      continue;
    }
    found.push({ name, content: readFileSync(file, "utf8") });
  }
  return found;
}

/** A line of an export as JSON, typed loosely: tests look at what they assert. */
export type Line = Record<string, unknown> & {
  document?: Record<string, unknown> & { id: string; content: string };
  entry?: Record<string, unknown> & { id: string };
  end?: { documents: number; entries: number };
};

export function linesOf(ndjson: string): Line[] {
  return ndjson
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as Line);
}

/** Documents and entries to fill a team with: the READMEs, and synthetic ones with every field set. */
export function teamContent(readmes = 12): {
  documents: { title: string; content: string; format?: string; path?: string[]; externalId?: string }[];
  entries: { title: string; impact?: string; project?: string; type?: string; body?: string }[];
} {
  type Doc = { title: string; content: string; format?: string; path?: string[]; externalId?: string };
  const documents: Doc[] = packageReadmes(readmes).map(({ name, content }, i) => ({
    title: `${name} readme`,
    content,
    path: ["Packages", name],
    ...(i % 2 === 0 ? { externalId: `file:packages/${name}.md` } : {}),
  }));
  documents.push(
    {
      title: "Quokka runbook",
      content: "# Quokka runbook\n\nRestart the wombat relay before the quokka desk.",
      format: "markdown",
    },
    { title: "Plain notes", content: "line one\nline two: the platypus ledger", format: "text" },
    { title: "Page", content: "<main><h1>Page</h1><p>An echidna audit, in HTML.</p></main>", format: "html" },
  );
  const entries = [
    { title: "Pin vitest to 4.1", impact: "5.x needs Node 22", project: "web", type: "decision" },
    {
      title: "Relay outage",
      impact: "wombat relay down 40 min",
      project: "ops",
      type: "incident",
      body: "Root cause: a full disk.",
    },
    { title: "Quokka desk moves", project: "web", type: "learning" },
    { title: "Bare entry" },
  ];
  return { documents, entries };
}
