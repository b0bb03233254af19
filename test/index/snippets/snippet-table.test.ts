// The snippet table fills its scratch FTS5 table in one multi-row INSERT and FTS5's 'rebuild'
// (scratch-table.ts). These tests hold its snippets byte-identical to the straightforward path's
// (test/support/snippet-reference.ts: a fresh table, one INSERT a row) on real manuals and on the awkward
// rows: matched only by heading, title or path, empty bodies, CJK, very long bodies, markers in the text,
// more rows than one INSERT carries.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { IndexDatabase } from "../../../src/index/engine.js";
import { matchQuery, queryTerms } from "../../../src/index/query.js";
import { MATCH_CLOSE, MATCH_OPEN } from "../../../src/index/snippets/snippet.js";
import { type SnippetSource, SnippetTable } from "../../../src/index/snippets/snippet-table.js";
import { needs, outside } from "../../support/outside.js";
import { manualPassages } from "../../support/snippet-passages.js";
import { referenceSnippets } from "../../support/snippet-reference.js";

/** Two long words of a passage, as a person would type them from it: its rows match, most others do not. */
function twoWordsOf(p: SnippetSource): string {
  const words = [...new Set(queryTerms(p.body.toLowerCase()))].filter((w) => w.length > 5).sort();
  return words.slice(0, 2).join(" ");
}

describe("snippet table", () => {
  let db: IndexDatabase;
  let table: SnippetTable;
  beforeAll(() => {
    db = new IndexDatabase(":memory:");
    table = new SnippetTable(db);
  });
  afterAll(() => db.close());

  const expectSameAsReference = (passages: readonly SnippetSource[], question: string) => {
    const expression = matchQuery(question).expression;
    expect(table.cut(passages, expression)).toEqual(referenceSnippets(passages, expression));
  };

  needs(outside.gitManuals).it(
    "cuts the same snippets as one insert a row on real manuals, batch after batch",
    () => {
      const passages = manualPassages();
      expect(passages.length).toBeGreaterThan(200);
      let marked = 0;
      // Twenty consecutive passages a batch, as a search returns them, asked two words of one of them.
      for (let start = 0; start + 20 <= passages.length; start += 37) {
        const batch = passages.slice(start, start + 20);
        const question = twoWordsOf(batch[(start * 7) % 20] as SnippetSource);
        if (question === "") continue;
        const expression = matchQuery(question).expression;
        const fast = table.cut(batch, expression);
        expect(fast).toEqual(referenceSnippets(batch, expression));
        marked += fast.filter((s) => s.includes("<mark>")).length;
      }
      expect(marked).toBeGreaterThan(20);
    },
  );

  it("gives a row matched only by its heading, title or path its body's start, and a row not matched none", () => {
    const body = "Pension contributions go out on the last day of every month without fail.";
    const passages: SnippetSource[] = [
      { heading: "Payroll", body, title: "Benefits", path: "HR" },
      { heading: "Benefits", body, title: "Payroll handbook", path: "HR" },
      { heading: "Benefits", body, title: "Handbook", path: "Payroll › 2024" },
      { heading: "Benefits", body, title: "Handbook", path: "HR" },
      { heading: "Payroll", body: "", title: "Empty", path: "" },
    ];
    const snippets = table.cut(passages, matchQuery("payroll").expression);
    expect(snippets).toEqual(referenceSnippets(passages, matchQuery("payroll").expression));
    expect(snippets.slice(0, 3)).toEqual([body, body, body]);
    expect(snippets[3]).toBe("");
  });

  it("matches the reference on empty, CJK, very long and marker-holding bodies", () => {
    const long = Array.from({ length: 40_000 }, (_, i) => (i % 997 === 0 ? "walrus" : `word${i % 50}`)).join(
      " ",
    );
    const passages: SnippetSource[] = [
      { heading: "", body: "", title: "", path: "" },
      { heading: "walrus", body: "", title: "", path: "" },
      { heading: "海象", body: "海象は北極の海に住む大きな動物です。walrus 海象", title: "動物", path: "" },
      { heading: "Long", body: long, title: "Long", path: "" },
      {
        heading: "Markers",
        body: `${MATCH_OPEN}walrus${MATCH_CLOSE} beside <mark>x</mark> & walrus`,
        title: "",
        path: "",
      },
    ];
    expectSameAsReference(passages, "walrus herd");
    expectSameAsReference(passages, "海象は北極の海に住む大きな動物です");
    expectSameAsReference(passages, "word7 walrus");
  });

  needs(outside.gitManuals).it(
    "matches the reference for more rows than one insert carries, and for none",
    () => {
      const passages = manualPassages().slice(0, 83);
      const question = twoWordsOf(passages[40] as SnippetSource);
      expectSameAsReference(passages, question);
      expect(table.cut([], matchQuery(question).expression)).toEqual([]);
    },
  );

  it("leaves nothing behind: the next cut sees only its own rows, inside a caller's transaction too", () => {
    const first: SnippetSource[] = [{ heading: "", body: "walrus tusks are long", title: "", path: "" }];
    const second: SnippetSource[] = [{ heading: "", body: "seals have no tusks", title: "", path: "" }];
    const expression = matchQuery("walrus").expression;
    expect(table.cut(first, expression)).toEqual(["<mark>walrus</mark> tusks are long"]);
    db.transaction(() => {
      expect(table.cut(second, expression)).toEqual([""]);
    })();
    const left = db.prepare("SELECT count(*) AS n FROM temp.returned_rows").get() as { n: number };
    expect(left.n).toBe(0);
    const postings = db
      .prepare("SELECT count(*) AS n FROM temp.returned WHERE returned MATCH 'tusks'")
      .get() as {
      n: number;
    };
    expect(postings.n).toBe(0);
  });
});
