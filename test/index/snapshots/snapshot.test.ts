// An index copied out through snapshot() and into PassageIndex.restore / EntryIndex.restore, with no storage
// and no sealing: the copy answers exactly as the original, takes later writes exactly as the original does
// (rowid ranges and unordered documents included), and a page that does not fit the index, or bookkeeping
// not in its shape, is refused. The page codec round-trips every SQLite value exactly.

import { afterEach, describe, expect, it } from "vitest";
import { IndexDatabase } from "../../../src/index/engine.js";
import { EntryIndex, type IndexedEntry } from "../../../src/index/entry-index.js";
import { type IndexedDocument, PassageIndex } from "../../../src/index/passages/passage-index.js";
import { matchQuery } from "../../../src/index/query.js";
import {
  decodePage,
  encodePage,
  exportTables,
  SnapshotMismatchError,
  schemaFingerprint,
  type TablePage,
  TableRestore,
  Utf8Text,
} from "../../../src/index/snapshots/snapshot.js";

const opened: { close(): void; isOpen(): boolean }[] = [];
afterEach(() => {
  for (const index of opened.splice(0)) if (index.isOpen()) index.close();
});

const WORDS = ["okapi", "ledger", "quartz", "harbour", "lantern", "meadow", "invoice", "glacier", "copper"];

function text(seed: number, n: number): string {
  return Array.from({ length: n }, (_, i) => WORDS[(seed * 7 + i * i + i) % WORDS.length]).join(" ");
}

function doc(id: string, seed: number, passages: number, ordinals?: number[]): IndexedDocument {
  return {
    id,
    title: `Title ${text(seed, 2)}`,
    path: ["Area", `Sub ${seed % 3}`],
    passages: Array.from({ length: passages }, (_, i) => ({
      chunkId: `${id}.1.${ordinals?.[i] ?? i}`,
      ordinal: ordinals?.[i] ?? i,
      heading: `Heading ${text(seed + i, 2)}`,
      text: `${text(seed * 3 + i, 30)} é ü 漢字 🙂`,
    })),
  };
}

/** Copies `index` into a fresh one as a snapshot does: pages through the codec, bookkeeping through JSON. */
function copyOf(index: PassageIndex, pageRows = 7): PassageIndex {
  const snapshot = index.snapshot(pageRows);
  const restore = PassageIndex.restore({ rowidGap: 16 });
  expect(restore.fingerprint).toBe(snapshot.fingerprint);
  for (const page of snapshot.pages) restore.write(decodePage(encodePage(page)));
  const copy = restore.finish(JSON.parse(JSON.stringify(snapshot.state())));
  opened.push(copy);
  return copy;
}

const QUERIES = [...WORDS, "okapi ledger", "heading quartz", "title area", "漢字", "sub 2", "nothing"];

function answers(index: PassageIndex): string {
  return JSON.stringify(QUERIES.map((q) => [index.find(matchQuery(q), 5), index.find(matchQuery(q), 50)]));
}

