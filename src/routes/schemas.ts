// Schemas shared by several routes. Lengths are counted in Unicode code points, as API.md specifies, not in
// UTF-16 units (zod's own .max counts those, and an emoji would count twice).

import { z } from "@hono/zod-openapi";
import { MAX_QUERY_BYTES } from "../index/query.js";
import { documentFormats } from "../ingest/formats.js";
import { utf8Length } from "../text/length.js";
import { errorCodeParam } from "./router.js";

export const codePoints = (min: number, max: number) =>
  z.string().refine(
    (s) => {
      const n = [...s].length;
      return n >= min && n <= max;
    },
    { message: `must be ${min}–${max} characters` },
  );

/** A name or title: 1–`max` characters, and not only white space (a blank title is never findable). */
export const nameText = (max: number) =>
  codePoints(1, max).refine((s) => s.trim() !== "", { message: "must not be blank" });

/**
 * A whole number, given as a query-string parameter ("20") or as a JSON number (20, from an MCP tool call),
 * so one schema serves both. Only plain digits are converted: "1e2", "0x10", " 5" and "" stay strings and
 * are refused, where z.coerce would have read them as numbers.
 */
export const intParam = (min: number, max: number) =>
  z.preprocess(
    (value) => (typeof value === "string" && /^\d+$/.test(value) ? Number(value) : value),
    z
      .number({ error: `must be a whole number from ${min} to ${max}` })
      .int(`must be a whole number from ${min} to ${max}`)
      .min(min, `must be at least ${min}`)
      .max(max, `must be at most ${max}`),
  );

/** A text to match: at most 1024 UTF-8 bytes (a longer one answers `query_too_long`). */
export const matchText = z.string().superRefine((q, ctx) => {
  if (utf8Length(q) > MAX_QUERY_BYTES) {
    ctx.addIssue({
      code: "custom",
      message: `The query is longer than ${MAX_QUERY_BYTES} bytes.`,
      params: { [errorCodeParam]: "query_too_long" },
    });
  }
});

/** A search text: not blank, at most 1024 UTF-8 bytes. */
export const queryText = matchText.refine((q) => q.trim() !== "", { message: "must not be blank" });

/** A project or entry type, as API.md defines them. */
export const labelText = z
  .string()
  .regex(/^[A-Za-z0-9._-]{1,64}$/, "must be 1–64 characters of A–Z, a–z, 0–9, '.', '_' or '-'");

/** A path id: any non-empty segment. One that no row has answers 404 like any unknown id (API.md). */
export const idParam = z.string().min(1);

export const documentFormatSchema = z.enum(documentFormats);

export const documentSchema = z
  .object({
    id: z.string(),
    title: z.string(),
    path: z.array(z.string()),
    format: documentFormatSchema,
    externalId: z.string().optional(),
    chunks: z.number().int(),
    version: z.number().int(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi("Document");

export const teamSchema = z
  .object({ id: z.string(), name: z.string(), createdAt: z.string() })
  .openapi("Team");

export const hitSchema = z
  .object({
    chunkId: z.string(),
    documentId: z.string(),
    ordinal: z.number().int(),
    title: z.string(),
    heading: z.string(),
    path: z.array(z.string()),
    snippet: z.string(),
    score: z.number(),
  })
  .openapi("Hit");
