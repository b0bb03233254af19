// The Cloudflare Worker's decisions, kept pure so they run and are tested anywhere: which container instance
// a request belongs to, which requests the Worker answers itself (a malformed key, an unknown path, a bad
// environment) without waking a container, and the environment each container is started with. Nothing
// here touches storage or imports anything native; src/runtime/worker.ts wires it to Cloudflare.

import { getPath } from "hono/utils/url";
import { type Config, ConfigError, envSchema, parseConfig } from "../config.js";
import { DomainError, type ErrorCode } from "../errors.js";
import { teamIdPattern } from "../ids.js";

/** The port the container's Node server listens on (passed to it as PORT). */
export const CONTAINER_PORT = 8080;

/** The one instance that serves admin, health and the API description: it holds no team's index. */
export const ADMIN_INSTANCE = "admin";

/** Teams whose last successful request is this recent get the cron's reindex ping. */
export const ACTIVE_WINDOW_MS = 60 * 60 * 1000;

/** A team is recorded in the registry at most this often per Worker isolate. */
export const RECORD_INTERVAL_MS = 60 * 1000;

/** How many team instances a reindex fan-out asks at once. */
export const FANOUT_CONCURRENCY = 4;

export type Route =
  /** A team's own instance: the id came from the key's `mem_<teamId>_` prefix or the webhook path. */
  | { kind: "team"; teamId: string; via: "key" | "webhook" }
  /** `/v1/teams…`: the fixed instance, after the Worker checked the admin token. */
  | { kind: "admin" }
  /** Health, the OpenAPI document and its page: the fixed instance, no credentials. */
  | { kind: "service" }
  /** `POST /v1/reindex`: the cron token, then one team's instance or every active one. */
  | { kind: "reindex" }
  /** Answered by the Worker: nothing wakes. */
  | { kind: "reject"; code: "unauthorized" | "not_found" };

const servicePaths = new Set(["/healthz", "/readyz", "/openapi.json", "/docs"]);
// Notion's webhook path ends in the team's secret URL token, which the team's instance checks.
const webhookPath = /^\/v1\/webhooks\/(?:notion\/([^/]+)\/[^/]+|ingest\/([^/]+))$/;

/** The same reading of `Authorization` as src/http/auth.ts's bearerToken. */
export function bearerOf(request: Request): string | null {
  const match = request.headers.get("authorization")?.match(/^Bearer\s+(\S+)\s*$/i);
  return match?.[1] ?? null;
}

/**
 * The team a key names: `mem_<teamId>_<secret>` with a well-formed team id and a non-empty secret, read
 * exactly as src/teams/directory.ts's teamIdOfApiKey reads it. Only the shape is checked here: the
 * container still authenticates the key against storage.
 */
export function teamIdOfKey(key: string): string | null {
  const match = /^mem_([^_]+)_[\s\S]+$/.exec(key);
  const teamId = match?.[1];
  return teamId !== undefined && teamIdPattern.test(teamId) ? teamId : null;
}

/** Where a request goes. The path is read as the app's router reads it (hono's getPath). */
export function classify(request: Request): Route {
  const path = getPath(request);
  if (servicePaths.has(path)) return { kind: "service" };
  if (path === "/v1/teams" || path.startsWith("/v1/teams/")) return { kind: "admin" };
  if (path === "/v1/reindex") {
    return request.method === "POST" ? { kind: "reindex" } : { kind: "reject", code: "not_found" };
  }
  const hook = webhookPath.exec(path);
  if (hook) {
    const notion = hook[1] !== undefined;
    const teamId = hook[1] ?? hook[2] ?? "";
    // Not a team id, so not a team: the app answers an unknown team's delivery the same way (Notion's 404).
    if (teamIdPattern.test(teamId)) return { kind: "team", teamId, via: "webhook" };
    return { kind: "reject", code: notion ? "not_found" : "unauthorized" };
  }
  if (path.startsWith("/v1/webhooks/")) return { kind: "reject", code: "not_found" };
  if (path.startsWith("/v1/") || path === "/mcp") {
    const key = bearerOf(request);
    const teamId = key === null ? null : teamIdOfKey(key);
    return teamId ? { kind: "team", teamId, via: "key" } : { kind: "reject", code: "unauthorized" };
  }
  return { kind: "reject", code: "not_found" };
}

