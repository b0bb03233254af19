// What the passage index keeps of a document beside FTS5, what a hit shows of a stored passage, and the
// contract's order among equal scores: shared by ranking (passage-searcher.ts) and feedback's rescoring
// (feedback-rescoring.ts).

export interface DocumentEntry {
  title: string;
  path: string[];
  tags: readonly string[];
  rowids: number[];
  /** Whether its rowids follow (document id, ordinal) order. */
  ordered: boolean;
}

/** What a hit shows of a passage's document. */
export type DocumentShown = Pick<DocumentEntry, "title" | "path" | "tags">;

/** What a hit shows of a passage, as the searcher's #storedPassages reads it. */
export interface StoredHit {
  chunkId: string;
  documentId: string;
  ordinal: number;
  document: DocumentShown | undefined;
  heading: string;
  body: string;
  title: string;
  path: string;
}

/** The contract's order among equal scores: document id, then ordinal. */
export function contractOrder(
  a: { documentId: string; ordinal: number } | undefined,
  b: { documentId: string; ordinal: number } | undefined,
): number {
  const x = a?.documentId ?? "";
  const y = b?.documentId ?? "";
  return x < y ? -1 : x > y ? 1 : (a?.ordinal ?? 0) - (b?.ordinal ?? 0);
}