describe("a passage index restored from its snapshot", () => {
  it("answers as the original, and takes the same later writes to the same answers", () => {
    const original = new PassageIndex({ rowidGap: 16 });
    opened.push(original);
    original.apply(
      Array.from({ length: 30 }, (_, i) => doc(`d${String(i).padStart(3, "0")}`, i, 1 + (i % 5))),
    );
    // A document whose passages are out of ordinal order gets unordered rowids.
    original.apply([doc("d500", 9, 3, [2, 0, 1])]);
    original.apply([], ["d004"]);
    expect(original.unorderedDocuments()).toBe(1);

    const copy = copyOf(original);
    expect(copy.counts()).toEqual(original.counts());
    expect(copy.unorderedDocuments()).toBe(1);
    expect(answers(copy)).toBe(answers(original));

    // Writes after the restore: one fits between neighbours, one needs more room than the gap leaves.
    for (const index of [original, copy]) {
      index.apply([doc("d0045", 77, 2), doc("d010", 5, 40), doc("d999", 3, 2)], ["d020", "d500"]);
    }
    expect(copy.counts()).toEqual(original.counts());
    expect(copy.unorderedDocuments()).toBe(original.unorderedDocuments());
    expect(answers(copy)).toBe(answers(original));
  });

  it("copies an index whose build held merges back, and an empty one", () => {
    const held = new PassageIndex();
    opened.push(held);
    held.holdMerges(true);
    for (let i = 0; i < 40; i++) held.apply([doc(`e${String(i).padStart(3, "0")}`, i, 2)]);
    held.holdMerges(false);
    const copy = copyOf(held, 3);
    expect(answers(copy)).toBe(answers(held));
    while (copy.wholeMergeStep());
    expect(answers(copy)).toBe(answers(held));

    const empty = new PassageIndex();
    opened.push(empty);
    expect(copyOf(empty).counts()).toEqual({ documents: 0, chunks: 0 });
  });

  it("refuses a page of a table it does not have, or with other columns, and bookkeeping out of shape", () => {
    const index = new PassageIndex();
    opened.push(index);
    index.apply([doc("d1", 1, 2)]);
    const pages = [...index.snapshot(100).pages];
    // Any table the index holds will do; passage_rows is a plain one of several columns.
    const content = pages.find((p) => p.table === "passage_rows") as TablePage;

    const restore = PassageIndex.restore();
    opened.push({ close: () => restore.abort(), isOpen: () => true });
    expect(() => restore.write({ ...content, table: "teams" })).toThrow(SnapshotMismatchError);
    expect(() => restore.write({ ...content, columns: content.columns.slice(1) })).toThrow(
      SnapshotMismatchError,
    );
    expect(() => restore.write({ ...content, table: "returned_rows" })).toThrow(SnapshotMismatchError);
    expect(() => restore.finish({ documents: "no" })).toThrow(SnapshotMismatchError);
  });

  it("never copies the scratch snippet tables, and its fingerprint changes with the schema", () => {
    const index = new PassageIndex();
    opened.push(index);
    index.apply([doc("d1", 1, 2)]);
    index.find(matchQuery("okapi"), 5);
    const tables = new Set([...index.snapshot(100).pages].map((p) => p.table));
    expect([...tables].some((t) => t.startsWith("returned"))).toBe(false);
    expect(tables.has("passages_data")).toBe(true);

    const db = new IndexDatabase(":memory:");
    db.exec("CREATE VIRTUAL TABLE passages USING fts5(heading, body)");
    const before = schemaFingerprint(db);
    db.exec("CREATE TABLE returned_rows (x)");
    expect(schemaFingerprint(db)).toBe(before);
    db.exec("CREATE TABLE extra (x)");
    expect(schemaFingerprint(db)).not.toBe(before);
    expect(before).toMatch(/^3\.\d+\.\d+\//);
    db.close();
  });
});

describe("an entry index restored from its snapshot", () => {
  const entry = (i: number, createdAt: string): IndexedEntry => ({
    id: `n${String(i).padStart(3, "0")}`,
    createdAt,
    project: i % 2 ? "alpha" : null,
    type: "decision",
    title: `Entry ${text(i, 3)}`,
    impact: i % 3 ? text(i + 1, 4) : null,
    body: text(i + 2, 10),
  });
  const reads = (index: EntryIndex) =>
    JSON.stringify([
      index.newest(50),
      index.newestOfProject("alpha", 50),
      ...WORDS.map((w) => index.matching(matchQuery(w), 10)),
    ]);

  it("answers as the original, out-of-order entries and later writes included", () => {
    const original = new EntryIndex();
    opened.push(original);
    original.apply(
      Array.from({ length: 20 }, (_, i) => entry(i, `2026-01-${String(10 + i).padStart(2, "0")}`)),
    );
    // Older than the newest: inserted out of recency order.
    original.apply([entry(90, "2026-01-01")]);
    const snapshot = original.snapshot(4);
    const restore = EntryIndex.restore();
    for (const page of snapshot.pages) restore.write(decodePage(encodePage(page)));
    const copy = restore.finish(JSON.parse(JSON.stringify(snapshot.state())));
    opened.push(copy);
    expect(copy.count()).toBe(original.count());
    expect(copy.unorderedEntries()).toBe(1);
    expect(reads(copy)).toBe(reads(original));
    for (const index of [original, copy])
      index.apply([entry(91, "2026-02-01"), entry(92, "2025-12-01")], ["n003", "n090"]);
    expect(copy.unorderedEntries()).toBe(original.unorderedEntries());
    expect(reads(copy)).toBe(reads(original));
  });
});

describe("the page codec", () => {
  it("round-trips every kind of value exactly, 64-bit integers and empty values included", () => {
    const page: TablePage = {
      table: "t_é",
      columns: ["id", "v", "w"],
      rows: [
        [2n ** 62n + 1n, "text 漢字 🙂", new Uint8Array([0, 1, 255])],
        [-(2n ** 63n), "", new Uint8Array(0)],
        [0n, null, 1.5],
        [9007199254740993n, 2.0, -0],
      ],
    };
    const decoded = decodePage(encodePage(page));
    // Text comes back as its UTF-8 bytes, to be bound as text again.
    expect(decoded.rows[0]?.[1]).toBeInstanceOf(Utf8Text);
    const asStrings = decoded.rows.map((row) => row.map((v) => (v instanceof Utf8Text ? v.toString() : v)));
    expect({ ...decoded, rows: asStrings }).toEqual(page);
    // And re-encodes to the same bytes.
    expect(encodePage(decoded)).toEqual(encodePage(page));
  });

  it("reads 64-bit rowids out of an index's tables exactly", () => {
    const db = new IndexDatabase(":memory:");
    db.exec("CREATE TABLE big (id INTEGER PRIMARY KEY, v TEXT)");
    db.exec("CREATE TABLE plain (v TEXT)");
    db.prepare("INSERT INTO big VALUES (?, ?)").run(9007199254740993n, "x");
    db.prepare("INSERT INTO plain (rowid, v) VALUES (?, ?)").run(2n ** 60n, "y");
    const pages = [...exportTables(db, 1)];
    expect(pages).toEqual([
      { table: "big", columns: ["id", "v"], rows: [[9007199254740993n, "x"]] },
      { table: "plain", columns: ["rowid", "v"], rows: [[2n ** 60n, "y"]] },
    ]);
    db.close();
  });

  it("restores text as text, byte for byte, and refuses text that is not UTF-8", () => {
    const source = new IndexDatabase(":memory:");
    source.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, v)");
    source.prepare("INSERT INTO t VALUES (1, ?), (2, ?), (3, ?), (4, ?)").run("漢字 🙂 é", "", null, 7n);
    const target = new IndexDatabase(":memory:");
    target.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, v)");
    const restore = new TableRestore(target);
    for (const page of exportTables(source, 2)) restore.write(decodePage(encodePage(page)));
    const read = "SELECT id, v, typeof(v) AS type FROM t ORDER BY id";
    expect(target.prepare(read).all()).toEqual(source.prepare(read).all());

    const bad = encodePage({
      table: "t",
      columns: ["id", "v"],
      rows: [[5n, new Utf8Text(new Uint8Array([0xff, 0xfe]))]],
    });
    expect(() => decodePage(bad)).toThrow(SnapshotMismatchError);
    source.close();
    target.close();
  });

  it("refuses bytes that end early or run past their rows", () => {
    const bytes = encodePage({ table: "t", columns: ["a"], rows: [["hello"]] });
    expect(() => decodePage(bytes.subarray(0, bytes.length - 1))).toThrow(SnapshotMismatchError);
    const longer = new Uint8Array(bytes.length + 1);
    longer.set(bytes);
    expect(() => decodePage(longer)).toThrow(SnapshotMismatchError);
  });
});
