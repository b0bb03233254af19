// Searches on the search threads (src/runtime/search-threads.ts): the same answers as the main thread's, to the
// last bit, on real manuals; never a torn state while the main thread writes; connections closed with their
// index; a lost thread answers 503 and the next search gets a new one.

import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { heldOutSentences, readDebianManuals } from "../../bench/debian-docs.js";
import { DomainError } from "../../src/errors.js";
import { type IndexedDocument, PassageIndex } from "../../src/index/passages/passage-index.js";
import { matchQuery } from "../../src/index/query.js";
import { FEEDBACK } from "../../src/index/ranking/feedback.js";
import { chunkDocument } from "../../src/ingest/chunk.js";
import { SearchThreads } from "../../src/runtime/search-threads.js";
import type { PassageFinder } from "../../src/services/search.js";
import { type Tuning, tuningWithout } from "../../src/tuning.js";
import { ADMIN_TOKEN, addDocument, buildTestApp, makeTeam, search } from "../support/app.js";
import { needs, outside } from "../support/outside.js";

/** Real documents as the app indexes them, ids in their corpus order. */
function manuals(passages: number): { documents: IndexedDocument[]; questions: string[] } {
  const corpus = readDebianManuals(passages);
  const documents = corpus.indexed.map((doc, d): IndexedDocument => {
    const id = `doc${String(d).padStart(5, "0")}`;
    return {
      id,
      title: doc.title,
      path: doc.source.split("/").slice(0, -1),
      passages: chunkDocument(doc).map((p) => ({ chunkId: `${id}#${p.ordinal}`, ...p })),
    };
  });
  const words = documents.flatMap((d) => d.title.split(/\s+/).filter((w) => /^[a-z]{4,}$/i.test(w)));
  const short = Array.from(
    { length: 12 },
    (_, i) => `${words[(i * 7) % words.length]} ${words[(i * 13 + 3) % words.length]}`,
  );
  return { documents, questions: [...short, ...heldOutSentences(corpus, 12)] };
}

/** An index of one document, "Rota", of one passage `a#0` holding `text`. */
function rotaIndex(text: string): PassageIndex {
  const index = new PassageIndex();
  index.apply([
    { id: "a", title: "Rota", path: [], passages: [{ chunkId: "a#0", ordinal: 0, heading: "", text }] },
  ]);
  return index;
}

