// The formats a document can be in, and the one map from a file name's extension to a format, used alike by
// a multipart upload and by `memoria import`. Extensions match without regard to case (README.MD is markdown).

// pdf and docx are stored as the markdown extracted from the file (src/extract/); the format says where
// the text came from, and it chunks as markdown.
export const documentFormats = ["markdown", "text", "html", "pdf", "docx"] as const;
export type DocumentFormat = (typeof documentFormats)[number];

const formatOfExtension: Record<string, DocumentFormat> = {
  ".md": "markdown",
  ".markdown": "markdown",
  ".txt": "text",
  ".html": "html",
  ".htm": "html",
  ".pdf": "pdf",
  ".docx": "docx",
};

/** The document format of a file name, or null for a name with no extension memoria reads as a document. */
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
