// Schemas shared by several routes (the HTTP API, the MCP tools, the generic webhook), and the mapping of
// their validated values to service input. A schema one route uses alone lives with that route. Lengths are
// counted in Unicode code points, as docs/api.md specifies, not in UTF-16 units (zod's own .max counts those, and
// an emoji would count twice).

import { z } from "@hono/zod-openapi";
import { IDEMPOTENCY_HEADER, idempotencyKeyText } from "../http/idempotency.js";
import { MAX_QUERY_BYTES } from "../index/query.js";
import { documentFormats } from "../ingest/formats.js";
import { DEFAULT_BUDGET, MAX_BUDGET } from "../memory/constants.js";
import type { EntryInput } from "../services/entries.js";
import type { MemoryRequest } from "../services/memory.js";
import type { SearchRequest } from "../services/search.js";
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

/**
 * A text that may be null, its meaning said on the text itself. JSON Schema generators fold a bare
 * `anyOf: [{type: "string"}, {type: "null"}]` into `type: ["string", "null"]`, which is legal but which several
 * MCP clients read as one string and reject or drop (MCP Inspector warns about each); a branch carrying its
 * description is not bare, so the MCP tools' schemas keep the two branches (decision 0043).
 */
export const nullableText = <T extends z.ZodString | z.ZodType<string>>(text: T, what: string) =>
  text.describe(what).nullable();

/** A project or entry type, as docs/api.md defines them. */
export const labelText = z
  .string()
  .regex(/^[A-Za-z0-9._-]{1,64}$/, "must be 1–64 characters of A–Z, a–z, 0–9, '.', '_' or '-'");

/** A path id: any non-empty segment. One that no row has answers 404 like any unknown id (docs/api.md). */
export const idParam = z.string().min(1);

/**
 * How many stored rows of a listing's page did not open (moved from another team, altered, or under a key
 * that no longer opens); they are left out of the answer, never silently: 0 when all opened.
 */
export const unreadableRows = z
  .number()
  .int()
  .describe("Rows of this page that did not open and are left out of it; 0 normally.");

export const documentFormatSchema = z.enum(documentFormats);

