// createApp builds memoria's HTTP app from its dependencies. No module-level state: a test can build as many
// apps as it likes in one process, each over its own storage and keys.

import { swaggerUI } from "@hono/swagger-ui";
import { OpenAPIHono } from "@hono/zod-openapi";
import type { Clock } from "./clock.js";
import { DocumentService } from "./documents/service.js";
import { EntryService } from "./entries/service.js";
import { accessLog } from "./http/access-log.js";
import { adminAuth, cronAuth, teamAuth } from "./http/auth.js";
import { DEFAULT_BODY_LIMIT, documentBodyLimit, limitBody } from "./http/body-limit.js";
import type { AppEnv } from "./http/env.js";
import { errorResponse, onError } from "./http/errors.js";
import { requestId } from "./http/request-id.js";
import type { PassageIndexOptions } from "./index/passage-index.js";
import type { Chunker } from "./ingest/chunker.js";
import { LiveIndexes } from "./live/indexes.js";
import type { Logger } from "./logger.js";
import { documentRoutes } from "./routes/documents.js";
import { entryRoutes } from "./routes/entries.js";
import { healthRoutes } from "./routes/health.js";
import { mcpRoutes } from "./routes/mcp.js";
import { memoryRoutes } from "./routes/memory.js";
import { notionRoutes } from "./routes/notion.js";
import { reindexRoutes } from "./routes/reindex.js";
import { searchRoutes } from "./routes/search.js";
import { statsRoutes } from "./routes/stats.js";
import { teamRoutes } from "./routes/teams.js";
import { webhookRoutes } from "./routes/webhooks.js";
import type { Keyring } from "./seal/keyring.js";
import { Background } from "./sources/background.js";
import { NotionSync } from "./sources/notion/sync.js";
import { SourceSecrets } from "./sources/secrets.js";
import type { Storage } from "./store/storage.js";
import { TeamDirectory } from "./teams/directory.js";
import { Reindexer } from "./teams/reindex.js";

export interface AppConfig {
  adminToken: string | null;
  cronToken: string | null;
  maxDocumentBytes: number;
  catchupMs: number;
  /** Notion's API base URL (MEMORIA_NOTION_API_URL); tests point it at a local stand-in. */
  notionApiUrl?: string;
}

export interface AppDeps {
  config: AppConfig;
  storage: Storage;
  keyring: Keyring;
  clock: Clock;
  logger: Logger;
  /** Options for the teams' in-memory indexes; tests use them to make rowid ranges run out early. */
  indexOptions?: PassageIndexOptions;
  /** How documents become passages: inline by default; the servers give a worker pool (runtime/chunk-pool). */
  chunker?: Chunker;
}

export interface Memoria {
  app: OpenAPIHono<AppEnv>;
  indexes: LiveIndexes;
  directory: TeamDirectory;
  /** The Notion source: `pullSince(key)` re-reads the pages edited since the team's last sync. */
  notion: NotionSync;
  /** Work done after the answer (Notion webhook events); `idle()` resolves when none is in flight. */
  sources: Background;
  /** Releases the in-memory indexes; storage belongs to the caller. */
  close(): void;
}

export function createApp(deps: AppDeps): Memoria {
  const { config, storage, keyring, clock, logger } = deps;
  const indexes = new LiveIndexes({
    storage,
    clock,
    logger,
    catchupMs: config.catchupMs,
    ...(deps.indexOptions ? { indexOptions: deps.indexOptions } : {}),
  });
  const directory = new TeamDirectory({ storage, keyring, clock, indexes });
  const documents = new DocumentService({
    storage,
    indexes,
    clock,
    maxDocumentBytes: config.maxDocumentBytes,
    chunker: deps.chunker,
  });
  const entries = new EntryService({ storage, indexes, clock });
  const secrets = new SourceSecrets({ storage, clock });
  const background = new Background(logger);
  const notion = new NotionSync({
    storage,
    secrets,
    documents,
    clock,
    logger,
    ...(config.notionApiUrl ? { apiUrl: config.notionApiUrl } : {}),
  });
  const admin = adminAuth(config.adminToken);
  const team = teamAuth(directory);

  const app = new OpenAPIHono<AppEnv>();
  app.use("*", requestId());
  app.use("*", accessLog(logger));
  const documentLimit = limitBody(documentBodyLimit(config.maxDocumentBytes));
  const defaultLimit = limitBody(DEFAULT_BODY_LIMIT);
  // Documents, and the ingest webhook that carries whole documents, get the document limit.
  const carriesDocuments = (path: string) =>
    path.startsWith("/v1/documents") || path.startsWith("/v1/webhooks/ingest/");
  app.use("*", (c, next) => (carriesDocuments(c.req.path) ? documentLimit(c, next) : defaultLimit(c, next)));

  app.route("/", healthRoutes(storage));
  app.route("/", teamRoutes(directory, admin));
  app.route("/", documentRoutes(documents, team));
  app.route("/", searchRoutes(indexes, team));
  app.route("/", entryRoutes(entries, team));
  app.route("/", memoryRoutes(indexes, team));
  app.route("/", mcpRoutes({ indexes, entries, logger }, team));
  app.route("/", notionRoutes({ directory, secrets, notion, background }, team));
  app.route("/", webhookRoutes({ storage, directory, secrets, documents, entries, clock, logger, team }));
  app.route("/", statsRoutes(storage, indexes, team));
  const reindexer = new Reindexer({
    indexes,
    directory,
    storage,
    logger,
    // A team's Notion pull failing (a revoked token, Notion down) is logged and leaves its sync time where it
    // was for the next ping; the team's index is still reported, and other teams still reindexed.
    pull: (key) =>
      notion.pullSince(key).catch((error: unknown) => {
        logger.warn("notion pull failed", {
          teamId: key.teamId,
          error: error instanceof Error ? error.name : "unknown",
        });
        return 0;
      }),
  });
  app.route("/", reindexRoutes(reindexer, cronAuth(config.cronToken, config.adminToken)));

  app.openAPIRegistry.registerComponent("securitySchemes", "adminToken", { type: "http", scheme: "bearer" });
  app.openAPIRegistry.registerComponent("securitySchemes", "cronToken", {
    type: "http",
    scheme: "bearer",
    description: "MEMORIA_CRON_TOKEN (the admin token is accepted too).",
  });
  app.openAPIRegistry.registerComponent("securitySchemes", "teamKey", {
    type: "http",
    scheme: "bearer",
    description: "A team key, mem_<teamId>_<secret>.",
  });
  app.doc31("/openapi.json", {
    openapi: "3.1.0",
    info: { title: "memoria", version: "1", description: "Team memory, sealed at rest, searched in memory." },
  });
  app.get("/docs", swaggerUI({ url: "/openapi.json" }));

  app.notFound((c) => errorResponse(c, "not_found", "No such route."));
  app.onError(onError(logger));

  return { app, indexes, directory, notion, sources: background, close: () => indexes.close() };
}
