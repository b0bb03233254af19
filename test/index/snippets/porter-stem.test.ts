// The Porter stemmer in JS (porter-stem.ts) against FTS5's own porter tokenizer: every ASCII word of git's
// manuals and of node_modules' markdown, and generated words, must stem to the token FTS5 indexes.

import { readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { IndexDatabase } from "../../../src/index/engine.js";
import { stemPrefix } from "../../../src/index/snippets/ascii-snippet.js";
import { porterStem } from "../../../src/index/snippets/porter-stem.js";
import { gitManualTexts, needs, outside } from "../../support/outside.js";

/** FTS5's tokens for each word: one row a word, read back through an fts5vocab instance table. */
function fts5Stems(words: readonly string[]): string[] {
  const db = new IndexDatabase(":memory:");
  try {
    db.exec("CREATE VIRTUAL TABLE t USING fts5(w, tokenize = 'porter unicode61')");
    db.exec("CREATE VIRTUAL TABLE v USING fts5vocab(t, 'instance')");
    const insert = db.prepare("INSERT INTO t (rowid, w) VALUES (?, ?)");
    db.transaction(() => {
      for (const [i, w] of words.entries()) insert.run(i + 1, w);
    })();
    const stems = words.map(() => "");
    for (const row of db.prepare("SELECT doc, term FROM v").all() as { doc: number; term: string }[]) {
      stems[row.doc - 1] = row.term;
    }
    return stems;
  } finally {
    db.close();
  }
}

function realWords(): string[] {
  const words = new Set<string>();
  for (const { content } of gitManualTexts()) {
    for (const w of content.match(/[A-Za-z0-9]+/g) ?? []) words.add(w.toLowerCase());
  }
  for (const dir of ["vitest", "hono", "zod", "fast-check", "typescript"]) {
    const readme = join("node_modules", dir, "README.md");
    try {
      for (const w of readFileSync(readme, "utf8").match(/[A-Za-z0-9]+/g) ?? []) words.add(w.toLowerCase());
    } catch {}
  }
  return [...words];
}

describe("the Porter stemmer", () => {
  needs(outside.gitManuals).it(
    "stems every ASCII word of git's manuals and of node_modules' READMEs as FTS5 does",
    () => {
      const words = realWords();
      expect(words.length).toBeGreaterThan(5_000);
      const expected = fts5Stems(words);
      const differing = words.filter((w, i) => porterStem(w) !== expected[i]);
      expect(differing).toEqual([]);
    },
  );

  needs(outside.gitManuals).it(
    "keeps of every word its stem's first letter and all but its last four, which the JS snippets rely on",
    () => {
      const words = realWords();
      const beyond = words.filter((w) => {
        const stem = porterStem(w);
        return !w.startsWith(stemPrefix(stem));
      });
      expect(beyond).toEqual([]);
    },
  );

  it("property: generated words of Porter's letters, short, long and past 64 letters, stem as FTS5's", () => {
    const letters = fc.constantFrom(..."aeiouybcdlmnrstvzgx0".split(""));
    const endings = fc.constantFrom(
      ..."s es ies sses ss ed eed ing at bl iz y ational tional enci anci izer logi bli alli entli eli ousli ization ation ator alism iveness fulness ousness aliti iviti biliti ical ness icate iciti ful ative alize al ance ence er ic able ible ant ement ment ent ion sion tion ou ism ate iti ous ive ize e ll".split(
        " ",
      ),
    );
    const word = fc
      .tuple(fc.array(letters, { minLength: 0, maxLength: 70 }), fc.array(endings, { maxLength: 3 }))
      .map(([stem, ends]) => stem.join("") + ends.join(""))
      .filter((w) => w.length > 0);
    fc.assert(
      fc.property(fc.array(word, { minLength: 1, maxLength: 400 }), (words) => {
        const expected = fts5Stems(words);
        for (const [i, w] of words.entries()) {
          const stem = porterStem(w);
          expect(stem, w).toBe(expected[i]);
          expect(w.startsWith(stemPrefix(stem)), w).toBe(true);
        }
      }),
      { numRuns: 40 },
    );
  });
});
