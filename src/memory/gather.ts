// The candidate pool for a working-memory block: three bounded reads, so any entry that ranks near the top of
// any one list is a candidate whatever the team's size.
//
// One read of the newest entries alone would make an old entry unreachable at any rank once POOL_LIMIT newer
// ones exist, however well it matches the query or however central it is to the project. So the entries
// matching the query and the newest entries of the project are read as well, each capped the same way.
// Entries on two lists are read twice; the union drops the copies.

import { POOL_LIMIT } from "./constants.js";
import type { MemoryEntry } from "./entry.js";

/**
 * What gather needs of a parsed query: whether it can match anything at all. The source parses what the agent
 * asked into its own query language (the entry index: src/index/query.ts), so ranking depends on no index.
 */
export interface EntryQuery {
  /** Empty when the text has no letters or digits, and then nothing can match. */
  expression: string;
}

/** Where the pool is read from: a team's entries, however they are held. */
export interface EntrySource<Query extends EntryQuery = EntryQuery> {
  /** The newest entries, newest first. */
  newest(limit: number): readonly MemoryEntry[];
  /** What the agent asked, as matching() reads it. */
  parseQuery(text: string): Query;
  /** Entries matching the query, best first by FTS5 rank, newest first among equal ranks. */
  matching(query: Query, limit: number): readonly MemoryEntry[];
  /** The newest entries of one project, newest first. */
  newestOfProject(project: string, limit: number): readonly MemoryEntry[];
}

export interface GatherOptions {
  /** What the agent asked; null skips the match read. */
  query: string | null;
  /** The project to boost; null skips the project read. */
  project: string | null;
}

export interface Pool {
  /** The union of the reads, each entry once. */
  entries: MemoryEntry[];
  /** The ids of the match read in its order: the relevance ranking itself, not a set. */
  matched: string[];
}

export function gather<Query extends EntryQuery>(source: EntrySource<Query>, options: GatherOptions): Pool {
  const byId = new Map<string, MemoryEntry>();
  const add = (entries: readonly MemoryEntry[]) => {
    for (const entry of entries) if (!byId.has(entry.id)) byId.set(entry.id, entry);
  };
  add(source.newest(POOL_LIMIT));
  let matched: string[] = [];
  if (options.query !== null) {
    const query = source.parseQuery(options.query);
    // A query with no letters or digits can match nothing; asking would only cost a round trip.
    if (query.expression !== "") {
      const found = source.matching(query, POOL_LIMIT);
      matched = found.map((entry) => entry.id);
      add(found);
    }
  }
  if (options.project !== null) add(source.newestOfProject(options.project, POOL_LIMIT));
  return { entries: [...byId.values()], matched };
}
