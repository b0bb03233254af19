// Export and restore (team key): GET /v1/export streams the team as NDJSON, one line per document and per
// entry between a header and an end line; POST /v1/import takes such a stream back as it arrives, a line at
// a time. Every line, out and in, has a schema here.

import { createRoute, z } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import { events } from "../audit.js";
import { DomainError } from "../errors.js";
import { acceptOnly } from "../http/accept.js";
import { keyActor } from "../http/actor.js";
import { documentBodyLimit, IMPORT_PATH } from "../http/body-limit.js";
import type { AppEnv } from "../http/env.js";
import { describeIssues } from "../http/errors.js";
import { ndjsonLines } from "../http/ndjson.js";
import { documentIdPattern, entryIdPattern } from "../ids.js";
import type { Logger } from "../logger.js";
import type { TeamKey } from "../seal/team-key.js";
import type { AuditTrail } from "../services/audit.js";
import { EXPORT_VERSION, type ExportLine, type ExportService } from "../services/export.js";
import { badLine, type ImportLine, type ImportService } from "../services/import.js";
import { errors, json } from "./responses.js";
import { router } from "./router.js";
import {
  codePoints,
  documentFormatSchema,
  labelText,
  MAX_ENTRY_BODY_CHARS,
  MAX_IMPACT_CHARS,
  nameText,
} from "./schemas.js";

export const NDJSON = "application/x-ndjson";

const time = z.iso.datetime().describe("ISO-8601 UTC, as memoria writes it.");

/**
 * Bounds of what an exported row may hold. Looser than the documents API where a note source stores more
 * (Notion's titles and ancestry are not cut to the API's limits), tight enough that no line is unbounded.
 */
const MAX_TITLE_CHARS = 4096;
const MAX_PATH_SEGMENTS = 64;
const MAX_TAGS = 256;

export const exportHeaderSchema = z.object({
  memoria: z.literal("export"),
  version: z.literal(EXPORT_VERSION, { error: `must be ${EXPORT_VERSION}, the version this server reads` }),
  exportedAt: time,
  team: z.object({ name: z.string() }),
});

export const exportedDocumentSchema = z.object({
  id: z.string().regex(documentIdPattern, "must be a document id (d and 16 base32 characters)"),
  externalId: codePoints(1, 512).nullable(),
  title: codePoints(1, MAX_TITLE_CHARS),
  path: z.array(codePoints(1, 512)).max(MAX_PATH_SEGMENTS),
  format: documentFormatSchema,
  tags: z.array(codePoints(1, 512)).max(MAX_TAGS).optional().default([]),
  content: z.string(),
  createdAt: time,
  updatedAt: time,
});

export const exportedEntrySchema = z.object({
  id: z.string().regex(entryIdPattern, "must be an entry id (e and 16 base32 characters)"),
  title: nameText(512),
  impact: codePoints(0, MAX_IMPACT_CHARS).nullable(),
  project: labelText.nullable(),
  type: labelText.nullable(),
  body: codePoints(0, MAX_ENTRY_BODY_CHARS).nullable(),
  createdAt: time,
});

export const exportEndSchema = z.object({
  documents: z.number().int().min(0),
  entries: z.number().int().min(0),
});

const documentLineSchema = z.object({ document: exportedDocumentSchema });
const entryLineSchema = z.object({ entry: exportedEntrySchema });
const endLineSchema = z.object({ end: exportEndSchema });

/** Every line an export writes; each is checked on its way out, as any answer is. */
export const exportLineSchema = z.union([
  exportHeaderSchema,
  documentLineSchema,
  entryLineSchema,
  endLineSchema,
]);

const countsSchema = z.object({
  created: z.number().int(),
  updated: z.number().int(),
  unchanged: z.number().int(),
  renamed: z.number().int().describe("Given a new id because another team of this instance holds theirs."),
});
export const importAnswer = z.object({
  documents: countsSchema,
  entries: countsSchema.omit({ updated: true }),
});

/**
 * The longest line an import reads: a document at the content limit written with the worst case of JSON
 * escaping (documentBodyLimit), and room for its title, path and tags escaped the same way.
 */
const LINE_WRAPPING_BYTES = 1024 * 1024;
export const importLineLimit = (maxDocumentBytes: number) =>
  documentBodyLimit(maxDocumentBytes, "application/json") + LINE_WRAPPING_BYTES;

function refused(line: number, issues: readonly z.core.$ZodIssue[]): DomainError {
  return badLine(line, describeIssues(issues).replace(/^Invalid request: /, ""));
}

/** A parsed line as the import takes it, told apart by its one key, or 400 naming the line. */
export function importLine(line: number, value: unknown): ImportLine {
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw badLine(line, "is not a JSON object.");
  const pick = <T extends z.ZodType>(schema: T): z.infer<T> => {
    const parsed = schema.safeParse(value);
    if (!parsed.success) throw refused(line, parsed.error.issues);
    return parsed.data;
  };
  if ("memoria" in value) return { line, header: pick(exportHeaderSchema) };
  if ("document" in value) return { line, document: pick(documentLineSchema).document };
  if ("entry" in value) return { line, entry: pick(entryLineSchema).entry };
  if ("end" in value) return { line, end: pick(endLineSchema).end };
  throw badLine(line, 'is not a line of an export (a header, or a "document", "entry" or "end" line).');
}

async function* importLines(
  body: ReadableStream<Uint8Array>,
  maxLineBytes: number,
): AsyncGenerator<ImportLine> {
  for await (const { line, text } of ndjsonLines(body, maxLineBytes)) {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw badLine(line, "is not JSON.");
    }
    yield importLine(line, value);
  }
}

