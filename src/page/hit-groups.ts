// Search hits as the page shows them: one group per document, in the order of each document's best hit,
// with at most MAX_PASSAGES_SHOWN of its passages, best first. The search answer itself stays one hit per
// passage (API clients rank and group as they need); this is the page's reading of it.

import type { PassageHit } from "../index/passages/passage-index.js";

/**
 * Passages shown under one document. Three show that a document answers in several places without letting
 * one long document fill the page (a README matched 11 of 20 hits before grouping).
 */
export const MAX_PASSAGES_SHOWN = 3;

export interface HitGroup {
  documentId: string;
  title: string;
  path: string[];
  /** Best first, at most MAX_PASSAGES_SHOWN. */
  passages: PassageHit[];
  /** Hits of this document in the answer beyond those shown. */
  more: number;
}

/** Groups hits (already in rank order) by document, each document once. */
export function groupHits(hits: readonly PassageHit[], maxPassages = MAX_PASSAGES_SHOWN): HitGroup[] {
  const groups = new Map<string, HitGroup>();
  for (const hit of hits) {
    let group = groups.get(hit.documentId);
    if (!group) {
      group = { documentId: hit.documentId, title: hit.title, path: hit.path, passages: [], more: 0 };
      groups.set(hit.documentId, group);
    }
    if (group.passages.length < maxPassages) group.passages.push(hit);
    else group.more++;
  }
  return [...groups.values()];
}
