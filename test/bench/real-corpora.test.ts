// The real suite's corpora, read as the bench reads them: Debian's manuals from /usr/share/doc (installed by
// .ci/run), Cranfield from beside the repository, and the synthetic shape; with the rule that picks short
// questions, the batches a client sends, the floor's list lengths and the server's RSS read from /proc.
// Small sizes: this defends the reader and the arithmetic, not any timing.

import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DEBIAN_MANUALS } from "../../bench/debian-docs.js";
import { openQueryFloor } from "../../bench/floor.js";
import { peerFigures, peerInputText } from "../../bench/peers.js";
import {
  cranfieldCorpus,
  debianCorpus,
  MEMORY_QUESTIONS,
  passagesHolding,
  shortQuestions,
  syntheticCorpus,
  textBytesOf,
} from "../../bench/real-corpora.js";
import { batches } from "../../bench/real-http.js";
import { processRssBytes } from "../../bench/stats.js";
import { cranfieldDir, DEFAULT_COLLECTION } from "../../eval/paths.js";
import { needs, outside } from "../support/outside.js";

const words = (s: string) => s.split(/\s+/).filter((w) => w !== "").length;

needs(outside.debianManuals).describe("the Debian corpus", () => {
  const corpus = debianCorpus(1_500);

  it("indexes at least the passages asked for, from every manual, and holds none of its question documents", () => {
    expect(corpus.passages.length).toBeGreaterThanOrEqual(1_500);
    expect(corpus.real).toBe(true);
    expect(corpus.description).toContain(`${DEBIAN_MANUALS.length} packages`);
    const indexed = new Set(corpus.documents.map((d) => d.content));
    for (const other of corpus.otherTeam) expect(indexed.has(other.content)).toBe(false);
  });

  it("asks long questions of 10–20 words and short ones of two words each in 2–200 passages", () => {
    expect(corpus.long.length).toBeGreaterThan(0);
    for (const q of corpus.long) expect(words(q)).toBeGreaterThanOrEqual(10);
    for (const q of corpus.long) expect(words(q)).toBeLessThanOrEqual(20);
    const counts = passagesHolding(corpus.passages);
    expect(corpus.short.length).toBeGreaterThan(20);
    for (const q of corpus.short) {
      const [a = "", b = ""] = q.split(" ");
      expect(words(q)).toBe(2);
      for (const w of [a, b]) {
        expect(counts.get(w)).toBeGreaterThanOrEqual(2);
        expect(counts.get(w)).toBeLessThanOrEqual(200);
      }
    }
  });

  it("counts its text as the passages' headings and bodies in UTF-8", () => {
    expect(corpus.textBytes).toBe(textBytesOf(corpus.passages));
    expect(textBytesOf([{ heading: "é", body: "ab", title: "ignored", path: "" }])).toBe(4);
  });
});

describe("the synthetic corpus", () => {
  const corpus = syntheticCorpus(300);

  it("holds about the passages asked for, generated, with enough long questions for the memory reading", () => {
    expect(corpus.real).toBe(false);
    expect(Math.abs(corpus.passages.length - 300)).toBeLessThanOrEqual(30);
    expect(corpus.long).toHaveLength(MEMORY_QUESTIONS);
    expect(new Set(corpus.long).size).toBe(MEMORY_QUESTIONS);
    expect(corpus.otherTeam.length).toBeGreaterThan(0);
  });
});

