// Documents (team key): JSON, a raw markdown/text/HTML body, or a multipart file upload in; sealed and
// indexed before the answer. Every body is read as strict UTF-8 (bytes that are not UTF-8 are refused, never
// replaced by U+FFFD), and content that is not text is refused before anything is stored (src/ingest/text.ts).

import { createRoute, z } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import { DomainError } from "../errors.js";
import { acceptOnly, mediaType } from "../http/accept.js";
import { keyActor } from "../http/actor.js";
import { BATCH_PATH, FILE_MEDIA_TYPES, MAX_BATCH_DOCUMENTS } from "../http/body-limit.js";
import type { AppEnv } from "../http/env.js";
import { describeIssues } from "../http/errors.js";
import { type DocumentFormat, formatOfFile, stem } from "../ingest/formats.js";
import { decodeUtf8, describeNotText, notTextReason } from "../ingest/text.js";
import type { DocumentInput, DocumentService, DocumentView } from "../services/documents.js";
import { decodeCursor, encodeCursor } from "./cursor.js";
import { errors, json } from "./responses.js";
import { router } from "./router.js";
import {
  type DocumentBody,
  documentBody,
  documentSchema,
  idempotencyHeaders,
  idParam,
  intParam,
  nameText,
  unreadableRows,
} from "./schemas.js";

export const documentAnswer = z.object({ document: documentSchema });
export const documentWithContentAnswer = z.object({
  document: documentSchema.extend({ content: z.string() }),
});
export const documentListAnswer = z.object({
  documents: z.array(documentSchema),
  unreadable: unreadableRows,
  nextCursor: z.string().nullable(),
});

/**
 * A batch's documents are validated one by one in the route (each failure is that item's error), so the
 * request schema checks only the envelope; the description points at the single route's body.
 */
const batchBody = z.object({
  documents: z
    .array(z.unknown().openapi({ description: "A body of POST /v1/documents (JSON)." }))
    .max(MAX_BATCH_DOCUMENTS, `must hold at most ${MAX_BATCH_DOCUMENTS} documents`),
});
const batchErrorSchema = z.object({ error: z.object({ code: z.string(), message: z.string() }) });
export const batchAnswer = z.object({
  results: z
    .array(z.union([documentAnswer, batchErrorSchema]))
    .describe("One per item, in request order: its document, or why it alone was not stored."),
});

const rawTitleQuery = z.object({
  title: nameText(512)
    .optional()
    .describe(
      "A raw body's title. Without it the title is the content's front matter title, else its first " +
        "heading (markdown or HTML <h1>–<h6>); a raw body with none of them is refused.",
    ),
});
const uploadForm = z.object({
  file: z.instanceof(File, { message: "must be a file" }).openapi({ type: "string", format: "binary" }),
  externalId: documentBody.shape.externalId.describe("As in a JSON body: a second upload with it replaces."),
  path: z
    .string()
    .optional()
    .describe('Folders, separated by "/" ("Handbook/Onboarding"); as a JSON body\'s `path`.'),
});
const idParams = z.object({ id: idParam });
const security = [{ teamKey: [] }];

const rawFormats: Record<string, DocumentFormat> = {
  "text/markdown": "markdown",
  "text/plain": "text",
  "text/html": "html",
};

const postTypes = [
  "application/json",
  "multipart/form-data",
  ...Object.keys(rawFormats),
  ...Object.keys(FILE_MEDIA_TYPES),
];

const fileBody = z.string().openapi({ type: "string", format: "binary" });

/**
 * Reads a JSON body as strict UTF-8 before the validator parses it. Request.json() would replace bytes that
 * are not UTF-8 with U+FFFD and store the damaged text without a word; this refuses them with 400 instead.
 * The validator then parses the bytes hono has cached: a second decode (~8 ms for 5 MiB, measured here)
 * rather than relying on the layout of hono's private body cache to hand it this text.
 */
