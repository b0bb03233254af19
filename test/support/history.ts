// The same final documents reached along another history: half of them first, then the first quarter removed,
// then all of them. Removed documents come back in new rowid slots, so the index ends with documents out of
// rowid order (answering unpruned) over exactly the data a single apply() gives.

import type { IndexedDocument, PassageIndex } from "../../src/index/passages/passage-index.js";

export function applyAlongAnotherHistory(index: PassageIndex, docs: readonly IndexedDocument[]): void {
  index.apply(docs.slice(0, docs.length / 2));
  index.apply(
    [],
    docs.slice(0, docs.length / 4).map((d) => d.id),
  );
  index.apply([...docs]);
}