describe("the Cranfield corpus", () => {
  it("is found through MEMORIA_EVAL_DIR naming the collection or the folder holding it", () => {
    const dir = mkdtempSync(join(tmpdir(), "memoria-eval-dir-"));
    try {
      mkdirSync(join(dir, "cranfield"));
      expect(cranfieldDir({ MEMORIA_EVAL_DIR: dir })).toBe(join(dir, "cranfield"));
      writeFileSync(join(dir, "corpus.jsonl"), "");
      expect(cranfieldDir({ MEMORIA_EVAL_DIR: dir })).toBe(dir);
      expect(cranfieldDir({})).toBe(DEFAULT_COLLECTION);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  needs(outside.cranfield).it("reads its 1,400 abstracts and asks its 225 judged questions", () => {
    const corpus = cranfieldCorpus(cranfieldDir());
    expect(corpus.documents).toHaveLength(1_400);
    expect(corpus.long).toHaveLength(225);
    expect(corpus.passages.length).toBeGreaterThanOrEqual(1_400);
    expect(corpus.short.length).toBeGreaterThan(100);
  });
});

describe("short questions", () => {
  it("take a sentence's two rarest words held in 2–200 passages, ties by the word, skipping short words", () => {
    const counts = new Map([
      ["alpha", 5],
      ["beta", 5],
      ["gamma", 1],
      ["delta", 300],
      ["epsilon", 150],
      ["tiny", 3],
      ["abc", 2],
    ]);
    expect(shortQuestions(["Gamma beta alpha delta epsilon abc."], counts, 10)).toEqual(["alpha beta"]);
    expect(shortQuestions(["gamma delta alpha", "beta tiny epsilon"], counts, 10)).toEqual(["tiny beta"]);
    expect(shortQuestions(["alpha beta", "alpha beta"], counts, 1)).toEqual(["alpha beta"]);
  });
});

describe("batches", () => {
  it("keeps the order and bounds each batch by documents and bytes, a larger document alone", () => {
    const doc = (bytes: number) => ({ title: "t", content: "x".repeat(bytes), format: "text" as const });
    const many = Array.from({ length: 450 }, () => doc(10));
    expect(batches(many).map((b) => b.length)).toEqual([200, 200, 50]);
    const big = [doc(1024 * 1024), doc(1024 * 1024), doc(3 * 1024 * 1024), doc(1)];
    expect(batches(big).map((b) => b.map((d) => d.content.length))).toEqual([
      [1024 * 1024, 1024 * 1024],
      [3 * 1024 * 1024],
      [1],
    ]);
    expect(batches([])).toEqual([]);
  });
});

describe("the floor's list lengths", () => {
  it("count each term's passages with FTS5's own stemmer, and the passages the OR matches", () => {
    const floor = openQueryFloor([
      { heading: "", body: "running water", title: "a", path: "" },
      { heading: "", body: "runs of water", title: "b", path: "" },
      { heading: "", body: "dry land", title: "c", path: "" },
    ]);
    try {
      expect(floor.lists("run water fire")).toEqual({ terms: 3, lengths: [2, 2, 0], matched: 2 });
      expect(floor.lists("")).toEqual({ terms: 0, lengths: [], matched: 0 });
    } finally {
      floor.close();
    }
  });
});

describe("memory read from outside", () => {
  it("reads a process's VmRSS from /proc, and a peer's process reports its growth", () => {
    expect(processRssBytes(process.pid)).toBeGreaterThan(10 * 1024 * 1024);
    const passages = Array.from({ length: 200 }, (_, i) => ({
      heading: `h${i}`,
      body: `passage ${i} about water and land`,
      title: "t",
      path: "",
    }));
    const input = peerInputText(
      { short: ["water land"], long: ["passage about water and land and more"], budgetMs: 1000 },
      passages,
    );
    expect(input.split("\n")).toHaveLength(1 + 200 + 1);
    const printed = execFileSync(process.execPath, ["--import", "tsx", "bench/peers.ts", "fts5", "--stdin"], {
      input,
      encoding: "utf8",
    });
    const figures = peerFigures.parse(JSON.parse(printed.trim().split("\n").at(-1) ?? "{}"));
    expect(figures.shortAsked).toBe(1);
    expect(figures.longAsked).toBe(1);
    expect(figures.rssBeforeBytes).toBeGreaterThan(10 * 1024 * 1024);
    expect(figures.rssAfterBytes).toBeGreaterThan(0);
  });
});