const strictJsonBody: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (mediaType(c) === "application/json") {
    if (decodeUtf8(await c.req.arrayBuffer()) === null) {
      throw new DomainError("invalid_request", "Invalid request: body: is not UTF-8 (send JSON as UTF-8).");
    }
  }
  await next();
};

/** Uploaded bytes as a note's text, or 415 / 400 saying why they are not one. */
function uploadedText(bytes: ArrayBuffer, emptyHint: string): string {
  if (bytes.byteLength === 0)
    throw new DomainError("invalid_request", `Invalid request: empty body: ${emptyHint}`);
  const text = decodeUtf8(bytes);
  if (text === null) {
    throw new DomainError(
      "unsupported_media_type",
      "The content is not UTF-8 text; send notes as UTF-8 markdown, text or HTML.",
    );
  }
  const reason = notTextReason(text);
  if (reason)
    throw new DomainError("unsupported_media_type", `The content is not text: ${describeNotText(reason)}.`);
  return text;
}

/** A multipart upload's `path` field as folders: "a/b" is ["a", "b"]; each folder as a JSON body's. */
function uploadedPath(path: string | undefined): string[] {
  if (path === undefined) return [];
  const folders = path.split("/").filter((folder) => folder !== "");
  const parsed = documentBody.shape.path.safeParse(folders);
  if (!parsed.success)
    throw new DomainError(
      "invalid_request",
      describeIssues(parsed.error.issues.map((issue) => ({ ...issue, path: ["path", ...issue.path] }))),
    );
  return parsed.data ?? [];
}

function uploadedTitle(file: File): string {
  const title = nameText(512).safeParse(stem(file.name));
  if (!title.success) {
    throw new DomainError(
      "invalid_request",
      "Invalid request: file needs a name of 1–512 characters (without its extension), not blank.",
    );
  }
  return title.data;
}

async function multipartInput(form: z.infer<typeof uploadForm>): Promise<DocumentInput> {
  const { file } = form;
  // The name is checked even where the content titles the note: it is the title of last resort.
  uploadedTitle(file);
  const content = uploadedText(await file.arrayBuffer(), "the file is empty.");
  // Titled by its content (front matter, first heading) before its name (docs/ingest/markdown.md, "Titles").
  return {
    title: null,
    fileName: file.name,
    content,
    format: formatOfFile(file.name) ?? "markdown",
    path: uploadedPath(form.path),
    externalId: form.externalId ?? null,
  };
}

/** A file's bytes, refused when empty (curl's missing @file sends nothing). */
async function fileBytes(body: Blob | Request, emptyHint: string): Promise<Uint8Array> {
  const bytes = new Uint8Array(await body.arrayBuffer());
  if (bytes.byteLength === 0)
    throw new DomainError("invalid_request", `Invalid request: empty body: ${emptyHint}`);
  return bytes;
}

function fromBody(body: DocumentBody): DocumentInput {
  return {
    title: body.title ?? null,
    content: body.content,
    format: body.format ?? "markdown",
    path: body.path ?? [],
    externalId: body.externalId ?? null,
  };
}

