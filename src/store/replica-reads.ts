// An embedded replica's bulk reads. While its copy is still being pulled, a wake's bulk reads (snapshot parts, a
// build's pages) go to the primary over Hrana 3 as any remote storage's do (binary-reads.ts), not through the
// client's JSON: an 87k-passage team's wake from its snapshot, the primary 20 ms away over HTTP, took 3.8 s to
// its first answer rather than 5.2 s (decision 0110). Once the copy has taken over they are answered on this
// machine, and the connection to the primary is closed as soon as no read is left on it.

import type { RowReads } from "./binary-reads.js";
import type { QuietReads } from "./quiet-reads.js";

export interface ReplicaReadsOptions {
  /** Resolves when the copy takes over (replica-client.ts): from then on, reads go to `local`. */
  tookOver: Promise<void>;
  /** The client's reads: the primary's until the takeover, the copy's after it. */
  local: RowReads;
  /** Bulk reads from the primary. */
  primary: RowReads;
  /** Hears each read on the primary begin and end: the copy waits for them (quiet-reads.ts). */
  quiet: QuietReads;
  /**
   * Ends the primary's bulk connection; called once: after the takeover when no read is on it, or when storage
   * closes (a read still on it then fails as storage away).
   */
  closePrimary: () => void;
}

export function replicaReads(options: ReplicaReadsOptions): { rows: RowReads; close: () => void } {
  let onPrimary = 0;
  let local = false;
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    options.closePrimary();
  };
  // A wake's reads are usually over before the copy takes over, and none may follow for hours.
  options.tookOver.then(() => {
    local = true;
    if (onPrimary === 0) close();
  });
  return {
    rows: {
      execute: async (statement) => {
        if (closed || local) return options.local.execute(statement);
        onPrimary++;
        options.quiet.began();
        try {
          return await options.primary.execute(statement);
        } finally {
          options.quiet.ended();
          onPrimary--;
          if (onPrimary === 0 && local) close();
        }
      },
    },
    close,
  };
}
