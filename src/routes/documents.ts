// Documents (team key): JSON, a raw markdown/text/HTML body, or a multipart file upload in; sealed and
// indexed before the answer. Every body is read as strict UTF-8 (bytes that are not UTF-8 are refused, never
// replaced by U+FFFD), and content that is not text is refused before anything is stored (src/ingest/text.ts).

import { createRoute, z } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import { DomainError } from "../errors.js";
import { acceptOnly, mediaType } from "../http/accept.js";
import { BATCH_PATH, MAX_BATCH_DOCUMENTS } from "../http/body-limit.js";
import type { AppEnv } from "../http/env.js";
import { describeIssues } from "../http/errors.js";
import { type DocumentFormat, formatOfFile, stem } from "../ingest/formats.js";
import { decodeUtf8, describeNotText, notTextReason } from "../ingest/text.js";
import type { DocumentInput, DocumentService } from "../services/documents.js";
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
});
const idParams = z.object({ id: idParam });
const security = [{ teamKey: [] }];

const rawFormats: Record<string, DocumentFormat> = {
  "text/markdown": "markdown",
  "text/plain": "text",
  "text/html": "html",
};

const postTypes = ["application/json", "multipart/form-data", ...Object.keys(rawFormats)];

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

async function multipartInput(file: File): Promise<DocumentInput> {
  const title = nameText(512).safeParse(stem(file.name));
  if (!title.success) {
    throw new DomainError(
      "invalid_request",
      "Invalid request: file needs a name of 1–512 characters (without its extension), not blank.",
    );
  }
  const content = uploadedText(await file.arrayBuffer(), "the file is empty.");
  // Titled by its content (front matter, first heading) before its name (docs/ingest/markdown.md, "Titles").
  return {
    title: null,
    fileName: file.name,
    content,
    format: formatOfFile(file.name) ?? "markdown",
    path: [],
    externalId: null,
  };
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
      description:
        "Stores a document from JSON, a raw text/markdown, text/plain or text/html body, or a multipart " +
        "`file`. A raw body's title is `?title=`, a JSON body's `title`; without one, and for a file, the title " +
        "is the content's front matter title, else its first heading, else (a file) its name without the extension. Content must be UTF-8 text: bytes that are not UTF-8 or a NUL byte are 415 for a raw " +
        "or multipart body and 400 for JSON (as is a `content` with a lone surrogate escape such as " +
        "`\\ud800`, which has no UTF-8 form); a raw or multipart upload with an empty body is 400 " +
        '("empty body"), while JSON `content: ""` is allowed. A leading UTF-8 byte order mark of a raw or ' +
        "multipart body is dropped.",
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
          },
        },
      },
      responses: {
        201: json(documentAnswer, "Stored and indexed."),
        200: json(documentAnswer, "Replaced the document holding the same externalId."),
        ...errors(400, 401, 409, 413, 415, 422),
      },
    }),
    async (c) => {
      const type = mediaType(c);
      let input: DocumentInput;
      if (type === "application/json") {
        input = fromBody(c.req.valid("json") as DocumentBody);
      } else if (type === "multipart/form-data") {
        const { file } = c.req.valid("form") as z.infer<typeof uploadForm>;
        input = await multipartInput(file);
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
      const { document, created } = await documents.create(c.get("team"), input);
      return created ? c.json({ document }, 201) : c.json({ document }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: BATCH_PATH,
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
        ...errors(400, 401, 409, 413, 415, 422),
      },
    }),
    async (c) => {
      const items = c.req.valid("json").documents.map((item) => {
        const parsed = documentBody.safeParse(item);
        return parsed.success
          ? fromBody(parsed.data)
          : new DomainError("invalid_request", describeIssues(parsed.error.issues));
      });
      const outcomes = await documents.createMany(c.get("team"), items);
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
      security,
      middleware: [team, acceptOnly(["application/json"]), strictJsonBody] as const,
      request: {
        params: idParams,
        body: { content: { "application/json": { schema: documentBody } }, required: true },
      },
      responses: {
        200: json(documentAnswer, "Replaced, re-chunked and re-indexed."),
        ...errors(400, 401, 404, 409, 413, 415),
      },
    }),
    async (c) => {
      const document = await documents.replace(
        c.get("team"),
        c.req.valid("param").id,
        fromBody(c.req.valid("json")),
      );
      return c.json({ document }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "delete",
      path: "/v1/documents/{id}",
      security,
      middleware: [team] as const,
      request: { params: idParams },
      responses: { 204: { description: "Deleted; its passages are gone from search." }, ...errors(401, 404) },
    }),
    async (c) => {
      await documents.delete(c.get("team"), c.req.valid("param").id);
      return c.body(null, 204);
    },
  );

  return app;
}