describe("search threads", () => {
  // Every team and every question goes to a thread here, however small: minPassages 0, inlineMaxTerms 0.
  const threads = new SearchThreads({ threads: 2, busyTimeoutMs: 2000, minPassages: 0, inlineMaxTerms: 0 });
  afterAll(() => threads.close());

  needs(outside.debianManuals).it(
    "answers on real manuals exactly as the main thread does: same hits, scores, order and snippets",
    async () => {
      const { documents, questions } = manuals(2500);
      const index = new PassageIndex({ feedback: FEEDBACK });
      try {
        index.apply(documents);
        expect(questions.length).toBeGreaterThan(12);
        let hits = 0;
        for (const q of questions) {
          const query = matchQuery(q);
          const here = index.find(query, 20);
          // Two at once, so both threads answer some.
          const [a, b] = await Promise.all([threads.find(index, query, 20), threads.find(index, query, 20)]);
          expect(a).toEqual(here);
          expect(b).toEqual(here);
          hits += here.length;
        }
        expect(hits).toBeGreaterThan(questions.length);
      } finally {
        index.close();
      }
    },
  );

  it("property: searching while the main thread writes, an answer is always one whole committed state", async () => {
    const perGeneration = 6;
    /** Generation g: documents all saying "ledger", each also "gen<g>", so an answer shows which it read. */
    const generation = (g: number): IndexedDocument[] =>
      Array.from({ length: perGeneration }, (_, i) => ({
        id: `g${g}-d${i}`,
        title: `Ledger ${i}`,
        path: ["books"],
        passages: [
          {
            chunkId: `g${g}-d${i}#0`,
            ordinal: 0,
            heading: "Ledger",
            text: `ledger entry gen${g} number ${i}`,
          },
          {
            chunkId: `g${g}-d${i}#1`,
            ordinal: 1,
            heading: "Totals",
            text: `ledger totals ${"sum ".repeat(i + 1)}`,
          },
        ],
      }));
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 2, maxLength: 5 }),
        async (bursts) => {
          const index = new PassageIndex();
          try {
            const query = matchQuery("ledger totals");
            const committed: string[] = [JSON.stringify(index.find(query, 50))];
            let g = 0;
            const answers: Promise<unknown>[] = [];
            for (const burst of bursts) {
              // Searches in flight on the threads, then a write that replaces one generation by the next.
              for (let i = 0; i < burst; i++) answers.push(threads.find(index, query, 50));
              index.apply(generation(g + 1), g === 0 ? [] : generation(g).map((d) => d.id));
              g++;
              committed.push(JSON.stringify(index.find(query, 50)));
            }
            for (const answer of await Promise.all(answers))
              expect(committed).toContain(JSON.stringify(answer));
          } finally {
            index.close();
          }
        },
      ),
      { numRuns: 12 },
    );
  });

  it("closes every thread's connection to an index when the index closes", async () => {
    const index = rotaIndex("weekend rota");
    const query = matchQuery("rota");
    await Promise.all([threads.find(index, query, 5), threads.find(index, query, 5)]);
    expect(await threads.openConnections()).toBeGreaterThan(0);
    index.close();
    expect(await threads.openConnections()).toBe(0);
    expect(await threads.find(index, query, 5)).toBeNull();
  });

  it("a lost thread answers its search 503 and the next search gets a fresh thread", async () => {
    const index = new PassageIndex();
    try {
      index.apply([
        {
          id: "a",
          title: "Rota",
          path: [],
          passages: [{ chunkId: "a#0", ordinal: 0, heading: "", text: "weekend rota" }],
        },
      ]);
      const query = matchQuery("rota");
      const lost = threads.find(index, query, 5);
      void threads.restartThreads();
      await expect(lost).rejects.toSatisfy((e) => e instanceof DomainError && e.code === "unavailable");
      expect((await threads.find(index, query, 5))?.map((h) => h.chunkId)).toEqual(["a#0"]);
    } finally {
      index.close();
    }
  });

  it("a deleted team's index leaves no connection open on any thread", async () => {
    const app = await buildTestApp({ finder: threads });
    try {
      const { teamId, apiKey } = await makeTeam(app);
      await addDocument(app, apiKey, { title: "Rota", content: "The weekend rota is on the wall." });
      const [one, two] = await Promise.all([search(app, apiKey, "rota"), search(app, apiKey, "weekend")]);
      expect(one.hits.length + two.hits.length).toBe(2);
      expect(await threads.openConnections()).toBeGreaterThan(0);
      const deleted = await app.request(`/v1/teams/${teamId}`, {
        method: "DELETE",
        token: ADMIN_TOKEN,
      });
      expect(deleted.status).toBeLessThan(300);
      expect(await threads.openConnections()).toBe(0);
    } finally {
      app.close();
    }
  });
});

