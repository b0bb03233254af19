// An entry as working memory sees it: what ranking and rendering need, nothing from storage or HTTP.

export interface MemoryEntry {
  id: string;
  /** ISO-8601 UTC. Recency is the order of (createdAt, id), never an age: ranking reads no clock. */
  createdAt: string;
  project: string | null;
  type: string | null;
  title: string;
  impact: string | null;
}

/** Newest first: createdAt, then id, descending. The recency list's order and every tie-break's. */
export function newerFirst(a: MemoryEntry, b: MemoryEntry): number {
  if (a.createdAt !== b.createdAt) return a.createdAt < b.createdAt ? 1 : -1;
  if (a.id !== b.id) return a.id < b.id ? 1 : -1;
  return 0;
}
