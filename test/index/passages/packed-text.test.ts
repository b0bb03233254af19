// A document's text packed ahead of apply() (packDocumentText, as a build has another thread do it): the index
// then holds exactly what it holds when it packs the text itself, every table row for row; blocks that do not
// follow the passages are refused, never stored.

import { describe, expect, it } from "vitest";
import { packDocumentText } from "../../../src/index/passages/passage-document.js";
import { type IndexedDocument, PassageIndex } from "../../../src/index/passages/passage-index.js";
import {
  type PackedBlock,
  type StoredPassage,
  unpackBlock,
} from "../../../src/index/passages/passage-text.js";
import { MATCH_CLOSE, MATCH_OPEN } from "../../../src/index/snippets/snippet.js";
import { readmeDocuments } from "../../support/readme-documents.js";

/** Every row of every table the index holds, as its snapshot reads them. */
function tablesOf(index: PassageIndex) {
  const rows: unknown[] = [];
  for (const page of index.snapshot(256).pages) rows.push(page.table, page.rows);
  return rows;
}

/** Every passage's stored text, in rowid order, unpacked from the index's text table. */
function storedText(index: PassageIndex): StoredPassage[] {
  const passages: StoredPassage[] = [];
  for (const page of index.snapshot(256).pages) {
    if (page.table !== "passage_text") continue;
    const packed = page.columns.indexOf("packed");
    for (const row of page.rows) passages.push(...unpackBlock(row[packed] as Uint8Array));
  }
  return passages;
}

function built(documents: IndexedDocument[]): PassageIndex {
  const index = new PassageIndex();
  index.apply(documents.slice(0, 2));
  index.apply(documents.slice(2));
  return index;
}

describe("text packed ahead", () => {
  it("leaves the index holding what it holds when it packs the text itself", () => {
    const documents = readmeDocuments();
    expect(documents.reduce((n, d) => n + d.passages.length, 0)).toBeGreaterThan(50);
    const inline = built(documents);
    const ahead = built(documents.map((d) => ({ ...d, packed: packDocumentText(d.passages) })));
    expect(tablesOf(ahead)).toEqual(tablesOf(inline));
    // What is stored is each passage's text, with the match markers a passage may carry taken out.
    const byChunk = (a: StoredPassage, b: StoredPassage) => a.chunkId.localeCompare(b.chunkId);
    const stored = storedText(ahead).sort(byChunk);
    const expected = documents.flatMap((d) =>
      d.passages.map((p) => ({
        chunkId: p.chunkId,
        heading: p.heading,
        body: p.text.replaceAll(MATCH_OPEN, " ").replaceAll(MATCH_CLOSE, " "),
      })),
    );
    expect(stored).toEqual(expected.sort(byChunk));
    expect(stored.some((p) => p.body.includes("quokkamark"))).toBe(true);
    inline.close();
    ahead.close();
  });

  it("refuses blocks that do not hold every passage once and in order, storing nothing", () => {
    const [doc] = readmeDocuments();
    if (!doc) throw new Error("no README document");
    const packed = packDocumentText(doc.passages);
    expect(packed.length).toBeGreaterThan(2);
    const [first, second] = packed as [PackedBlock, PackedBlock];
    const wrong: PackedBlock[][] = [
      // Not from the first passage; not to the last; past the last.
      packed.slice(1),
      packed.slice(0, -1),
      [...packed, { first: doc.passages.length, count: 1, packed: first.packed }],
      // A block twice, overlapping the next, or claiming passages the next one holds.
      [first, first, ...packed.slice(1)],
      [first, { ...second, first: second.first - 1 }, ...packed.slice(2)],
      [{ ...first, count: first.count + 1 }, ...packed.slice(1)],
      [{ ...first, count: 0 }, ...packed],
    ];
    for (const blocks of wrong) {
      const index = new PassageIndex();
      expect(() => index.apply([{ ...doc, packed: blocks }])).toThrow(RangeError);
      // A write that fails closes the index (the next search rebuilds it): nothing half-written is searched.
      expect(index.isOpen()).toBe(false);
    }
  });
});
