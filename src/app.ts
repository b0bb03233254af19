// createApp builds memoria's HTTP app from its dependencies. No module-level state: a test can build as many
// apps as it likes in one process, each over its own storage and keys.

import { OpenAPIHono } from "@hono/zod-openapi";
import { every } from "hono/combine";
import type { FairQueue } from "./async/fair-queue.js";
import type { Clock } from "./clock.js";
import { DEFAULT_MAX_BATCH_BYTES, type OidcConfig } from "./config.js";
import type { Extractor } from "./extract/extracted.js";
import { accessLog } from "./http/access-log.js";
import { adminAuth, cronAuth, metricsAuth, teamAuth } from "./http/auth.js";
import { bodyLimitOf, limitBody } from "./http/body-limit.js";
import { docsRoutes } from "./http/docs.js";
import type { AppEnv } from "./http/env.js";
import { onError } from "./http/errors.js";
import { idempotent } from "./http/idempotency.js";
import { mcpAuth } from "./http/mcp-auth.js";
import { methodNotAllowed } from "./http/method-not-allowed.js";
import { recordMetrics } from "./http/metrics.js";
import { rateLimits } from "./http/rate-limit.js";
import { requestId } from "./http/request-id.js";
import { routeScope } from "./http/scopes.js";
import { securityHeaders } from "./http/security-headers.js";
import type { PassageIndexOptions } from "./index/passages/passage-index.js";
import { FEEDBACK } from "./index/ranking/feedback.js";
import type { Chunker } from "./ingest/chunker.js";
import { LiveIndexes } from "./live/indexes.js";
import type { TextPacker } from "./live/load-passages.js";
import type { Logger } from "./logger.js";
import { pageRoutes } from "./page/routes.js";
import { PageSessions } from "./page/sessions.js";
import { auditRoutes } from "./routes/audit.js";
import { documentRoutes } from "./routes/documents.js";
import { entryRoutes } from "./routes/entries.js";
import { exportRoutes } from "./routes/export.js";
import { healthRoutes } from "./routes/health.js";
import { keyRoutes } from "./routes/keys.js";
import { mcpRoutes } from "./routes/mcp.js";
import { memberRoutes } from "./routes/members.js";
import { memoryRoutes } from "./routes/memory.js";
import { metricsRoutes } from "./routes/metrics.js";
import { notionRoutes } from "./routes/notion.js";
import { oauthRoutes } from "./routes/oauth.js";
import { oauthClientRoutes } from "./routes/oauth-clients.js";
import { reindexRoutes } from "./routes/reindex.js";
import { searchRoutes } from "./routes/search.js";
import { statsRoutes } from "./routes/stats.js";
import { OPENAPI_TAGS } from "./routes/tags.js";
import { teamRoutes } from "./routes/teams.js";
import { webhookRoutes } from "./routes/webhooks.js";
import type { Keyring } from "./seal/keyring.js";
import { PasswordHasher } from "./seal/password.js";
import { AuditTrail } from "./services/audit.js";
import { ClientMetadataFetcher } from "./services/client-metadata.js";
import { DocumentService } from "./services/documents.js";
import { EntryService } from "./services/entries.js";
import { ExportService } from "./services/export.js";
import { HealthService } from "./services/health.js";
import { IdempotencyService } from "./services/idempotency.js";
import { ImportService } from "./services/import.js";
import { MemberService } from "./services/members.js";
import { MemoryService } from "./services/memory.js";
import { Metrics } from "./services/metrics.js";
import { NotionService } from "./services/notion.js";
import { OAuthService } from "./services/oauth.js";
import { OidcService } from "./services/oidc.js";
import { PasskeyService } from "./services/passkeys.js";
import { ReindexService } from "./services/reindex.js";
import {
  inThreadFinder,
  type PassageFinder,
  SEARCH_QUEUE_DEFAULTS,
  SearchService,
  searchQueue,
} from "./services/search.js";
import { StatsService } from "./services/stats.js";
import { TeamService } from "./services/teams.js";
import { WebhookService } from "./services/webhooks.js";
import { Background } from "./sources/background.js";
import { NotionSync } from "./sources/notion/sync.js";
import { SourceSecrets } from "./sources/secrets.js";
import type { Storage } from "./store/storage.js";
import { ALL_TUNING_ON, type Tuning } from "./tuning.js";