export const documentSchema = z
  .object({
    id: z.string(),
    title: z.string(),
    path: z.array(z.string()),
    format: documentFormatSchema,
    tags: z
      .array(z.string())
      .describe(
        "The front matter's tags, aliases, keywords and categories (markdown); searchable like the title. " +
          "[] when it has none.",
      ),
    externalId: z.string().optional(),
    contentHash: z
      .string()
      .optional()
      .describe(
        "SHA-256 (lower-case hex) of the stored content's UTF-8 bytes, so a client can tell whether its copy " +
          "is the same without downloading the content. Absent for a document last written before v1.1.",
      ),
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

/** The Idempotency-Key header of the write routes that take it (src/http/idempotency.ts). */
export const idempotencyHeaders = z.object({
  [IDEMPOTENCY_HEADER]: idempotencyKeyText
    .optional()
    .describe("A retry with the same key and the same body within 24 h answers what the first request did."),
});

// Documents: the body of POST/PUT /v1/documents, and of the webhook's document.upsert.

/** externalIds with these prefixes belong to a note source; the documents API may not write them. */
export const reservedExternalIdPrefixes = ["notion:"];

export const documentBody = z.object({
  title: nameText(512)
    .optional()
    .describe(
      "Without it, the content's front matter title, else its first heading (a generic one such as " +
        '"Changelog" joined with the last folder of `path`); content that gives neither is refused.',
    ),
  content: z.string(),
  format: documentFormatSchema.optional(),
  path: z.array(codePoints(1, 512)).max(32).optional(),
  externalId: codePoints(1, 512)
    .refine((id) => !reservedExternalIdPrefixes.some((p) => id.startsWith(p)), {
      message: "externalIds starting with notion: are reserved for the Notion source",
    })
    .optional(),
});
export type DocumentBody = z.infer<typeof documentBody>;

// Entries: /v1/entries, the MCP remember and forget tools, the webhook's entry.create.

/** The longest impact: one sentence of consequence, which a working-memory line shows in full. */
export const MAX_IMPACT_CHARS = 1024;
/** The longest body: the detail behind an entry, searched but never rendered into a line. */
export const MAX_ENTRY_BODY_CHARS = 65_536;

export const entrySchema = z
  .object({
    id: z.string(),
    createdAt: z.string(),
    project: nullableText(z.string(), "The project it belongs to; null for none."),
    type: nullableText(z.string(), "Its kind, such as decision, incident or learning; null for none."),
    title: z.string(),
    impact: nullableText(z.string(), "What it changes; null for none."),
    body: nullableText(z.string(), "Longer detail; null for none."),
  })
  .openapi("Entry");

// Blank impact and body are the same as none: a line never ends in a dangling dash.
export const entryBody = z.object({
  title: nameText(512).describe("What was decided, broken or learned; 1–512 characters."),
  impact: nullableText(
    codePoints(0, MAX_IMPACT_CHARS),
    "What it changes, shown after the title in working memory; at most 1024 characters.",
  )
    .optional()
    .describe("What it changes, shown after the title in working memory."),
  project: labelText.nullish().describe("The project it belongs to: [A-Za-z0-9._-]{1,64}."),
  type: labelText
    .nullish()
    .describe("Its kind, such as decision, incident or learning: [A-Za-z0-9._-]{1,64}."),
  body: nullableText(codePoints(0, MAX_ENTRY_BODY_CHARS), "Longer detail; at most 65,536 characters.")
    .optional()
    .describe("Longer detail; searched, not rendered."),
});
export type EntryBody = z.infer<typeof entryBody>;

export const entryIdInput = z.object({ id: idParam.describe("The entry's id.") });

export function entryInput(body: EntryBody): EntryInput {
  return {
    title: body.title,
    impact: body.impact?.trim() ? body.impact : null,
    project: body.project ?? null,
    type: body.type ?? null,
    body: body.body?.trim() ? body.body : null,
  };
}

export const entryAnswer = z.object({ entry: entrySchema });

// Search: /v1/search and the MCP search tool.

/** Hits per answer when the caller names no limit. */
export const DEFAULT_SEARCH_LIMIT = 20;

export const searchQuery = z.object({
  q: queryText.describe("What to look for, in plain words; at most 1024 bytes."),
  limit: intParam(1, 100).optional().describe(`Hits to return, 1–100; default ${DEFAULT_SEARCH_LIMIT}.`),
});
export type SearchQuery = z.infer<typeof searchQuery>;
export const searchAnswer = z.object({
  query: z.string(),
  hits: z.array(hitSchema),
  corpus: z.object({
    documents: z.number().int(),
    chunks: z.number().int(),
    unreadable: z
      .number()
      .int()
      .describe("Documents left out of search because they did not open; 0 normally."),
  }),
  tookMs: z.number(),
});

export function searchRequest(input: SearchQuery): SearchRequest {
  return { q: input.q, limit: input.limit ?? DEFAULT_SEARCH_LIMIT };
}

// Working memory: /v1/memory and the MCP memory tool.

export const memoryInput = z.object({
  q: matchText.optional().describe("What the agent is working on; ranks matching entries higher."),
  project: labelText.optional().describe("A project to boost (never a filter)."),
  budget: intParam(1, MAX_BUDGET)
    .optional()
    .describe(`Tokens the block may cost, 1–${MAX_BUDGET}; default ${DEFAULT_BUDGET}.`),
});
export type MemoryInput = z.infer<typeof memoryInput>;

export const memoryAnswer = z
  .object({
    query: nullableText(z.string(), "The query the entries were ranked for; null for none."),
    project: nullableText(z.string(), "The project boosted; null for none."),
    budget: z.number().int(),
    candidates: z.number().int(),
    included: z.number().int(),
    skipped: z.number().int(),
    estimatedTokens: z.number().int(),
    items: z.array(
      z.object({
        id: z.string(),
        rank: z.number().int(),
        score: z.number(),
        tokens: z.number().int(),
        line: z.string(),
      }),
    ),
    text: z.string(),
  })
  .openapi("WorkingMemory");

/** The request for validated input; a blank `q` is the same as none. */
export function memoryRequest(input: MemoryInput): MemoryRequest {
  return {
    query: input.q != null && input.q.trim() !== "" ? input.q : null,
    project: input.project ?? null,
    budget: input.budget ?? DEFAULT_BUDGET,
  };
}
