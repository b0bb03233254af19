// What the Worker needs of its Cloudflare bindings, as plain interfaces: src/runtime/worker.ts provides them
// from `env` (the containers' and the registry's Durable Object namespaces); the tests provide stand-ins.
// Everything else under src/runtime/worker/ is written against these, so it compiles and runs anywhere.

/** One container instance: a request sent to it starts it if it sleeps. */
export interface Instance {
  fetch(request: Request): Promise<Response>;
}

/** The registry of active teams (the ActiveTeams Durable Object over TeamRegistry). */
export interface ActiveTeamsClient {
  seen(teamId: string, at: number): Promise<void>;
  list(since: number): Promise<string[]>;
}

export interface WorkerBindings {
  /** The container instance called `name`: a team id, or ADMIN_INSTANCE. */
  instance(name: string): Instance;
  activeTeams(): ActiveTeamsClient;
}