export interface AppConfig {
  adminToken: string | null;
  cronToken: string | null;
  maxDocumentBytes: number;
  /** MEMORIA_MAX_BATCH_BYTES: a batch body's bytes as they arrive. Default DEFAULT_MAX_BATCH_BYTES. */
  maxBatchBytes?: number;
  /** MEMORIA_MAX_UPLOAD_BYTES: the largest PDF or DOCX as it arrives. Default 25 MiB, as src/config.ts gives it. */
  maxUploadBytes?: number;
  catchupMs: number;
  /** MEMORIA_INDEX_MEMORY_MB in bytes: the loaded indexes' budget (see live/ram-budget.ts). Unset: no bound. */
  indexMemoryBytes?: number;
  /** MEMORIA_SNAPSHOT_MIN_CHUNKS: the size past which a build writes a sealed index snapshot (live/snapshot.ts). */
  snapshotMinChunks?: number;
  /** Changes a change-log compaction keeps behind the latest (live/compaction.ts); tests set it small. */
  changeLogKeep?: number;
  /** How long a team's writes pause before its index is merged whole (live/merges.ts); tests set it short. */
  mergeQuietMs?: number;
  /** The least time between two rebuilds of a team's index (live/repack.ts); tests set it short. */
  repackIntervalMs?: number;
  /** MEMORIA_SEARCH_FEEDBACK: search rescores with pseudo-relevance feedback (index/ranking/feedback.ts); default on. */
  searchFeedback?: boolean;
  /** MEMORIA_QUEUE_TIMEOUT_MS: a search waits this long for its turn at most (default 2000). */
  searchQueueTimeoutMs?: number;
  /** MEMORIA_MAX_QUEUE: one team's searches that may wait (default 64). */
  searchMaxQueue?: number;
  /** Notion's API base URL (MEMORIA_NOTION_API_URL); tests point it at a local stand-in. */
  notionApiUrl?: string;
  /** MEMORIA_METRICS_TOKEN: GET /metrics accepts it besides the admin token. */
  metricsToken?: string | null;
  /** MEMORIA_RATE_LIMIT: requests a minute per credential; 0 is none. Default 1200. */
  rateLimit?: number;
  /** MEMORIA_TRUST_PROXY: the header a trusted proxy writes the client's address in. */
  trustProxy?: string | null;
  /** MEMORIA_ALLOWED_ORIGINS: browser origins that may call /mcp. */
  allowedOrigins?: readonly string[];
  /** MEMORIA_OIDC_*: an OpenID Connect provider people join and sign in with; none when absent. */
  oidc?: OidcConfig | null;
  /** MEMORIA_TUNING_OFF: the mechanisms of speed and memory that run (src/tuning.ts); all when absent. */
  tuning?: Tuning;
}

/** MEMORIA_MAX_UPLOAD_BYTES's default, as src/config.ts gives it (why that number: see there). */
const DEFAULT_MAX_UPLOAD_BYTES = 25 * 1024 * 1024;

/** MEMORIA_RATE_LIMIT's default, as src/config.ts gives it (why that number: see there). */
const DEFAULT_RATE_LIMIT = 1200;

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
  /**
   * Where a build from rows packs its text blocks: in the index, on this thread, by default; the servers give
   * the chunk pool's worker (runtime/chunk-pool), so it packs while this thread inserts.
   */
  packText?: TextPacker;
  /** How PDF and DOCX files become text: inline by default; the servers give a worker (runtime/extract-pool). */
  extractor?: Extractor;
  /** Where searches run: on this thread by default; the servers give the search threads (runtime/search-threads). */
  finder?: PassageFinder;
  /**
   * How OAuth clients' metadata documents are fetched: bounded, public addresses only, by default; tests give one
   * that trusts their own certificate on loopback.
   */
  clientMetadata?: ClientMetadataFetcher;
}

