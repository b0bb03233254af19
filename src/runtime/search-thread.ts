// A search thread (src/runtime/search-threads.ts): holds one read connection per passage database it has been
// asked to search, opened by the database's name on the first search and closed when its index closes, and
// answers each search with the same PassageSearcher the main thread uses. An error is answered with its name
// only: its message could quote the question.

import { parentPort, workerData } from "node:worker_threads";
import { type IndexDatabase, isBusy } from "../index/engine.js";
import { openPassageConnection, releasePageCache } from "../index/passages/passage-database.js";
import { PassageSearcher } from "../index/passages/passage-searcher.js";
import type { SearchThreadData, SearchThreadReply, SearchThreadRequest } from "./search-threads.js";
import { IdleCollection } from "./tuning/idle-collection.js";

const port = parentPort;
if (!port) throw new Error("search-thread runs as a worker thread of the search pool");

/**
 * Lets the thread end once its connections are closed. On Node, closing the port empties the event loop and
 * the thread exits; Deno's port (2.9) has no close(), and calling it threw in every thread at each shutdown, so
 * there the thread ends as a web worker ends itself.
 */
function endThread(): void {
  const closable = port as { close?: () => void } | null;
  if (typeof closable?.close === "function") closable.close();
  else (globalThis as { close?: () => void }).close?.();
}
const data = workerData as SearchThreadData;
const { busyTimeoutMs } = data;
const started = new BigInt64Array(data.started);

/**
 * The thread's own full collection once idle (idle-collection.ts), past less growth than the main thread's:
 * its young generation is small (the start command's 2 MiB semispaces bound every isolate), so what a burst
 * of searches leaves is in its old generation, which V8 lets grow to about twice what it holds before
 * collecting it.
 */
const THREAD_GROWTH_BYTES = 8 * 1024 * 1024;
const open = new Map<string, { db: IndexDatabase; searcher: PassageSearcher }>();

/**
 * Once idle after searches, each connection's page cache goes back to malloc (releasePageCache): a burst
 * fills each with copies of memdb's pages (5.9 MiB given back by three connections after 40 long questions
 * each on 6,000 passages, test/runtime/search-thread.test.ts). The main thread's trim, which
 * hands malloc's free pages to the system, runs after this: both threads go idle IDLE_MS after their last
 * work, the main thread's last work (the answer) comes after this thread's, and its trim waits TRIM_DELAY_MS
 * more (malloc-trim.ts).
 */
const collection = new IdleCollection({
  growthBytes: THREAD_GROWTH_BYTES,
  collects: data.tuning["idle-collection"],
  idled: () => {
    if (!data.tuning["page-cache-release"]) return;
    for (const { db } of open.values()) releasePageCache(db);
  },
});

function close(name: string): void {
  const held = open.get(name);
  open.delete(name);
  held?.db.close();
}

/**
 * The searcher for `name`, or null when the database has no tables: every connection to it had closed, so
 * opening it by name made a new, empty one, which is closed again at once.
 */
function searcherFor(name: string, feedback: Extract<SearchThreadRequest, { kind: "find" }>["feedback"]) {
  const held = open.get(name);
  if (held) return held.searcher;
  const db = openPassageConnection(name, { busyTimeoutMs });
  const tables = db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name = 'passage_state'").get() as {
    n: number;
  };
  if (tables.n === 0) {
    db.close();
    return null;
  }
  const searcher = new PassageSearcher(db, feedback);
  open.set(name, { db, searcher });
  return searcher;
}

port.on(
  "message",
  collection.around((request: SearchThreadRequest) => {
    if (request.kind === "close") {
      close(request.name);
      return;
    }
    if (request.kind === "stop") {
      for (const name of [...open.keys()]) close(name);
      collection.stop();
      endThread();
      return;
    }
    let reply: SearchThreadReply;
    if (request.kind === "connections") {
      reply = { id: request.id, connections: open.size };
    } else {
      // Marked started before the clock is read: the main thread gives up on a search only while it is
      // unmarked, and past its startBy it is answered late here, so a search handed over behind another either
      // runs or is refused, by one side or the other, and is never left unanswered.
      Atomics.store(started, 0, BigInt(request.id));
      if (request.startBy !== null && performance.timeOrigin + performance.now() > request.startBy) {
        port.postMessage({ id: request.id, late: true } satisfies SearchThreadReply);
        return;
      }
      try {
        const searcher = searcherFor(request.name, request.feedback);
        reply = searcher
          ? { id: request.id, hits: searcher.find(request.query, request.limit) }
          : { id: request.id, closed: true };
      } catch (error) {
        reply = isBusy(error)
          ? { id: request.id, busy: true }
          : { id: request.id, error: error instanceof Error ? error.name : "unknown error" };
      }
    }
    port.postMessage(reply);
  }),
);