// ---- The one error envelope, answered by the Worker itself ----

const statusOfCode = {
  invalid_request: 400,
  unauthorized: 401,
  admin_disabled: 403,
  not_found: 404,
  unavailable: 503,
} as const satisfies Partial<Record<ErrorCode, number>>;
export type WorkerErrorCode = keyof typeof statusOfCode;

export const messages = {
  unauthorized: new DomainError("unauthorized").message,
  adminDisabled: new DomainError("admin_disabled").message,
  notFound: "No such route.",
  unavailable: "The instance for this request is not available; retry shortly.",
} as const;

// As src/http/request-id.ts: a caller's own id is kept when it is short and plain, so one request can be
// traced from the Worker into the container.
const acceptableRequestId = /^[A-Za-z0-9._-]{1,128}$/;

export function requestIdOf(request: Request): string {
  const given = request.headers.get("x-request-id");
  return given && acceptableRequestId.test(given) ? given : crypto.randomUUID();
}

export function errorResponse(code: WorkerErrorCode, message: string, requestId: string): Response {
  return Response.json(
    { error: { code, message, requestId } },
    { status: statusOfCode[code], headers: { "x-request-id": requestId } },
  );
}

// ---- The container's environment ----

/** Variables the container reads, other than the two the Worker fixes. */
const passedThrough = Object.keys(envSchema.shape).filter((name) => name !== "PORT" && name !== "NODE_ENV");

/**
 * The environment a container starts with: every variable src/config.ts reads that the Worker's
 * environment sets (secrets and vars), plus PORT and NODE_ENV. Nothing else of the Worker's environment
 * (its bindings) is passed.
 */
export function containerEnv(env: object): Record<string, string> {
  const source = env as Record<string, unknown>;
  const out: Record<string, string> = { NODE_ENV: "production", PORT: String(CONTAINER_PORT) };
  for (const name of passedThrough) {
    const value = source[name];
    if (typeof value === "string" && value !== "") out[name] = value;
  }
  return out;
}

/**
 * The container's environment checked as the container will check it: src/config.ts's parseConfig, the
 * production rule of src/runtime/local-secrets.ts (with the same message), and one rule of this runtime —
 * a container's disk is lost when it sleeps, so storage must be remote or a replica of a remote primary.
 * Throws ConfigError.
 */
export function checkContainerEnv(env: object): Config {
  const config = parseConfig(containerEnv(env));
  if (!config.masterKey) {
    throw new ConfigError("Invalid configuration: MEMORIA_MASTER_KEY is required in production.");
  }
  if (config.db.url.startsWith("file:") && config.db.syncUrl === null) {
    throw new ConfigError(
      "Invalid configuration: MEMORIA_DB_URL must be a libsql://, https:// or wss:// URL on Cloudflare " +
        "(a container's disk is lost when it sleeps), or a file: replica with MEMORIA_DB_SYNC_URL.",
    );
  }
  return config;
}

// ---- Reindex ----

/**
 * The team a `POST /v1/reindex` body names: null for no body or no teamId (every active team), or a
 * message when the body is not what the route takes.
 */
export function reindexTarget(body: string): { teamId: string | null } | { invalid: string } {
  if (body.trim() === "") return { teamId: null };
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return { invalid: "Malformed JSON in request body." };
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    return { invalid: "Invalid request: body: must be an object." };
  }
  // The same rules as the container's own route (src/routes/reindex.ts): only teamId, and a team id's form.
  if (Object.keys(parsed).some((k) => k !== "teamId")) {
    return { invalid: "Invalid request: the body may hold only teamId." };
  }
  const teamId = (parsed as { teamId?: unknown }).teamId;
  if (teamId === undefined) return { teamId: null };
  if (typeof teamId !== "string" || !teamIdPattern.test(teamId)) {
    return { invalid: "Invalid request: teamId: must be a team id." };
  }
  return { teamId };
}

