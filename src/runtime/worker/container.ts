// The environment each container instance starts with, and its check: the Worker runs the container's own
// parser over it before forwarding, so a bad environment is answered once, by the Worker, instead of by
// every container failing to start.

import { type Config, ConfigError, envSchema, parseConfig } from "../../config.js";

/** The port the container's Node server listens on (passed to it as PORT). */
export const CONTAINER_PORT = 8080;

/**
 * The variables the Worker fixes: the container listens on every interface of its port (the Worker reaches it
 * from outside), in production. A MEMORIA_HOST copied into the Worker's vars from a local set-up (127.0.0.1)
 * would otherwise make every container unreachable. Every request reaches a container through the Worker,
 * from one internal address, so the client's address is the one Cloudflare's edge writes into
 * `cf-connecting-ip` (a client cannot set it: the edge replaces it); without this, all of a team's clients
 * would share one budget of failed authentications.
 */
const fixed = {
  NODE_ENV: "production",
  PORT: String(CONTAINER_PORT),
  MEMORIA_HOST: "0.0.0.0",
  MEMORIA_TRUST_PROXY: "cf-connecting-ip",
};

/** Variables the container reads, other than those the Worker fixes. */
const passedThrough = Object.keys(envSchema.shape).filter((name) => !(name in fixed));

/**
 * The environment a container starts with: every variable src/config.ts reads that the Worker's
 * environment sets (secrets and vars), plus the fixed ones above. Nothing else of the Worker's environment
 * (its bindings) is passed.
 */
export function containerEnv(env: object): Record<string, string> {
  const source = env as Record<string, unknown>;
  const out: Record<string, string> = { ...fixed };
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

/**
 * checkContainerEnv once per environment object (an isolate keeps the same one): the config, or the
 * ConfigError that says why there is none.
 */
export class CheckedEnvironments {
  readonly #checked = new WeakMap<object, Config | ConfigError>();

  of(env: object): Config | ConfigError {
    let result = this.#checked.get(env);
    if (!result) {
      try {
        result = checkContainerEnv(env);
      } catch (error) {
        if (!(error instanceof ConfigError)) throw error;
        result = error;
      }
      this.#checked.set(env, result);
    }
    return result;
  }
}
