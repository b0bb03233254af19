// What GET /metrics exposes, in Prometheus text: requests, index builds, what the indexes hold, storage
// errors and rate-limited answers. Each app has its own prom-client Registry (never the global default one),
// so a test process may build many apps and each reports only its own.
//
// Content-free by construction: the only labels are the HTTP method, the route *pattern* (hono's routePath,
// never the URL, whose path and query carry ids and queries), the status, and fixed names of our own (which
// limit). No team id, title, query or content id ever becomes a label or a value.

import { Counter, Gauge, Histogram, Registry } from "prom-client";
import type { LiveIndexes } from "../live/indexes.js";

// Request latency buckets in seconds: a warm search answers in about a millisecond, a cold one waits for a
// build (seconds), an upload of a large document takes longer still.
const REQUEST_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

// Index build buckets in seconds: a small team builds in milliseconds; 10,000 documents take seconds; the
// top buckets leave room for the largest teams docs/scaling.md describes.
const BUILD_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];

/** A thrown error that came from storage: libSQL's own error types, directly or as a cause. */
export function isStorageError(error: unknown): boolean {
  let current: unknown = error;
  // Three levels is deeper than any wrapping in this code base; the bound keeps a cyclic cause finite.
  for (let depth = 0; depth < 3 && current instanceof Error; depth += 1) {
    if (current.name === "LibsqlError" || current.name === "LibsqlBatchError") return true;
    current = current.cause;
  }
  return false;
}

/** One answered request, as the HTTP edge reports it (src/http/metrics.ts checks the shape where it is used). */
export interface ObservedRequest {
  method: string;
  route: string;
  status: number;
  seconds: number;
  /** The error the request ended with, if any. */
  error: unknown;
}

/** The limits src/http/rate-limit.ts enforces, as the label of the answers each refused. */
export type LimitLabel = "credential" | "auth_failures";

export class Metrics {
  readonly registry = new Registry();
  readonly #requests: Counter<"method" | "route" | "status">;
  readonly #latency: Histogram<"method" | "route" | "status">;
  readonly #storageErrors: Counter;
  readonly #rateLimited: Counter<"limit">;
  readonly #builds: Counter;
  readonly #buildSeconds: Histogram;
  // Each loaded team's last build time seen at a scrape. Builds are counted by comparing it at each scrape
  // (LiveIndexes reports the last build of each team, not every build), so two builds of one team between
  // two scrapes count as one. Team ids stay in this map; they never reach a label.
  readonly #seenBuilds = new Map<string, string>();

  constructor(private readonly indexes: LiveIndexes) {
    const registers = [this.registry];
    this.#requests = new Counter({
      name: "memoria_http_requests_total",
      help: "HTTP requests answered, by method, route pattern and status.",
      labelNames: ["method", "route", "status"],
      registers,
    });
    this.#latency = new Histogram({
      name: "memoria_http_request_duration_seconds",
      help: "Time to answer an HTTP request, by method, route pattern and status.",
      labelNames: ["method", "route", "status"],
      buckets: REQUEST_BUCKETS,
      registers,
    });
    this.#storageErrors = new Counter({
      name: "memoria_storage_errors_total",
      help: "Requests that failed with an error from storage (libSQL).",
      registers,
    });
    this.#rateLimited = new Counter({
      name: "memoria_rate_limited_total",
      help: "Requests answered 429, by limit: credential (MEMORIA_RATE_LIMIT) or auth_failures (per address).",
      labelNames: ["limit"],
      registers,
    });
    this.#builds = new Counter({
      name: "memoria_index_builds_total",
      help: "Team index builds finished (seen at scrapes: two builds of one team between scrapes count once).",
      registers,
    });
    this.#buildSeconds = new Histogram({
      name: "memoria_index_build_seconds",
      help: "Time a team index build took.",
      buckets: BUILD_BUCKETS,
      registers,
    });
    new Gauge({
      name: "memoria_teams_loaded",
      help: "Teams whose indexes this instance holds (built or being built).",
      registers,
      collect: function () {
        this.set(indexes.loadedTeams().length);
      },
    });
    // The estimate the memory budget (MEMORIA_INDEX_MEMORY_MB) is held to, and the budget itself.
    new Gauge({
      name: "memoria_index_memory_bytes",
      help: "Estimated bytes of the loaded indexes (their database pages plus a fixed overhead), summed over teams.",
      registers,
      collect: function () {
        this.set(indexes.memoryBytes());
      },
    });
    new Gauge({
      name: "memoria_index_memory_budget_bytes",
      help: "The index memory budget: over it, the least recently used teams' indexes close. +Inf when none.",
      registers,
      collect: function () {
        this.set(indexes.memoryBudgetBytes());
      },
    });
    // What the indexes hold, summed over teams: the measure of index memory LiveIndexes can give (docs/
    // scaling.md turns chunks into bytes).
    for (const [part, help] of [
      ["documents", "Documents in the loaded passage indexes, summed over teams."],
      ["chunks", "Passages (chunks) in the loaded passage indexes, summed over teams."],
      ["entries", "Memory entries in the loaded entry indexes, summed over teams."],
    ] as const) {
      new Gauge({
        name: `memoria_index_${part}`,
        help,
        registers,
        collect: function () {
          this.set(indexes.heldCounts()[part]);
        },
      });
    }
    // Rows the indexes left out because they did not open (a wrong key, a row copied from elsewhere): the
    // answers say so per team; this says so to whoever watches the instance, by kind and never by team.
    new Gauge({
      name: "memoria_index_unreadable_rows",
      help: "Stored rows the loaded indexes left out because they failed to open, summed over teams.",
      labelNames: ["kind"],
      registers,
      collect: function () {
        let documents = 0;
        let entries = 0;
        for (const teamId of indexes.loadedTeams()) {
          const counts = indexes.unreadableCounts(teamId);
          documents += counts?.documents ?? 0;
          entries += counts?.entries ?? 0;
        }
        this.set({ kind: "documents" }, documents);
        this.set({ kind: "entries" }, entries);
      },
    });
  }

  /** Records one answered request. */
  observeRequest({ method, route, status, seconds, error }: ObservedRequest): void {
    const labels = { method, route, status: String(status) };
    this.#requests.inc(labels);
    this.#latency.observe(labels, seconds);
    if (isStorageError(error)) this.#storageErrors.inc();
  }

  rateLimited(limit: LimitLabel): void {
    this.#rateLimited.inc({ limit });
  }

  /** The exposition text, with the index builds finished since the last scrape counted first. */
  async scrape(): Promise<{ contentType: string; text: string }> {
    this.#countBuilds();
    return { contentType: this.registry.contentType, text: await this.registry.metrics() };
  }

  #countBuilds(): void {
    const loaded = new Set(this.indexes.loadedTeams());
    for (const teamId of this.#seenBuilds.keys()) if (!loaded.has(teamId)) this.#seenBuilds.delete(teamId);
    for (const teamId of loaded) {
      const { builtAt, buildMs } = this.indexes.status(teamId);
      if (builtAt === null || this.#seenBuilds.get(teamId) === builtAt) continue;
      this.#seenBuilds.set(teamId, builtAt);
      this.#builds.inc();
      if (buildMs !== null) this.#buildSeconds.observe(buildMs / 1000);
    }
  }
}
