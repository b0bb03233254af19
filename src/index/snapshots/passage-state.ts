// The bookkeeping a passage index's snapshot carries beside its tables (src/index/snapshots/snapshot.ts), in the shape
// a restore checks before trusting it.

import { z } from "zod";

/**
 * The bookkeeping a snapshot carries beside the tables: each document's title, path and rowids (a document
 * in rowid order as its first rowid and count, since its rowids are consecutive), and the next unordered
 * rowid. Everything else the index counts is derived from these.
 */
export const passageIndexStateSchema = z.object({
  documents: z.array(
    z.union([
      z.object({
        id: z.string(),
        title: z.string(),
        path: z.array(z.string()),
        tags: z.array(z.string()).optional(),
        first: z.number().int(),
        count: z.number().int().nonnegative(),
      }),
      z.object({
        id: z.string(),
        title: z.string(),
        path: z.array(z.string()),
        tags: z.array(z.string()).optional(),
        rowids: z.array(z.number().int()),
      }),
    ]),
  ),
  nextUnorderedRowid: z.number().int(),
});
export type PassageIndexState = z.infer<typeof passageIndexStateSchema>;