export interface PingResult {
  teamId: string;
  /** The instance's answer when it was 2xx JSON, else null. */
  answer: unknown;
  /** The instance's status, or 0 when it could not be reached. */
  status: number;
}

/** One answer from several instances: their `teams` lists joined, in the order the teams were asked. */
export function mergeReindexAnswers(
  results: PingResult[],
  tookMs: number,
): { teams: unknown[]; tookMs: number } {
  const teams: unknown[] = [];
  for (const { answer } of results) {
    const list = (answer as { teams?: unknown } | null)?.teams;
    if (Array.isArray(list)) teams.push(...list);
  }
  return { teams, tookMs };
}

/** Runs `task` over `items`, at most `limit` at a time, keeping the order of `items` in the results. */
export async function mapLimit<T, R>(
  items: readonly T[],
  limit: number,
  task: (item: T) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const run = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await task(items[i] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, run));
  return results;
}

// ---- Recording active teams ----

/**
 * Per-isolate memory of when each team was last recorded, so a busy team costs the registry one write a
 * minute per isolate rather than one per request. Bounded: past `maxTeams` it starts over, which at worst
 * records a team again early.
 */
export class RecordThrottle {
  readonly #last = new Map<string, number>();

  constructor(
    private readonly intervalMs = RECORD_INTERVAL_MS,
    private readonly maxTeams = 10_000,
  ) {}

  /** True when `teamId` should be recorded now; marks it recorded. */
  take(teamId: string, now: number): boolean {
    const last = this.#last.get(teamId);
    if (last !== undefined && now - last < this.intervalMs) return false;
    if (this.#last.size >= this.maxTeams) this.#last.clear();
    this.#last.set(teamId, now);
    return true;
  }

  /** Forgets a mark whose write failed, so the next request tries again. */
  release(teamId: string): void {
    this.#last.delete(teamId);
  }
}

// ---- The registry of active teams ----

/** The part of a Durable Object's SQLite storage (`ctx.storage.sql`) the registry uses. */
export interface SqlExec {
  exec(query: string, ...bindings: (string | number)[]): { toArray(): Record<string, unknown>[] };
}

/** Rows of teams not seen for this long are dropped. */
export const REGISTRY_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;

/**
 * Per team id, when the Worker last saw a successful request for it: the list the cron pings. Only ids and
 * times, never team data or keys. Backs the ActiveTeams Durable Object in src/runtime/worker.ts.
 */
export class TeamRegistry {
  constructor(private readonly sql: SqlExec) {
    sql.exec(
      "CREATE TABLE IF NOT EXISTS seen (team_id TEXT PRIMARY KEY, last_seen INTEGER NOT NULL) WITHOUT ROWID",
    );
  }

  /** Records a team as seen at `at` (ms since the epoch); a later time is never moved back. */
  seen(teamId: string, at: number): void {
    if (!teamIdPattern.test(teamId) || !Number.isSafeInteger(at)) return;
    this.sql.exec(
      "INSERT INTO seen (team_id, last_seen) VALUES (?, ?) " +
        "ON CONFLICT (team_id) DO UPDATE SET last_seen = max(last_seen, excluded.last_seen)",
      teamId,
      at,
    );
  }

  /** Teams seen at or after `since`, by id; rows past the retention are dropped on the way. */
  list(since: number): string[] {
    this.sql.exec("DELETE FROM seen WHERE last_seen < ?", since - REGISTRY_RETENTION_MS);
    return this.sql
      .exec("SELECT team_id FROM seen WHERE last_seen >= ? ORDER BY team_id", since)
      .toArray()
      .map((row) => String(row.team_id));
  }
}
