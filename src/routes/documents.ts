// Documents (team key): JSON, a raw markdown/text/HTML body, or a multipart file upload in; sealed and
// indexed before the answer.

import { createRoute, z } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import { DomainError } from "../errors.js";
import { acceptOnly, mediaType } from "../http/accept.js";
import type { AppEnv } from "../http/env.js";
import { type DocumentFormat, formatOfFile } from "../ingest/formats.js";
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

const rawTitleQuery = z.object({ title: nameText(512).optional() });
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

function fromBody(body: DocumentBody): DocumentInput {
  return {
    title: body.title,
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
      security,
      middleware: [team, acceptOnly(postTypes), idempotent] as const,
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
        const title = nameText(512).safeParse(file.name);
        if (!title.success) {
          throw new DomainError(
            "invalid_request",
            "Invalid request: file needs a name of 1–512 characters, not blank.",
          );
        }
        input = {
          title: title.data,
          content: await file.text(),
          format: formatOfFile(file.name) ?? "markdown",
          path: [],
          externalId: null,
        };
      } else if (rawFormats[type]) {
        const title = c.req.valid("query").title;
        if (!title)
          throw new DomainError("invalid_request", "Invalid request: title: a raw body needs ?title=.");
        input = { title, content: await c.req.text(), format: rawFormats[type], path: [], externalId: null };
      } else {
        throw new DomainError("unsupported_media_type", `Send ${postTypes.join(", ")}.`);
      }
      const { document, created } = await documents.create(c.get("team"), input);
      return created ? c.json({ document }, 201) : c.json({ document }, 200);
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
      middleware: [team, acceptOnly(["application/json"])] as const,
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
