// POST /mcp (team key): the Model Context Protocol over Streamable HTTP, stateless. Agents reach the same
// operations as the HTTP API — search, memory, remember, forget — validated by the same schemas.
//
// Stateless: every request gets its own server and transport, so no session outlives a request and any
// instance can answer any call. Answers are plain JSON, not an event stream: each tool finishes in one step.
//
// An Origin other than MEMORIA_ALLOWED_ORIGINS or the server's own loopback origin is refused before the key
// (src/http/origin.ts says why the SDK's Host/Origin lists do not fit: they need the origins fixed ahead).

import type { OpenAPIHono } from "@hono/zod-openapi";
import { z } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import { keyActor } from "../http/actor.js";
import type { AppEnv } from "../http/env.js";
import { checkOrigin } from "../http/origin.js";
import type { Logger } from "../logger.js";
import type { EntryService } from "../services/entries.js";
import type { MemoryService } from "../services/memory.js";
import type { SearchService } from "../services/search.js";
import { errors, json } from "./responses.js";
import { router } from "./router.js";

export interface McpDeps {
  search: SearchService;
  memory: MemoryService;
  entries: EntryService;
  logger: Logger;
}

/** A JSON-RPC 2.0 request or notification, as /openapi.json describes the body of POST /mcp. */
const jsonRpcMessage = z
  .object({
    jsonrpc: z.literal("2.0"),
    id: z.union([z.string(), z.number().int()]).optional().describe("Absent for a notification."),
    method: z.string().describe("Such as initialize, tools/list or tools/call."),
    params: z.record(z.string(), z.unknown()).optional(),
  })
  .openapi("JsonRpcMessage");

/** A JSON-RPC 2.0 response: `result` on success, `error` otherwise. */
const jsonRpcAnswer = z
  .object({
    jsonrpc: z.literal("2.0"),
    id: z.union([z.string(), z.number().int()]).nullable(),
    result: z.record(z.string(), z.unknown()).optional(),
    error: z.object({ code: z.number().int(), message: z.string(), data: z.unknown().optional() }).optional(),
  })
  .openapi("JsonRpcAnswer");

export function mcpRoutes(
  deps: McpDeps,
  team: MiddlewareHandler<AppEnv>,
  allowedOrigins: readonly string[] = [],
): OpenAPIHono<AppEnv> {
  const app = router();
  // Before the key: a browser page on a foreign origin (DNS rebinding) is refused whatever it presents.
  const origin = checkOrigin(allowedOrigins);
  // Every method: a foreign page learns nothing of /mcp, not even which methods it serves.
  app.use("/mcp", origin);

  // The MCP SDK is loaded on the first /mcp request, not at start (mcp-server.ts says why); one load is shared
  // by every request, and a failed load is tried again on the next.
  let loading: Promise<typeof import("./mcp-server.js")> | null = null;
  const mcpServer = () => {
    loading ??= import("./mcp-server.js").catch((error: unknown) => {
      loading = null;
      throw error;
    });
    return loading;
  };

  app.post("/mcp", team, async (c) => {
    const { buildServer, jsonTransport } = await mcpServer();
    const server = buildServer(deps, c.get("team"), c.get("key").scope, keyActor(c), c.get("requestId"));
    const transport = jsonTransport();
    try {
      await server.connect(transport);
      // Read c.req.raw here, not earlier: the body limit replaces it when it has to count a chunked body.
      return await transport.handleRequest(c.req.raw);
    } finally {
      // The answer is complete JSON by now, so closing cuts nothing short.
      await server.close();
    }
  });

  // Described for /openapi.json only: the handler above hands the raw request to the MCP transport, which
  // reads and answers JSON-RPC itself.
  app.openAPIRegistry.registerPath({
    method: "post",
    path: "/mcp",
    summary: "Model Context Protocol: the search, memory, remember and forget tools",
    tags: ["MCP"],
    description:
      "Streamable HTTP, stateless: one JSON-RPC 2.0 message per request (`initialize`, `tools/list`, " +
      "`tools/call`, `ping`, notifications), answered as JSON. The request must accept both " +
      "`application/json` and `text/event-stream`. A missing or wrong key is 401 in the error envelope; a " +
      "body that is not JSON-RPC is answered in JSON-RPC's own error form. A browser `Origin` other than " +
      "`MEMORIA_ALLOWED_ORIGINS` or the server's own loopback origin is 403. `GET` and `DELETE` are 405.",
    security: [{ teamKey: [] }],
    request: {
      headers: z.object({
        accept: z.string().describe("Must name application/json and text/event-stream."),
      }),
      body: { content: { "application/json": { schema: jsonRpcMessage } }, required: true },
    },
    responses: {
      200: json(jsonRpcAnswer, "The JSON-RPC response: a result, or a JSON-RPC error."),
      202: { description: "A notification or response was accepted; nothing to answer." },
      400: json(jsonRpcAnswer, "Not JSON, or not a JSON-RPC message: a JSON-RPC error."),
      406: json(jsonRpcAnswer, "The Accept header does not name both media types: a JSON-RPC error."),
      ...errors(401, 403, 413),
    },
  });

  // Without sessions there is no stream to open (GET) and none to end (DELETE): those are the app's 405
  // with `Allow: POST` (src/http/method-not-allowed.ts), the answer the protocol names for a server that
  // offers no stream; clients take it as "POST only".

  return app;
}