export function documentRoutes(
  documents: DocumentService,
  team: MiddlewareHandler<AppEnv>,
  idempotent: MiddlewareHandler<AppEnv>,
) {
  const app = router();

  app.openapi(
    createRoute({
      method: "post",
      path: "/v1/documents",
      summary: "Add a document, or update the one holding its externalId",
      tags: ["Documents"],
      description:
        "Stores a document from JSON, a raw text/markdown, text/plain or text/html body, or a multipart " +
        "`file`. A raw body's title is `?title=`, a JSON body's `title`; without one, and for a file, the title " +
        "is the content's front matter title, else its first heading, else (a file) its name without the extension. Content must be UTF-8 text: bytes that are not UTF-8 or a NUL byte are 415 for a raw " +
        "or multipart body and 400 for JSON (as is a `content` with a lone surrogate escape such as " +
        "`\\ud800`, which has no UTF-8 form); a raw or multipart upload with an empty body is 400 " +
        '("empty body"), while JSON `content: ""` is allowed. A leading UTF-8 byte order mark of a raw or ' +
        "multipart body is dropped. A PDF or DOCX (raw `application/pdf` or " +
        "`application/vnd.openxmlformats-officedocument.wordprocessingml.document`, or a multipart `file` named " +
        "`.pdf`/`.docx`, up to MEMORIA_MAX_UPLOAD_BYTES) is stored as its text in markdown, with format `pdf` or " +
        "`docx`: DOCX headings are headings, PDF outline entries (else pages) are sections; its title is " +
        "`?title=`, else the file's title metadata, else its first heading, else the file's name. The file itself " +
        "is not kept. Bytes that are not the declared format are 415; an encrypted PDF, one with no text layer, " +
        "a truncated or damaged file, or one that outgrows the extraction's bounds is 422 `unprocessable`.",
      security,
      middleware: [team, acceptOnly(postTypes), strictJsonBody, idempotent] as const,
      request: {
        query: rawTitleQuery,
        headers: idempotencyHeaders,
        body: {
          content: {
            "application/json": { schema: documentBody },
            "multipart/form-data": { schema: uploadForm },
            "text/markdown": { schema: z.string() },
            "text/plain": { schema: z.string() },
            "text/html": { schema: z.string() },
            "application/pdf": { schema: fileBody },
            "application/vnd.openxmlformats-officedocument.wordprocessingml.document": { schema: fileBody },
          },
        },
      },
      responses: {
        201: json(documentAnswer, "Stored and indexed."),
        200: json(documentAnswer, "Replaced the document holding the same externalId."),
        ...errors(400, 401, 403, 409, 413, 415, 422, 503),
      },
    }),
    async (c) => {
      const type = mediaType(c);
      let input: DocumentInput;
      const team = c.get("team");
      const by = keyActor(c);
      const answer = ({ document, created }: { document: DocumentView; created: boolean }) =>
        created ? c.json({ document }, 201) : c.json({ document }, 200);
      if (type in FILE_MEDIA_TYPES) {
        const bytes = await fileBytes(
          c.req.raw,
          "a raw upload needs the file (curl sends none when the file after @ is missing).",
        );
        const format = FILE_MEDIA_TYPES[type as keyof typeof FILE_MEDIA_TYPES];
        const title = c.req.valid("query").title ?? null;
        return answer(
          await documents.createFromFile(
            team,
            {
              format,
              bytes,
              title,
              fileName: null,
              path: [],
              externalId: null,
            },
            by,
          ),
        );
      }
      if (type === "application/json") {
        input = fromBody(c.req.valid("json") as DocumentBody);
      } else if (type === "multipart/form-data") {
        const form = c.req.valid("form") as z.infer<typeof uploadForm>;
        const format = formatOfFile(form.file.name);
        if (format === "pdf" || format === "docx") {
          const fileName = uploadedTitle(form.file);
          const bytes = await fileBytes(form.file, "the file is empty.");
          const path = uploadedPath(form.path);
          return answer(
            await documents.createFromFile(
              team,
              {
                format,
                bytes,
                title: null,
                fileName,
                path,
                externalId: form.externalId ?? null,
              },
              by,
            ),
          );
        }
        input = await multipartInput(form);
      } else if (rawFormats[type]) {
        const format = rawFormats[type];
        // curl sends an empty body, with only a warning, when the file after --data-binary @ does not exist.
        const content = uploadedText(
          await c.req.arrayBuffer(),
          "a raw upload needs content (curl sends none when the file after @ is missing).",
        );
        input = { title: c.req.valid("query").title ?? null, content, format, path: [], externalId: null };
      } else {
        throw new DomainError("unsupported_media_type", `Send ${postTypes.join(", ")}.`);
      }
      return answer(await documents.create(team, input, by));
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: BATCH_PATH,
      summary: "Add or update many documents in one request",
      tags: ["Documents"],
      description:
        `Stores up to ${MAX_BATCH_DOCUMENTS} documents, each as the JSON body of POST /v1/documents, in a few ` +
        "storage transactions, indexed once. Each item succeeds or fails alone, with the code and message " +
        "the single route would answer; an item whose externalId the team holds replaces that document, and " +
        "two items with the same externalId are applied in order (the later replaces the earlier).",
      security,
      middleware: [team, acceptOnly(["application/json"]), strictJsonBody, idempotent] as const,
      request: {
        headers: idempotencyHeaders,
        body: { content: { "application/json": { schema: batchBody } }, required: true },
      },
      responses: {
        200: json(batchAnswer, "One result per item, in request order."),
        ...errors(400, 401, 403, 409, 413, 415, 422),
      },
    }),
    async (c) => {
      const items = c.req.valid("json").documents.map((item) => {
        const parsed = documentBody.safeParse(item);
        return parsed.success
          ? fromBody(parsed.data)
          : new DomainError("invalid_request", describeIssues(parsed.error.issues));
      });
      const outcomes = await documents.createMany(c.get("team"), items, keyActor(c));
      const results = outcomes.map((outcome) =>
        "error" in outcome
          ? { error: { code: outcome.error.code, message: outcome.error.message } }
          : { document: outcome.document },
      );
      return c.json({ results }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/v1/documents",
      summary: "List the team's documents, newest first",
      tags: ["Documents"],
      security,
      middleware: [team] as const,
      request: { query: z.object({ limit: intParam(1, 200).optional(), cursor: z.string().optional() }) },
      responses: { 200: json(documentListAnswer, "Newest first."), ...errors(400, 401) },
    }),
    async (c) => {
      const { limit, cursor } = c.req.valid("query");
      const page = await documents.list(c.get("team"), limit ?? 50, cursor ? decodeCursor(cursor) : null);
      return c.json(
        {
          documents: page.documents,
          unreadable: page.unreadable,
          nextCursor: page.next ? encodeCursor(page.next) : null,
        },
        200,
      );
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/v1/documents/{id}",
      summary: "Read a document with its content",
      tags: ["Documents"],
      security,
      middleware: [team] as const,
      request: { params: idParams },
      responses: {
        200: json(documentWithContentAnswer, "The document and its content."),
        ...errors(401, 404, 500),
      },
    }),
    async (c) => c.json({ document: await documents.get(c.get("team"), c.req.valid("param").id) }, 200),
  );

  app.openapi(
    createRoute({
      method: "put",
      path: "/v1/documents/{id}",
      summary: "Replace a document",
      tags: ["Documents"],
      security,
      middleware: [team, acceptOnly(["application/json"]), strictJsonBody] as const,
      request: {
        params: idParams,
        body: { content: { "application/json": { schema: documentBody } }, required: true },
      },
      responses: {
        200: json(documentAnswer, "Replaced, re-chunked and re-indexed."),
        ...errors(400, 401, 403, 404, 409, 413, 415),
      },
    }),
    async (c) => {
      const document = await documents.replace(
        c.get("team"),
        c.req.valid("param").id,
        fromBody(c.req.valid("json")),
        keyActor(c),
      );
      return c.json({ document }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "delete",
      path: "/v1/documents/{id}",
      summary: "Delete a document",
      tags: ["Documents"],
      security,
      middleware: [team] as const,
      request: { params: idParams },
      responses: {
        204: { description: "Deleted; its passages are gone from search." },
        ...errors(401, 403, 404),
      },
    }),
    async (c) => {
      await documents.delete(c.get("team"), c.req.valid("param").id, keyActor(c));
      return c.body(null, 204);
    },
  );

  return app;
}
