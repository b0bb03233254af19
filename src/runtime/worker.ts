// memoria on Cloudflare: this Worker in front of container instances running the Node image (./Dockerfile).
// Each request goes to the instance of its team (the id read from the key's `mem_<teamId>_` prefix or the
// webhook path); admin, health and the API description go to one fixed instance. A cron sends the
// reindex ping to every team seen in the last hour, listed by the ActiveTeams registry.
//
// The Worker imports nothing native and never touches storage: it reads headers and paths, checks the
// environment with the container's own parser, and forwards. Decisions: docs/decisions/0012-worker-routing.md.

import { DurableObject } from "cloudflare:workers";
import { Container, getContainer } from "@cloudflare/containers";
import { type Config, ConfigError } from "../config.js";
import { tokensEqual } from "../seal/secret.js";
import {
  ACTIVE_WINDOW_MS,
  ADMIN_INSTANCE,
  bearerOf,
  CONTAINER_PORT,
  checkContainerEnv,
  classify,
  containerEnv,
  errorResponse,
  FANOUT_CONCURRENCY,
  mapLimit,
  mergeReindexAnswers,
  messages,
  type PingResult,
  RecordThrottle,
  reindexTarget,
  requestIdOf,
  TeamRegistry,
} from "./worker-routing.js";

/** One team's memoria (or, under the name "admin", the fixed instance): the Node image on port 8080. */
export class MemoriaContainer extends Container<Env> {
  override defaultPort = CONTAINER_PORT;
  // A cold start reopens storage and rebuilds the team's index from sealed rows, which is the expensive part
  // of a first request. Fifteen minutes keeps an instance through the pauses of a working session, and the
  // cron's ping every 5 minutes (to teams seen in the last hour) keeps it a while longer after that; an
  // idle team then sleeps and costs nothing.
  override sleepAfter = "15m";
  // Storage (Turso / sqld) and Notion are on the internet.
  override enableInternet = true;
  // Readiness: the port answers, and /healthz is the route that answers without storage.
  override pingEndpoint = "container/healthz";
  // Built from the Worker's secrets and vars, as the Worker checked them before forwarding.
  override envVars = containerEnv(this.env);
}

/**
 * The registry of active teams: one SQLite-backed instance (named "registry") over TeamRegistry, which the
 * Worker tells about each team with a successful request and the cron asks which teams to ping.
 */
export class ActiveTeams extends DurableObject<Env> {
  readonly #registry: TeamRegistry;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.#registry = new TeamRegistry(ctx.storage.sql);
  }

  seen(teamId: string, at: number): void {
    this.#registry.seen(teamId, at);
  }

  list(since: number): string[] {
    return this.#registry.list(since);
  }
}

const REGISTRY = "registry";

function registry(env: Env): DurableObjectStub<ActiveTeams> {
  return env.ACTIVE_TEAMS.get(env.ACTIVE_TEAMS.idFromName(REGISTRY));
}

// The environment is checked once per environment object (an isolate keeps the same one).
const checked = new WeakMap<object, Config | ConfigError>();

function configOf(env: Env): Config | ConfigError {
  let result = checked.get(env);
  if (!result) {
    try {
      result = checkContainerEnv(env);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      result = error;
    }
    checked.set(env, result);
  }
  return result;
}

const throttle = new RecordThrottle();

/** Forwards to a named instance; an instance that cannot start is a 503 in the envelope, not a thrown error. */
async function forward(env: Env, name: string, request: Request, requestId: string): Promise<Response> {
  const headers = new Headers(request.headers);
  headers.set("x-request-id", requestId);
  try {
    return await getContainer(env.MEMORIA, name).fetch(new Request(request, { headers }));
  } catch (error) {
    console.error(JSON.stringify({ msg: "instance unavailable", requestId, error: errorName(error) }));
    return errorResponse("unavailable", messages.unavailable, requestId);
  }
}

/** Tells the registry a team had a successful request, at most once a minute per isolate. */
function record(env: Env, ctx: ExecutionContext, teamId: string): void {
  const now = Date.now();
  if (!throttle.take(teamId, now)) return;
  ctx.waitUntil(
    registry(env)
      .seen(teamId, now)
      .catch((error: unknown) => {
        throttle.release(teamId);
        console.error(JSON.stringify({ msg: "registry write failed", error: errorName(error) }));
      }),
  );
}

/** POST /v1/reindex to one team's instance, with the given credentials. */
async function pingTeam(
  env: Env,
  teamId: string,
  authorization: string,
  requestId: string,
): Promise<PingResult> {
  const request = new Request("http://memoria/v1/reindex", {
    method: "POST",
    headers: { authorization, "content-type": "application/json", "x-request-id": requestId },
    body: JSON.stringify({ teamId }),
  });
  try {
    const response = await getContainer(env.MEMORIA, teamId).fetch(request);
    const answer = response.ok ? await response.json().catch(() => null) : null;
    if (!response.ok) await response.body?.cancel();
    return { teamId, answer, status: response.status };
  } catch {
    return { teamId, answer: null, status: 0 };
  }
}

