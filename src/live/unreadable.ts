// The rows a team's index left out because they did not open (copied in from another team, altered behind
// memoria's back): kept by id, so a later write that replaces or deletes one takes it off the count, and
// counted, so searches and stats can say they are there instead of answering as if they were not.

/** What re-reading one row for the index found. */
export type Reread<T> =
  | { kind: "stored"; value: T }
  | { kind: "gone" }
  /** `weight`: what the row counts for in storage's totals (a document's chunks; 1 for an entry). */
  | { kind: "unreadable"; weight: number };

/** Left-out rows of one kind, each with its weight, so reconcile can add them to what the index holds. */
export class UnreadableRows {
  readonly #rows = new Map<string, number>();

  mark(id: string, weight: number): void {
    this.#rows.set(id, weight);
  }

  clear(id: string): void {
    this.#rows.delete(id);
  }

  has(id: string): boolean {
    return this.#rows.has(id);
  }

  /** [id, weight] of every row held: what an index snapshot carries of them. */
  entries(): [string, number][] {
    return [...this.#rows];
  }

  get count(): number {
    return this.#rows.size;
  }

  /** The sum of the rows' weights (for documents: the chunks storage counts for them). */
  get weight(): number {
    let total = 0;
    for (const weight of this.#rows.values()) total += weight;
    return total;
  }
}
