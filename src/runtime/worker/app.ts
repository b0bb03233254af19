// The Cloudflare Worker's fetch handler: a Hono app on the same edge as memoria's own (src/http's request
// id, security headers, bearer and token checks, error envelope and onError), that answers what it can without waking a
// container and forwards everything else to the instance classify() names. It never touches storage; the
// container image runs the full app.

import { type Context, Hono } from "hono";
import { getPath } from "hono/utils/url";
import { type Config, ConfigError } from "../../config.js";
import { DomainError } from "../../errors.js";
import { bearerToken, requireAdminToken, requireCronOrAdminToken } from "../../http/bearer.js";
import { onError } from "../../http/errors.js";
import { mcpChallenge } from "../../http/mcp-challenge.js";
import { type RequestIdEnv, requestId } from "../../http/request-id.js";
import { securityHeaders } from "../../http/security-headers.js";
import { type RecordThrottle, recordSeen } from "./active-teams.js";
import type { WorkerBindings } from "./bindings.js";
import type { CheckedEnvironments } from "./container.js";
import { failuresOf, mergeReindexAnswers, pingActiveTeams, reindexTarget } from "./fanout.js";
import { errorName, logLine, workerLogger } from "./log.js";
import { ADMIN_INSTANCE, classify } from "./routing.js";

export interface WorkerAppEnv<B extends object> {
  Bindings: B;
  Variables: RequestIdEnv["Variables"] & {
    /** The environment, checked as the container will check it. */
    config: Config;
    bindings: WorkerBindings;
  };
}

export interface WorkerAppDeps<B extends object> {
  /** The environment checks, shared with the cron (once per environment object). */
  environments: CheckedEnvironments;
  /** Per isolate: how often a team is recorded as active. */
  throttle: RecordThrottle;
  /** The container instances and the registry, from the Worker's environment. */
  bindingsOf(env: B): WorkerBindings;
}

/** The Worker's own answer when an instance cannot be reached or started (never the error's text). */
export const INSTANCE_UNAVAILABLE = "The instance for this request is not available; retry shortly.";

type WorkerContext<B extends object> = Context<WorkerAppEnv<B>>;

export function createWorkerApp<B extends object>(deps: WorkerAppDeps<B>): Hono<WorkerAppEnv<B>> {
  const app = new Hono<WorkerAppEnv<B>>();
  app.use("*", requestId());
  // The app's own headers on every answer: the Worker's (401, 404, 503) and a container's it forwards.
  app.use("*", securityHeaders());
  app.use("*", async (c, next) => {
    const config = deps.environments.of(c.env);
    // A bad environment would stop every container at start: say why here, and start none.
    if (config instanceof ConfigError) throw new DomainError("unavailable", config.message);
    c.set("config", config);
    c.set("bindings", deps.bindingsOf(c.env));
    await next();
  });

  app.all("*", async (c) => {
    const route = classify(c.req.raw);
    const { config } = c.var;
    switch (route.kind) {
      case "reject":
        // /mcp's 401 tells an MCP client where to sign in, as the container's does.
        if (getPath(c.req.raw) === "/mcp")
          c.set("bearerChallenge", mcpChallenge(c, c.req.header("authorization") !== undefined));
        throw route.code === "unauthorized"
          ? new DomainError("unauthorized")
          : new DomainError("not_found", "No such route.");
      case "service":
        return forward(c, ADMIN_INSTANCE, c.req.raw);
      case "admin":
        // The container checks the token too; checking it here keeps a wrong one from waking the instance.
        await requireAdminToken(bearerToken(c.req.header("authorization")), config.adminToken);
        return forward(c, ADMIN_INSTANCE, c.req.raw);
      case "reindex":
        return reindex(c);
      case "team": {
        const response = await forward(c, route.teamId, c.req.raw);
        // Only a success proves the key (or the webhook's signature) was good: a forged team id never
        // enters the registry, so the cron never wakes a container for it.
        if (response.status >= 200 && response.status <= 299) {
          const { bindings } = c.var;
          const write = recordSeen(() => bindings.activeTeams(), deps.throttle, route.teamId, Date.now());
          if (write) c.executionCtx.waitUntil(write);
        }
        return response;
      }
    }
  });

  app.onError(onError(workerLogger()));
  return app;
}

/** Forwards to a named instance with the request id; an instance that cannot start is a 503. */
async function forward<B extends object>(
  c: WorkerContext<B>,
  name: string,
  request: Request,
): Promise<Response> {
  const requestId = c.var.requestId;
  const headers = new Headers(request.headers);
  headers.set("x-request-id", requestId);
  try {
    return await c.var.bindings.instance(name).fetch(new Request(request, { headers }));
  } catch (error) {
    logLine("error", "instance unavailable", { requestId, error: errorName(error) });
    throw new DomainError("unavailable", INSTANCE_UNAVAILABLE);
  }
}

/** `POST /v1/reindex`: the named team's instance, or every active team's, answered as one. */
async function reindex<B extends object>(c: WorkerContext<B>): Promise<Response> {
  const { config, requestId } = c.var;
  const given = bearerToken(c.req.header("authorization"));
  await requireCronOrAdminToken(given, config.cronToken, config.adminToken);

  // Read to find the team, then forwarded as the same bytes.
  const request = c.req.raw;
  const body = await request.arrayBuffer();
  const target = reindexTarget(new TextDecoder().decode(body));
  if ("invalid" in target) throw new DomainError("invalid_request", target.invalid);
  if (target.teamId !== null) {
    const forwarded = new Request(request.url, { method: "POST", headers: request.headers, body });
    return forward(c, target.teamId, forwarded);
  }

  const started = Date.now();
  const results = await pingActiveTeams(c.var.bindings, `Bearer ${given}`, requestId);
  const failed = failuresOf(results);
  if (failed.length > 0) {
    throw new DomainError(
      "unavailable",
      `Reindex failed on ${failed.length} of ${results.length} team instances: ${failed.map((r) => r.teamId).join(", ")}.`,
    );
  }
  return c.json(mergeReindexAnswers(results, Date.now() - started));
}