const encoder = new TextEncoder();

/** Bytes of lines gathered into one chunk of the answer's stream: a few socket writes' worth. */
const STREAM_CHUNK_BYTES = 64 * 1024;

function joined(parts: readonly Uint8Array[], bytes: number): Uint8Array {
  if (parts.length === 1) return parts[0] as Uint8Array;
  const out = new Uint8Array(bytes);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.byteLength;
  }
  return out;
}

/**
 * The export as a streamed answer. The first line is made before the answer starts, so a failure there is
 * an error answer; a later failure (a row that does not open, storage gone) ends the stream without its end
 * line, which a restore then refuses as truncated. Lines are pulled one at a time as the client reads.
 */
export async function exportStream(
  requestId: string,
  exports: ExportService,
  key: TeamKey,
  logger: Logger,
): Promise<{ stream: ReadableStream<Uint8Array>; headers: Record<string, string> }> {
  const lines = exports.lines(key);
  const first = await lines.next();
  const line = (value: ExportLine) => encoder.encode(`${JSON.stringify(exportLineSchema.parse(value))}\n`);
  const stream = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        if (!first.done) controller.enqueue(line(first.value));
      },
      async pull(controller) {
        // Lines are gathered up to a socket-sized chunk: one write per line cost a write call per document.
        const parts: Uint8Array[] = [];
        let bytes = 0;
        try {
          while (bytes < STREAM_CHUNK_BYTES) {
            const next = await lines.next();
            if (next.done) {
              if (parts.length > 0) controller.enqueue(joined(parts, bytes));
              controller.close();
              return;
            }
            const encoded = line(next.value);
            parts.push(encoded);
            bytes += encoded.byteLength;
          }
          controller.enqueue(joined(parts, bytes));
        } catch (error) {
          // The code only: a message about a row names its id at most, but the log line needs no more.
          const code = error instanceof DomainError ? error.code : "internal";
          logger.warn("export stopped before its end", { requestId, code });
          // What was read before the failure still goes out; the missing end line marks the stream incomplete.
          if (parts.length > 0) controller.enqueue(joined(parts, bytes));
          controller.error(error);
        }
      },
      async cancel() {
        await lines.return(undefined);
      },
    },
    { highWaterMark: 1 },
  );
  const day = first.done || !("exportedAt" in first.value) ? "" : first.value.exportedAt.slice(0, 10);
  const headers = {
    "content-type": `${NDJSON}; charset=utf-8`,
    "content-disposition": `attachment; filename="memoria-export-${day}.ndjson"`,
    "cache-control": "no-store",
  };
  return { stream, headers };
}

export function exportRoutes(
  services: { exports: ExportService; imports: ImportService; audit: AuditTrail },
  team: MiddlewareHandler<AppEnv>,
  options: { maxDocumentBytes: number; logger: Logger },
) {
  const app = router();
  const security = [{ teamKey: [] }];

  app.get("/v1/export", team, async (c) => {
    const { stream, headers } = await exportStream(
      c.get("requestId"),
      services.exports,
      c.get("team"),
      options.logger,
    );
    // Recorded as the stream starts: from here on the team's rows are leaving, whether or not the client
    // reads them to the end. A HEAD is answered without them.
    if (c.req.method !== "HEAD") await services.audit.record(c.get("team"), keyActor(c), events.exported);
    return c.body(stream, 200, headers);
  });
  // Described for /openapi.json only: its answer is a stream, each line checked by exportLineSchema.
  app.openAPIRegistry.registerPath({
    method: "get",
    path: "/v1/export",
    summary: "Export the team",
    tags: ["Export"],
    description:
      'Streams the team as NDJSON: a header line {"memoria": "export", "version": 1, "exportedAt", ' +
      '"team": {"name"}}, one {"document": …} line per document (as written: content, title, path, ' +
      'format, tags, externalId, times) and one {"entry": …} per entry, then {"end": {"documents", ' +
      '"entries"}}. No key, token or secret is ever in it. A stream without its end line is incomplete.',
    security,
    responses: {
      200: {
        content: { [NDJSON]: { schema: z.string() } },
        description: "The export, a line at a time.",
      },
      ...errors(401, 403),
    },
  });

  app.openapi(
    createRoute({
      method: "post",
      path: IMPORT_PATH,
      summary: "Restore an export into the team",
      tags: ["Export"],
      description:
        "Takes an export's NDJSON back, read as it arrives and applied in batches, keeping ids, externalIds " +
        "and times; running it again changes nothing. A stream without its end line is 400 (truncated) after " +
        "its complete lines were applied; a line that is not valid is 400 naming its number, one longer than " +
        "the largest document's line 413. An id another team of this instance holds is given a new one " +
        "(`renamed`), the same on every run.",
      security,
      middleware: [team, acceptOnly([NDJSON])] as const,
      request: { body: { content: { [NDJSON]: { schema: z.string() } }, required: true } },
      responses: {
        200: json(importAnswer, "What the import created, updated and found unchanged."),
        ...errors(400, 401, 403, 409, 413, 415),
      },
    }),
    async (c) => {
      const body = c.req.raw.body ?? new ReadableStream<Uint8Array>({ start: (s) => s.close() });
      const progress = { wrote: false };
      let done = false;
      try {
        const counts = await services.imports.import(
          c.get("team"),
          importLines(body, importLineLimit(options.maxDocumentBytes)),
          progress,
        );
        done = true;
        return c.json(counts, 200);
      } finally {
        // An import that ran is an event; one refused part way is too once it sent storage a write.
        if (done || progress.wrote) await services.audit.record(c.get("team"), keyActor(c), events.imported);
      }
    },
  );

  return app;
}
