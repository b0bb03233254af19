// An embedded replica's bulk reads. While its copy is still being pulled, a wake's bulk reads (snapshot parts, a
// build's pages) go to the primary over Hrana 3 as any remote storage's do (binary-reads.ts), not through the
// client's JSON: the replica's wake is the remote wake plus the pull beside it, and at 87k passages 20 ms away
// the client's reads cost ~0.4 s more (decision 0109). Once the copy has taken over they are answered on this
// machine, and the connection to the primary is closed when no read is left on it.

import type { RowReads } from "./binary-reads.js";

export interface ReplicaReadsOptions {
  /** Whether the copy answers (replica-client.ts): from then on, reads go to `local`. */
  isLocal: () => boolean;
  /** The client's reads: the primary's until the takeover, the copy's after it. */
  local: RowReads;
  /** Bulk reads from the primary. */
  primary: RowReads;
  /** Ends the primary's bulk connection; called once, with no read left on it. */
  closePrimary: () => void;
}

export function replicaReads(options: ReplicaReadsOptions): { rows: RowReads; close: () => void } {
  let onPrimary = 0;
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    options.closePrimary();
  };
  return {
    rows: {
      execute: async (statement) => {
        if (closed || options.isLocal()) {
          if (onPrimary === 0) close();
          return options.local.execute(statement);
        }
        onPrimary++;
        try {
          return await options.primary.execute(statement);
        } finally {
          onPrimary--;
          if (onPrimary === 0 && options.isLocal()) close();
        }
      },
    },
    close,
  };
}