export interface Memoria {
  app: OpenAPIHono<AppEnv>;
  indexes: LiveIndexes;
  /** The searches' turns, a line per team: how many wait, and where a test holds the slot to fill a line. */
  searches: FairQueue;
  /** Teams, their keys and their key material. */
  directory: TeamService;
  /** The Notion source: `pullSince(key)` re-reads the pages edited since the team's last sync. */
  notion: NotionSync;
  /** Work done after the answer (Notion webhook events); `idle()` resolves when none is in flight. */
  sources: Background;
  /** Who changed what: its `held` counts events storage refused and that wait to be written. */
  audit: AuditTrail;
  /** Releases the in-memory indexes; storage belongs to the caller. */
  close(): void;
}

export function createApp(deps: AppDeps): Memoria {
  const { config, storage, keyring, clock, logger } = deps;
  const tuning = config.tuning ?? ALL_TUNING_ON;
  const indexes = new LiveIndexes({
    storage,
    clock,
    logger,
    catchupMs: config.catchupMs,
    ...(config.indexMemoryBytes !== undefined ? { memoryBudgetBytes: config.indexMemoryBytes } : {}),
    ...(config.snapshotMinChunks !== undefined ? { snapshotMinChunks: config.snapshotMinChunks } : {}),
    ...(config.changeLogKeep !== undefined ? { changeLogKeep: config.changeLogKeep } : {}),
    ...(config.mergeQuietMs !== undefined ? { mergeQuietMs: config.mergeQuietMs } : {}),
    ...(config.repackIntervalMs !== undefined ? { repackIntervalMs: config.repackIntervalMs } : {}),
    wholeMerge: tuning["whole-merge"],
    indexOptions: {
      ...(config.searchFeedback !== false ? { feedback: FEEDBACK } : {}),
      ...deps.indexOptions,
    },
    ...(deps.packText ? { packText: deps.packText } : {}),
  });
  const directory = new TeamService({ storage, keyring, clock, indexes, keyCacheMs: config.catchupMs });
  const members = new MemberService({
    storage,
    keyring,
    clock,
    passwords: new PasswordHasher(),
    teams: directory,
  });
  const oauth = new OAuthService({
    storage,
    clock,
    keyring,
    teams: directory,
    clientMetadata: deps.clientMetadata ?? new ClientMetadataFetcher(),
    accessCacheMs: config.catchupMs,
  });
  const audit = new AuditTrail({ storage, clock, logger, teams: directory, members, oauth });
  const documents = new DocumentService({
    storage,
    indexes,
    clock,
    maxDocumentBytes: config.maxDocumentBytes,
    chunker: deps.chunker,
    extractor: deps.extractor,
  });
  const entries = new EntryService({ storage, indexes, clock });
  const finder = deps.finder ?? inThreadFinder;
  const searches = searchQueue({
    timeoutMs: config.searchQueueTimeoutMs ?? SEARCH_QUEUE_DEFAULTS.timeoutMs,
    maxWaiting: config.searchMaxQueue ?? SEARCH_QUEUE_DEFAULTS.maxWaiting,
    slots: finder.slots,
  });
  const search = new SearchService({ indexes, queue: searches, finder });
  const exports = new ExportService({ storage, clock });
  const imports = new ImportService({
    storage,
    documents,
    entries,
    maxDocumentBytes: config.maxDocumentBytes,
  });
  const memory = new MemoryService({ indexes });
  const stats = new StatsService({ storage, indexes });
  const health = new HealthService({ storage });
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
  const notionSource = new NotionService({ teams: directory, secrets, notion, background });
  const webhooks = new WebhookService({
    storage,
    teams: directory,
    secrets,
    documents,
    entries,
    clock,
    logger,
  });
  const reindex = new ReindexService({ indexes, teams: directory, storage, logger, notion });
  const idempotency = idempotent(new IdempotencyService({ storage, clock, logger }));
  const metrics = new Metrics(indexes);
  const limits = rateLimits({
    clock,
    perCredential: config.rateLimit ?? DEFAULT_RATE_LIMIT,
    trustProxy: config.trustProxy ?? null,
    onLimited: (limit) => metrics.rateLimited(limit),
  });
  const admin = limits.perCredential(adminAuth(config.adminToken));
  // The key, counted under its rate limit, then the scope its route needs (http/scopes.ts).
  const team = every(limits.perCredential(teamAuth(directory)), routeScope());
  // /mcp also takes the access tokens memoria's authorization server issues (http/mcp-auth.ts).
  const mcpTeam = every(limits.perCredential(mcpAuth(directory, oauth)), routeScope());

  const app = new OpenAPIHono<AppEnv>();
  app.use("*", requestId());
  app.use("*", accessLog(logger));
  app.use("*", recordMetrics(metrics));
  app.use("*", securityHeaders());
  app.use("*", limits.authFailures);
  // Counts the body as a route reads it, after the route's credentials: nothing is read here.
  app.use(
    "*",
    limitBody(
      bodyLimitOf({
        maxDocumentBytes: config.maxDocumentBytes,
        maxBatchBytes: config.maxBatchBytes ?? DEFAULT_MAX_BATCH_BYTES,
        maxUploadBytes: config.maxUploadBytes ?? DEFAULT_MAX_UPLOAD_BYTES,
      }),
    ),
  );

  app.route("/", healthRoutes(health));
  app.route("/", teamRoutes(directory, admin, audit, members, logger));
  app.route("/", documentRoutes(documents, team, idempotency));
  app.route("/", searchRoutes(search, team));
  app.route("/", entryRoutes(entries, team, idempotency));
  app.route("/", memoryRoutes(memory, team));
  app.route("/", mcpRoutes({ search, memory, entries, logger }, mcpTeam, config.allowedOrigins ?? []));
  app.route("/", oauthRoutes(oauth));
  app.route("/", oauthClientRoutes(oauth, team));
  app.route("/", notionRoutes(notionSource, team, audit));
  app.route("/", webhookRoutes(webhooks, team, logger, audit));
  app.route("/", statsRoutes(stats, team));
  app.route("/", keyRoutes(directory, team, audit));
  app.route("/", auditRoutes(audit, team));
  app.route("/", memberRoutes(members, team));
  app.route(
    "/",
    exportRoutes({ exports, imports, audit }, team, { maxDocumentBytes: config.maxDocumentBytes, logger }),
  );
  app.route("/", reindexRoutes(reindex, limits.perCredential(cronAuth(config.cronToken, config.adminToken))));
  app.route(
    "/",
    metricsRoutes(metrics, limits.perCredential(metricsAuth(config.metricsToken ?? null, config.adminToken))),
  );

  app.openAPIRegistry.registerComponent("securitySchemes", "adminToken", { type: "http", scheme: "bearer" });
  app.openAPIRegistry.registerComponent("securitySchemes", "cronToken", {
    type: "http",
    scheme: "bearer",
    description: "MEMORIA_CRON_TOKEN (the admin token is accepted too).",
  });
  app.openAPIRegistry.registerComponent("securitySchemes", "teamKey", {
    type: "http",
    scheme: "bearer",
    description:
      "A team key, mem_<teamId>_<secret>, with a scope: read, write or admin (each holding the one before). " +
      "Deleting, forgetting, export, import, sources, keys and the audit trail need admin; adding and replacing need write; a " +
      "smaller scope is 403 forbidden.",
  });
  app.doc31("/openapi.json", {
    openapi: "3.1.0",
    info: { title: "memoria", version: "1", description: "Team memory, sealed at rest, searched in memory." },
    // One tag per resource, in the order a newcomer meets them; every operation names exactly one.
    tags: [...OPENAPI_TAGS],
  });
  app.route("/", docsRoutes());
  // The page for people (src/page): the same services as the JSON routes, signed in by a session cookie.
  const sessions = new PageSessions({ store: storage.sessions, directory, members, clock });
  app.route(
    "/",
    pageRoutes({
      sessions,
      rateLimit: limits.credentialLimited,
      accounts: limits.accounts,
      ceremonyStarted: limits.ceremonyStarted,
      documentFetched: limits.documentFetched,
      search,
      memory,
      documents,
      entries,
      stats,
      teams: directory,
      exports,
      audit,
      members,
      passkeys: new PasskeyService({ storage, clock, teams: directory, members }),
      oidc: config.oidc ? new OidcService(config.oidc) : null,
      oauth,
      logger,
    }),
  );

  app.notFound(methodNotAllowed(app));
  app.onError(onError(logger));

  return {
    app,
    indexes,
    searches,
    directory,
    notion,
    sources: background,
    audit,
    close: () => {
      audit.close();
      indexes.close();
    },
  };
}
