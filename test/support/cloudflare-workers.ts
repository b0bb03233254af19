// Stand-ins for the two classes `@cloudflare/containers` imports from `cloudflare:workers`, which exists only
// inside workerd. vitest.config.ts maps the module here, so the Worker's code loads under Node and its tests
// hand it a context and an environment of their own.

export class DurableObject<Env = unknown> {
  protected readonly ctx: unknown;
  protected readonly env: Env;

  constructor(ctx: unknown, env: Env) {
    this.ctx = ctx;
    this.env = env;
  }
}

export class WorkerEntrypoint<Env = unknown, Props = unknown> {
  protected readonly ctx: { props?: Props } | undefined;
  protected readonly env: Env;

  constructor(ctx: { props?: Props } | undefined, env: Env) {
    this.ctx = ctx;
    this.env = env;
  }
}
