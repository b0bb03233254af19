// memoria on Cloudflare: this Worker in front of container instances running the Node image (./Dockerfile).
// Each request goes to the instance of its team (the id read from the key's `mem_<teamId>_` prefix or the
// webhook path); admin, health and the API description go to one fixed instance. A cron sends the
// reindex ping to every team seen in the last hour, listed by the ActiveTeams registry.
//
// This file is the entry wrangler.toml names: the two Durable Object classes it binds, and the Worker's
// handlers wired to them. What the Worker decides is in src/runtime/worker/ (the app, routing, the
// registry, the fan-out), written against plain interfaces so it runs and is tested anywhere. The Worker
// imports nothing native and never touches storage. Decisions: docs/decisions/0012-worker-routing.md.

import { DurableObject } from "cloudflare:workers";
import { Container, getContainer } from "@cloudflare/containers";
import { RecordThrottle, TeamRegistry } from "./worker/active-teams.js";
import { createWorkerApp } from "./worker/app.js";
import type { WorkerBindings } from "./worker/bindings.js";
import { CheckedEnvironments, CONTAINER_PORT, containerEnv } from "./worker/container.js";
import { cronReindex } from "./worker/fanout.js";

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

function bindingsOf(env: Env): WorkerBindings {
  return {
    instance: (name) => getContainer(env.MEMORIA, name),
    activeTeams: () => env.ACTIVE_TEAMS.get(env.ACTIVE_TEAMS.idFromName(REGISTRY)),
  };
}

// Per isolate: the environment checked once per environment object, and the registry's write throttle.
const environments = new CheckedEnvironments();
const app = createWorkerApp<Env>({ environments, throttle: new RecordThrottle(), bindingsOf });

export default {
  fetch: app.fetch,
  scheduled: (_controller: ScheduledController, env: Env, _ctx: ExecutionContext) =>
    cronReindex(environments.of(env), bindingsOf(env)),
} satisfies ExportedHandler<Env>;
