// A search thread is handed its next search while it answers one (SEARCHES_A_THREAD,
// src/runtime/search-threads.ts): the search handed over behind another still keeps the queue's bound, teams
// are still served in turn, and a lost thread fails its own searches, the one queued on it too, and no other's.

import { afterAll, describe, expect, it } from "vitest";
import { QueueRefusedError } from "../../src/async/fair-queue.js";
import { DomainError } from "../../src/errors.js";
import { openPassageConnection } from "../../src/index/passages/passage-database.js";
import { PassageIndex } from "../../src/index/passages/passage-index.js";
import { matchQuery } from "../../src/index/query.js";
import { SEARCHES_A_THREAD, SearchThreads } from "../../src/runtime/search-threads.js";
import type { PassageFinder } from "../../src/services/search.js";
import { serveOnLoopback } from "../http/loopback.js";
import { addDocument, buildTestApp, makeTeam } from "../support/app.js";

const query = matchQuery("weekend rota");

function rotaIndex(): PassageIndex {
  const index = new PassageIndex();
  index.apply([
    {
      id: "a",
      title: "Rota",
      path: [],
      passages: [{ chunkId: "a#0", ordinal: 0, heading: "", text: "the weekend rota is on the wall" }],
    },
  ]);
  return index;
}

/** Whether `promise` has settled, read without waiting for it. */
function watch(promise: Promise<unknown>): { settled: () => boolean } {
  let settled = false;
  promise.then(
    () => {
      settled = true;
    },
    () => {
      settled = true;
    },
  );
  return { settled: () => settled };
}

describe("a search handed to a thread ahead of its turn", () => {
  it("is refused at its bound while the search ahead of it is held by a write, and the thread goes on", async () => {
    // A reader waits a whole minute for a write here: only the bound of the search behind can end its wait.
    const threads = new SearchThreads({
      threads: 1,
      busyTimeoutMs: 60_000,
      minPassages: 0,
      inlineMaxTerms: 0,
    });
    const index = rotaIndex();
    const writer = openPassageConnection(index.databaseName, { busyTimeoutMs: 0 });
    try {
      expect((await threads.find(index, query, 5))?.map((h) => h.chunkId)).toEqual(["a#0"]);
      // A writer's lock keeps new readers out until it ends (docs/decisions/0044-search-threads.md).
      writer.exec("BEGIN IMMEDIATE");
      const ahead = threads.find(index, query, 5);
      const aheadState = watch(ahead);
      const behind = threads.find(index, query, 5, performance.now() + 50);
      const refused = await behind.then(
        () => null,
        (e: unknown) => e,
      );
      expect(refused).toBeInstanceOf(QueueRefusedError);
      expect((refused as QueueRefusedError).reason).toBe("timed_out");
      expect((refused as QueueRefusedError).retryAfterSeconds).toBe(60);
      // Refused while the search ahead still waited for the write: not after it, as a line of one would.
      expect(aheadState.settled()).toBe(false);
      writer.exec("ROLLBACK");
      expect((await ahead)?.map((h) => h.chunkId)).toEqual(["a#0"]);
      expect((await threads.find(index, query, 5))?.map((h) => h.chunkId)).toEqual(["a#0"]);
    } finally {
      writer.close();
      index.close();
      await threads.close();
    }
  });

  it("a lost thread fails its own searches, the one queued ahead on it too, and not the other thread's", async () => {
    const threads = new SearchThreads({ threads: 2, busyTimeoutMs: 2000, minPassages: 0, inlineMaxTerms: 0 });
    const index = rotaIndex();
    try {
      // Both threads started: the least busy takes each search, so four go one, two, one, two.
      await Promise.all([threads.find(index, query, 5), threads.find(index, query, 5)]);
      const searches = Array.from({ length: 2 * SEARCHES_A_THREAD }, () => threads.find(index, query, 5));
      const settled = Promise.allSettled(searches);
      void threads.restartThreads(0);
      const outcomes = await settled;
      for (const [i, outcome] of outcomes.entries()) {
        if (i % 2 === 0) {
          expect(outcome.status).toBe("rejected");
          const reason = (outcome as PromiseRejectedResult).reason;
          expect(reason instanceof DomainError && reason.code === "unavailable").toBe(true);
        } else {
          expect(outcome.status).toBe("fulfilled");
          expect((outcome as PromiseFulfilledResult<unknown>).value).toEqual(
            await threads.find(index, query, 5),
          );
        }
      }
    } finally {
      index.close();
      await threads.close();
    }
  });
});

describe("teams in turn with searches handed ahead, over HTTP", () => {
  const threads = new SearchThreads({ threads: 2, busyTimeoutMs: 60_000, minPassages: 0, inlineMaxTerms: 0 });
  afterAll(() => threads.close());

  it("serves another team's search among the first, while a flooding team's line waits", async () => {
    // Fewer in flight than the failed-authentication limiter's 30 a client address.
    const FLOOD = 20;
    // The order the queue hands searches to the threads, read where it happens: the order answers reach the
    // client also depends on how the loopback sockets are read, which a loaded machine reorders.
    const handedOut: PassageIndex[] = [];
    const finder: PassageFinder = {
      slots: threads.slots,
      find: (index, q, limit, startBy) => {
        handedOut.push(index);
        return threads.find(index, q, limit, startBy);
      },
    };
    const app = await buildTestApp({
      finder,
      config: { searchMaxQueue: FLOOD, searchQueueTimeoutMs: 60_000 },
    });
    const served = await serveOnLoopback(app);
    try {
      const teams = [];
      for (const name of ["Flooding", "Other"]) {
        const team = await makeTeam(app, name);
        await addDocument(app, team.apiKey, { title: "Rota", content: "The weekend rota is on the wall." });
        teams.push(team);
      }
      const [flooding, other] = teams as [(typeof teams)[0], (typeof teams)[0]];
      const ask = (apiKey: string) =>
        fetch(`${served.base}/v1/search?${new URLSearchParams({ q: "weekend rota" })}`, {
          headers: { authorization: `Bearer ${apiKey}` },
        });
      // Warm, one team after the other: both indexes built and both threads started before the slots are
      // held, and each team's index known by the search it was handed to.
      expect((await ask(flooding.apiKey)).status).toBe(200);
      expect((await ask(other.apiKey)).status).toBe(200);
      const otherIndex = handedOut[1];
      expect(otherIndex).toBeDefined();
      expect(otherIndex).not.toBe(handedOut[0]);
      handedOut.length = 0;
      expect(app.memoria.searches.running).toBe(0);
      let release = () => {};
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      const held = Array.from({ length: threads.slots }, () =>
        app.memoria.searches.run("held-by-test", () => released),
      );
      const flood = Array.from({ length: FLOOD }, () => ask(flooding.apiKey));
      const until = async (condition: () => boolean) => {
        while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
      };
      await until(() => app.memoria.searches.waiting(flooding.teamId) === FLOOD);
      const otherSearch = ask(other.apiKey);
      await until(() => app.memoria.searches.waiting(other.teamId) === 1);
      release();
      await Promise.all(held);
      const [otherAnswer, ...floodAnswers] = await Promise.all([otherSearch, ...flood]);
      expect(otherAnswer.status).toBe(200);
      for (const res of floodAnswers) expect(res.status).toBe(200);
      expect(handedOut).toHaveLength(FLOOD + 1);
      // In turn, the other team's search is the second handed out once the slots are free (the flooding team
      // waited first); first come, first served would hand it out last.
      expect(handedOut.indexOf(otherIndex as PassageIndex)).toBe(1);
    } finally {
      await served.close();
      app.close();
    }
  });
});
