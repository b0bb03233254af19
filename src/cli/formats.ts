// Which files an import sends, and as what: the four extensions API.md's "Command line" names, matched
// without regard to case (README.MD is a markdown file too).

import type { DocumentFormat } from "../ingest/chunk.js";

const formatOfExtension: Record<string, DocumentFormat> = {
  ".md": "markdown",
  ".markdown": "markdown",
  ".txt": "text",
  ".html": "html",
};

/** The document format of a file name, or null when an import does not send such files. */
export function formatOfFile(name: string): DocumentFormat | null {
  const dot = name.lastIndexOf(".");
  // A name that is only an extension (".md") is a hidden file, not a markdown document.
  if (dot <= 0) return null;
  return formatOfExtension[name.slice(dot).toLowerCase()] ?? null;
}

/** The file name without its extension (the title of last resort). */
export function stem(name: string): string {
  const dot = name.lastIndexOf(".");
  return dot > 0 ? name.slice(0, dot) : name;
}
