// Extraction on the calling thread: the format's reader, chosen by the declared format. The servers run it
// in a worker instead (src/runtime/extract-pool.ts); tests and the bench call it here too.

import type { Extractor } from "./extracted.js";

/** Reads the file on this thread; the readers are loaded on first use (PDF.js is ~2 MB to parse). */
export const inlineExtractor: Extractor = async ({ format, bytes }) => {
  if (format === "pdf") return (await import("./pdf.js")).extractPdf(bytes);
  return (await import("./docx.js")).extractDocx(bytes);
};