/** Pings every team the registry lists as active; returns each answer in the registry's order. */
async function pingActiveTeams(env: Env, authorization: string, requestId: string): Promise<PingResult[]> {
  const teams = await registry(env).list(Date.now() - ACTIVE_WINDOW_MS);
  return mapLimit(teams, FANOUT_CONCURRENCY, (teamId) => pingTeam(env, teamId, authorization, requestId));
}

function failuresOf(results: PingResult[]): PingResult[] {
  return results.filter((r) => r.status < 200 || r.status > 299);
}

async function reindex(request: Request, env: Env, config: Config, requestId: string): Promise<Response> {
  // The cron token, or the admin token as the API allows; both compared in constant time, always both.
  const given = bearerOf(request) ?? "";
  const [cron, admin] = await Promise.all([
    config.cronToken !== null && tokensEqual(given, config.cronToken),
    config.adminToken !== null && tokensEqual(given, config.adminToken),
  ]);
  if (given === "" || !(cron || admin))
    return errorResponse("unauthorized", messages.unauthorized, requestId);

  // Read to find the team, then forwarded as the same bytes.
  const body = await request.arrayBuffer();
  const target = reindexTarget(new TextDecoder().decode(body));
  if ("invalid" in target) return errorResponse("invalid_request", target.invalid, requestId);
  const authorization = `Bearer ${given}`;
  if (target.teamId !== null) {
    const forwarded = new Request(request.url, { method: "POST", headers: request.headers, body });
    return forward(env, target.teamId, forwarded, requestId);
  }

  const started = Date.now();
  const results = await pingActiveTeams(env, authorization, requestId);
  const failed = failuresOf(results);
  if (failed.length > 0) {
    return errorResponse(
      "unavailable",
      `Reindex failed on ${failed.length} of ${results.length} team instances: ${failed.map((r) => r.teamId).join(", ")}.`,
      requestId,
    );
  }
  return Response.json(mergeReindexAnswers(results, Date.now() - started), {
    headers: { "x-request-id": requestId },
  });
}

async function fetch(request: Request, env: Env, ctx: ExecutionContext): Promise<Response> {
  const requestId = requestIdOf(request);
  const config = configOf(env);
  // A bad environment would stop every container at start: say why here, and start none.
  if (config instanceof ConfigError) return errorResponse("unavailable", config.message, requestId);

  const route = classify(request);
  switch (route.kind) {
    case "reject":
      return route.code === "unauthorized"
        ? errorResponse("unauthorized", messages.unauthorized, requestId)
        : errorResponse("not_found", messages.notFound, requestId);
    case "service":
      return forward(env, ADMIN_INSTANCE, request, requestId);
    case "admin": {
      // The container checks the token too; checking it here keeps a wrong one from waking the instance.
      if (config.adminToken === null)
        return errorResponse("admin_disabled", messages.adminDisabled, requestId);
      const given = bearerOf(request);
      if (given === null || !(await tokensEqual(given, config.adminToken))) {
        return errorResponse("unauthorized", messages.unauthorized, requestId);
      }
      return forward(env, ADMIN_INSTANCE, request, requestId);
    }
    case "reindex":
      return reindex(request, env, config, requestId);
    case "team": {
      const response = await forward(env, route.teamId, request, requestId);
      // Only a success proves the key (or the webhook's signature) was good: a forged team id never
      // enters the registry, so the cron never wakes a container for it.
      if (response.status >= 200 && response.status <= 299) record(env, ctx, route.teamId);
      return response;
    }
  }
}

async function scheduled(_controller: ScheduledController, env: Env, _ctx: ExecutionContext): Promise<void> {
  const config = configOf(env);
  if (config instanceof ConfigError) throw new Error(`Reindex ping skipped: ${config.message}`);
  if (config.cronToken === null) throw new Error("Reindex ping skipped: MEMORIA_CRON_TOKEN is not set.");
  const started = Date.now();
  const results = await pingActiveTeams(env, `Bearer ${config.cronToken}`, `cron-${crypto.randomUUID()}`);
  const failed = failuresOf(results);
  console.log(
    JSON.stringify({
      msg: "reindex ping",
      teams: results.length,
      failed: failed.map((r) => ({ teamId: r.teamId, status: r.status })),
      tookMs: Date.now() - started,
    }),
  );
  // A failed ping fails the cron run, so it shows in the dashboard; every team was still asked.
  if (failed.length > 0)
    throw new Error(`Reindex ping failed on ${failed.length} of ${results.length} teams.`);
}

function errorName(error: unknown): string {
  return error instanceof Error ? error.name : "unknown";
}

export default { fetch, scheduled } satisfies ExportedHandler<Env>;