describe("two-word questions while the threads are idle", () => {
  const documents = (prefix: string): IndexedDocument[] =>
    Array.from({ length: 30 }, (_, d) => ({
      id: `${prefix}${String(d).padStart(3, "0")}`,
      title: `Rota ${d}`,
      path: [],
      passages: [
        {
          chunkId: `${prefix}${d}#0`,
          ordinal: 0,
          heading: "",
          text: `weekend rota ${d} for the controllers, handed over on the ${d % 7} day of the release week`,
        },
      ],
    }));

  it("are answered on the main thread, as a thread would answer them, and a longer one still goes to a thread", async () => {
    const threads = new SearchThreads({ threads: 2, busyTimeoutMs: 2000, minPassages: 0 });
    const index = new PassageIndex();
    index.apply(documents("a"));
    try {
      const short = matchQuery("weekend controllers");
      expect(await threads.find(index, short, 10)).toEqual(index.find(short, 10));
      // No thread was started for it, so none holds a connection.
      expect(await threads.openConnections()).toBe(0);
      const longer = matchQuery("weekend rota controllers");
      expect(await threads.find(index, longer, 10)).toEqual(index.find(longer, 10));
      expect(await threads.openConnections()).toBe(1);
    } finally {
      index.close();
      await threads.close();
    }
  });

  /** Asks a two-word question of a fresh 30-document team on a pool made with `options`: its answer is the
   * index's own, and the count of connections the threads hold afterwards says where it ran (0 here, 1 there). */
  async function connectionsAfterAsking(
    options: { inlineMaxPassages?: number; tuning?: Tuning },
    alone: boolean,
  ): Promise<number> {
    const threads = new SearchThreads({ threads: 2, busyTimeoutMs: 2000, minPassages: 0, ...options });
    const index = new PassageIndex();
    index.apply(documents("e"));
    try {
      const short = matchQuery("weekend controllers");
      expect(await threads.find(index, short, 10, undefined, alone)).toEqual(index.find(short, 10));
      return await threads.openConnections();
    } finally {
      index.close();
      await threads.close();
    }
  }

  it("go to a thread when another search is running or waiting in the search queue", async () => {
    expect(await connectionsAfterAsking({}, true)).toBe(0);
    expect(await connectionsAfterAsking({}, false)).toBe(1);
  });

  it("are told by the search service whether another search is running or waiting", async () => {
    const threads = new SearchThreads({ threads: 2, busyTimeoutMs: 2000 });
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let holding = () => {};
    const holdingStarted = new Promise<void>((resolve) => {
      holding = resolve;
    });
    const told: { q: string; alone: boolean }[] = [];
    const finder: PassageFinder = {
      slots: threads.slots,
      find: async (index, q, limit, startBy, alone) => {
        told.push({ q: q.terms.join(" "), alone });
        if (q.terms[0] === "hold") {
          holding();
          await held;
        }
        return threads.find(index, q, limit, startBy, alone);
      },
    };
    const app = await buildTestApp({ finder });
    try {
      const { apiKey } = await makeTeam(app);
      await addDocument(app, apiKey, { title: "Rota", content: "The weekend rota is on the wall: hold it." });
      await search(app, apiKey, "weekend rota");
      const first = search(app, apiKey, "hold rota");
      await holdingStarted;
      // Asked while the first is still running: not alone.
      await search(app, apiKey, "rota wall");
      release();
      await first;
      expect(told).toEqual([
        { q: "weekend rota", alone: true },
        { q: "hold rota", alone: true },
        { q: "rota wall", alone: false },
      ]);
    } finally {
      app.close();
      await threads.close();
    }
  });

  it("go to a thread even when alone with the short-questions-inline switch off", async () => {
    expect(await connectionsAfterAsking({ tuning: tuningWithout(["short-questions-inline"]) }, true)).toBe(1);
    expect(await connectionsAfterAsking({ tuning: tuningWithout(["whole-merge"]) }, true)).toBe(0);
  });

  it("go to a thread on a team past the inline bound", async () => {
    expect(await connectionsAfterAsking({ inlineMaxPassages: 30 }, true)).toBe(0);
    expect(await connectionsAfterAsking({ inlineMaxPassages: 29 }, true)).toBe(1);
  });

  it("go to a thread while another search is on one", async () => {
    const threads = new SearchThreads({ threads: 2, busyTimeoutMs: 2000, minPassages: 0 });
    const busy = new PassageIndex();
    const other = new PassageIndex();
    busy.apply(documents("b"));
    other.apply(documents("c"));
    try {
      const longer = matchQuery("weekend rota controllers release");
      const short = matchQuery("weekend controllers");
      // A first search has started the pool, so the next is handed to a thread in the call that asks for it.
      await threads.find(busy, longer, 10);
      // The longer one is then in flight on a thread when the short one is asked.
      const [a, b] = await Promise.all([threads.find(busy, longer, 10), threads.find(other, short, 10)]);
      expect(a).toEqual(busy.find(longer, 10));
      expect(b).toEqual(other.find(short, 10));
      // Both indexes were opened on threads: the short question was not answered here.
      expect(await threads.openConnections()).toBe(2);
    } finally {
      busy.close();
      other.close();
      await threads.close();
    }
  });
});
