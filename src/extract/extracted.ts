// What extraction makes of a PDF or DOCX file, and the one signature every way of running it has (on the
// calling thread for tests and small tools, or in the worker pool of src/runtime/extract-pool.ts).

export const fileFormats = ["pdf", "docx"] as const;
export type FileFormat = (typeof fileFormats)[number];

export interface Extracted {
  /** The text as markdown: headings are the file's headings (DOCX) or outline entries and pages (PDF). */
  content: string;
  /** The file's own title (its metadata), else its first heading; null when it has neither. */
  title: string | null;
}

export interface ExtractInput {
  format: FileFormat;
  bytes: Uint8Array;
}

/** Resolves with the file's text, or rejects with an ExtractionError saying why there is none. */
export type Extractor = (file: ExtractInput) => Promise<Extracted>;
