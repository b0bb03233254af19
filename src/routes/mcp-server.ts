// The MCP server of one POST /mcp request: the four tools over the same services and schemas as the HTTP
// API. Apart from src/routes/mcp.ts because it is what needs the MCP SDK (with ajv and its JSON Schema
// tools, ~10 MiB of a start's RSS): that route loads this file on its first request, so a start that never
// serves /mcp never loads the SDK (docs/decisions/0048-load-at-first-use.md).

import { z } from "@hono/zod-openapi";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { Actor } from "../audit.js";
import { isDomainError } from "../errors.js";
import type { Logger } from "../logger.js";
import { requireScope, type Scope } from "../scope.js";
import type { TeamKey } from "../seal/team-key.js";
import type { McpDeps } from "./mcp.js";
import {
  entryAnswer,
  entryBody,
  entryIdInput,
  entryInput,
  memoryAnswer,
  memoryInput,
  memoryRequest,
  searchAnswer,
  searchQuery,
  searchRequest,
} from "./schemas.js";

/** The version agents see in the MCP handshake. */
const SERVER_INFO = { name: "memoria", version: "1" };

const forgetAnswer = z.object({ forgotten: z.string() });

/**
 * The scope each tool needs: the MCP transport's one table (src/scope.ts). Every tool is listed to every key,
 * so an agent learns what exists; calling one beyond its key's scope is a tool error naming the scope, and
 * does nothing.
 */
export const TOOL_SCOPES = {
  search: "read",
  memory: "read",
  remember: "write",
  forget: "admin",
} as const satisfies Record<string, Scope>;

type ToolName = keyof typeof TOOL_SCOPES;

const text = (value: string) => ({ type: "text" as const, text: value });

/**
 * A tool's failure as a tool result the agent can read, never a protocol error: a domain error's message
 * (written never to quote team content) with its code; anything else a fixed sentence, since an unknown
 * error's text could quote input.
 */
function toolError(error: unknown, logger: Logger, requestId: string): CallToolResult {
  if (isDomainError(error)) return { isError: true, content: [text(`${error.code}: ${error.message}`)] };
  logger.error("mcp tool failed", { requestId, error: error instanceof Error ? error.name : "unknown" });
  return { isError: true, content: [text(`internal: Internal error (request ${requestId}).`)] };
}

export function buildServer(
  deps: McpDeps,
  key: TeamKey,
  scope: Scope,
  actor: Actor,
  requestId: string,
): McpServer {
  const server = new McpServer(SERVER_INFO, { capabilities: { tools: {} } });
  const guarded =
    <A>(tool: ToolName, run: (args: A) => Promise<CallToolResult>) =>
    async (args: A): Promise<CallToolResult> => {
      try {
        requireScope(scope, TOOL_SCOPES[tool], `The ${tool} tool`);
        return await run(args);
      } catch (error) {
        return toolError(error, deps.logger, requestId);
      }
    };

  server.registerTool(
    "search",
    {
      description:
        "Full-text search over the team's documents. Returns passages, best first, with highlighted snippets.",
      inputSchema: searchQuery,
      outputSchema: searchAnswer,
      annotations: { readOnlyHint: true },
    },
    guarded("search", async (args) => {
      const answer = await deps.search.search(key, searchRequest(args));
      return { content: [text(JSON.stringify(answer))], structuredContent: { ...answer } };
    }),
  );

  server.registerTool(
    "memory",
    {
      description:
        "The team's working memory: its decision, incident and learning entries ranked by recency, relevance to " +
        "q and membership of project, cut to a token budget. Returns the block to put in your context, then " +
        "the accounting.",
      inputSchema: memoryInput,
      outputSchema: memoryAnswer,
      annotations: { readOnlyHint: true },
    },
    guarded("memory", async (args) => {
      const answer = await deps.memory.workingMemory(key, memoryRequest(args));
      const { items: _items, text: block, ...accounting } = answer;
      return {
        content: [text(block === "" ? "(no entries)" : block), text(JSON.stringify(accounting))],
        structuredContent: { ...answer },
      };
    }),
  );

  server.registerTool(
    "remember",
    {
      description:
        "Records a memory entry for the team: a decision, incident or learning, with its impact. It is in " +
        "working memory as soon as this returns.",
      inputSchema: entryBody,
      outputSchema: entryAnswer,
    },
    guarded("remember", async (args) => {
      const entry = await deps.entries.create(key, entryInput(args), { by: actor });
      return { content: [text(JSON.stringify({ entry }))], structuredContent: { entry } };
    }),
  );

  server.registerTool(
    "forget",
    {
      description: "Deletes one of the team's memory entries by id.",
      inputSchema: entryIdInput,
      outputSchema: forgetAnswer,
      annotations: { destructiveHint: true, idempotentHint: true },
    },
    guarded("forget", async (args) => {
      await deps.entries.delete(key, args.id, actor);
      return { content: [text(`Forgot entry ${args.id}.`)], structuredContent: { forgotten: args.id } };
    }),
  );

  return server;
}

/** A stateless transport: no session, and answers as plain JSON (each tool finishes in one step). */
export function jsonTransport(): WebStandardStreamableHTTPServerTransport {
  return new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
}
