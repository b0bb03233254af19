// What goes into a passage index and what comes out of it: a document's passages, and a hit. Shared by the
// index's writer (passage-index.ts) and its searcher (passage-searcher.ts).

import { withoutMarkers } from "../snippets/snippet.js";
import { type PackedBlock, packTextBlocks } from "./passage-text.js";

/** Joins a heading trail or an ancestry path into one indexed string. */
export const TRAIL_SEPARATOR = " › ";

export interface IndexedPassage {
  chunkId: string;
  ordinal: number;
  heading: string;
  text: string;
}

export interface IndexedDocument {
  id: string;
  title: string;
  path: string[];
  /** Front matter tags, searched as words of the title (absent: none). */
  tags?: readonly string[];
  passages: IndexedPassage[];
  /**
   * Its text blocks packed ahead (packDocumentText of these passages), by a build that had another thread
   * pack them while it inserted; absent, the index packs them itself.
   */
  packed?: readonly PackedBlock[];
}

/** What the index stores of a document's text (passage-text.ts), from its passages as they are indexed. */
export function packDocumentText(passages: readonly IndexedPassage[]): PackedBlock[] {
  return packTextBlocks(
    passages.map((p) => ({ chunkId: p.chunkId, heading: p.heading, body: withoutMarkers(p.text) })),
  );
}

/**
 * What the title column indexes: the title, then the document's tags. A tag names what a document is
 * about as its title does, so it weighs as a title word (weights.ts), in every passage of the document;
 * the hit still shows the title alone. Decision 0033.
 */
export function titleColumnText(title: string, tags: readonly string[] = []): string {
  return tags.length === 0 ? title : [title, ...tags].join(TRAIL_SEPARATOR);
}

export interface PassageHit {
  chunkId: string;
  documentId: string;
  ordinal: number;
  title: string;
  heading: string;
  path: string[];
  snippet: string;
  /** BM25 negated, so larger is better everywhere outside this file. */
  score: number;
}
