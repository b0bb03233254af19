// The environment, parsed once at start. A value that does not parse stops the start with a message that
// names the variable; nothing reads the environment after this.

import { z } from "zod";
import { decodeMasterKey, MASTER_KEY_BYTES } from "./seal/master.js";
import { ALL_TUNING_ON, type Tuning, tuningOffSchema } from "./tuning.js";

/**
 * MEMORIA_STORAGE_TIMEOUT_MS's default: ten seconds is far past any query memoria makes on healthy storage (a
 * batch of 500 documents is one request), and short enough that a request never hangs on storage that has gone.
 */
export const STORAGE_TIMEOUT_MS = 10_000;

/**
 * A batch body's bytes, counted as they arrive. 8× what `memoria import` sends a request (8 MiB), a dozen
 * documents at the 5 MiB limit. A 62.7 MiB batch raised the server's peak RSS by 346 MiB (5.5× its bytes:
 * the bytes, their text twice, the parsed items; one run), where the old bound (500 × a document body's
 * limit, ~15 GiB) let one request take the process down.
 */
export const DEFAULT_MAX_BATCH_BYTES = 64 * 1024 * 1024;

export const logLevels = ["debug", "info", "warn", "error"] as const;
export type LogLevel = (typeof logLevels)[number];

const masterKey = z.string().transform((value, ctx) => {
  const bytes = decodeMasterKey(value);
  if (!bytes) {
    ctx.addIssue({ code: "custom", message: `must be ${MASTER_KEY_BYTES} bytes in base64 or base64url` });
    return z.NEVER;
  }
  return bytes;
});

const positiveInt = (fallback: number) =>
  z
    .string()
    .regex(/^\d+$/, "must be a whole number")
    .transform(Number)
    .pipe(z.number().int().positive().max(Number.MAX_SAFE_INTEGER))
    .default(fallback);

// A header name as HTTP defines a token (RFC 9110 §5.1), compared lower-case as headers are.
const headerName = z
  .string()
  .regex(
    /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/,
    "must be a header name, such as cf-connecting-ip or x-forwarded-for",
  )
  // Express's `trust proxy` takes booleans and hop counts; here they would name a header no proxy sends.
  .refine(
    (name) => !/^(true|false|yes|no|on|off|\d+)$/i.test(name),
    "must name the header, not true or a number",
  )
  .transform((name) => name.toLowerCase());

// Browser origins as a browser sends them: scheme, host and port, nothing more ("https://app.example.com").
const originList = z.string().transform((value, ctx) => {
  const origins: string[] = [];
  for (const item of value.split(",").map((part) => part.trim())) {
    if (item === "") continue;
    const url = URL.canParse(item) ? new URL(item) : null;
    const isOrigin =
      url !== null &&
      (url.protocol === "http:" || url.protocol === "https:") &&
      url.pathname === "/" &&
      url.search === "" &&
      url.hash === "" &&
      url.username === "" &&
      url.password === "" &&
      !item.endsWith("?") &&
      !item.endsWith("#");
    if (!url || !isOrigin) {
      ctx.addIssue({
        code: "custom",
        message: "must be a comma-separated list of origins such as https://app.example.com",
      });
      return z.NEVER;
    }
    const origin = url.origin;
    origins.push(origin);
  }
  return origins;
});

const dbUrl = z
  .string()
  .regex(
    /^(file:|libsql:\/\/|https?:\/\/|wss?:\/\/)/,
    "must start with file:, libsql://, https:// or wss://",
  );

const ipLiteral = z.union([z.ipv4(), z.ipv6()]);
// A name of digits and dots only is a mistyped IPv4 address (999.1.1.1), not a host name, though DNS syntax
// allows it.
const hostName = z.hostname().regex(/[^\d.]/);
const listenHost = z
  .string()
  .refine((value) => ipLiteral.safeParse(value).success || hostName.safeParse(value).success, {
    message: "must be an IP address (IPv6 without brackets) or a host name",
  });

export const envSchema = z.object({
  NODE_ENV: z.string().optional(),
  PORT: z
    .string()
    .regex(/^\d+$/, "must be a port number")
    .transform(Number)
    .pipe(z.number().int().min(0).max(65535))
    .default(8787),
  // Loopback unless told otherwise: a fresh `npm start` on a laptop should not answer the café's network.
  // The container image sets 0.0.0.0, as a server in a container must to be reached at all.
  MEMORIA_HOST: listenHost.default("127.0.0.1"),
  MEMORIA_DB_URL: dbUrl.default("file:.memoria/memoria.db"),
  MEMORIA_DB_AUTH_TOKEN: z.string().optional(),
  MEMORIA_DB_SYNC_URL: z.url({ message: "must be a URL" }).optional(),
  // An embedded replica pulls the primary's new frames this often. Its own writes go to the primary and are
  // readable at once; another instance's show up within this interval (plus MEMORIA_CATCHUP_MS). Five
  // seconds is one small request per instance, and a lag a person reading search results will not notice.
  MEMORIA_DB_SYNC_INTERVAL: z
    .string()
    .regex(/^\d+$/, "must be a whole number of seconds")
    .transform(Number)
    .pipe(z.number().int().min(1, "must be at least 1 second"))
    .default(5),
  // The longest a request waits on storage once serving; past it, 503 `unavailable` (store/guarded-client.ts).
  MEMORIA_STORAGE_TIMEOUT_MS: z
    .string()
    .regex(/^\d+$/, "must be a whole number of milliseconds")
    .transform(Number)
    .pipe(z.number().int().min(100, "must be at least 100 ms"))
    .default(STORAGE_TIMEOUT_MS),
  MEMORIA_MASTER_KEY: masterKey.optional(),
  MEMORIA_MASTER_KEY_PREVIOUS: masterKey.optional(),
  // 16 characters is the shortest bearer token we accept: shorter ones are guessable online.
  MEMORIA_ADMIN_TOKEN: z.string().min(16, "must be at least 16 characters").optional(),
  MEMORIA_CRON_TOKEN: z.string().min(16, "must be at least 16 characters").optional(),
  MEMORIA_METRICS_TOKEN: z.string().min(16, "must be at least 16 characters").optional(),
  // Requests a minute per credential (team key, admin or cron token); 0 turns the limit off. 1200 is 20 a
  // second, sustained: well above an agent's or an import's pace, far below what one process can answer.
  MEMORIA_RATE_LIMIT: z
    .string()
    .regex(/^\d+$/, "must be a whole number of requests a minute (0 turns it off)")
    .transform(Number)
    .pipe(z.number().int().min(0).max(Number.MAX_SAFE_INTEGER))
    .default(1200),
  MEMORIA_TRUST_PROXY: headerName.optional(),
  MEMORIA_ALLOWED_ORIGINS: originList.optional(),
  MEMORIA_MAX_DOCUMENT_BYTES: positiveInt(5 * 1024 * 1024),
  MEMORIA_MAX_BATCH_BYTES: positiveInt(DEFAULT_MAX_BATCH_BYTES),
  // A PDF or DOCX as it arrives (docs/api.md): 25 MiB, a long scanned-and-OCRed manual or a spec with figures.
  MEMORIA_MAX_UPLOAD_BYTES: positiveInt(25 * 1024 * 1024),
  // The in-memory indexes' budget in MiB. Unset: the server takes a share of the machine (runtime/start.ts),
  // since this file stays free of node:os for the Worker.
  MEMORIA_INDEX_MEMORY_MB: z
    .string()
    .regex(/^[1-9]\d*$/, "must be a whole number of MiB, at least 1")
    .transform(Number)
    .optional(),
  // Passages and entries past which a build writes a sealed index snapshot; 0 snapshots every team. Unset: the
  // default in src/live/snapshot.ts (with why), kept there beside the code it tunes.
  MEMORIA_SNAPSHOT_MIN_CHUNKS: z
    .string()
    .regex(/^\d+$/, "must be a whole number of passages and entries (0 snapshots every team)")
    .transform(Number)
    .pipe(z.number().int().min(0).max(Number.MAX_SAFE_INTEGER))
    .optional(),
  // Pseudo-relevance feedback in search (docs/decisions/0025-feedback.md, 0027-feedback-rescoring.md, and for
  // questions of three words and more, 0036-feedback-by-length.md): better
  // answers, within the long-query latency target, so it is on unless a team's searches must cost no more
  // than the first pass.
  MEMORIA_SEARCH_FEEDBACK: z.enum(["on", "off"]).default("on"),
  MEMORIA_CATCHUP_MS: z
    .string()
    .regex(/^\d+$/, "must be a whole number of milliseconds")
    .transform(Number)
    .default(2000),
  // A team's waiting searches (docs/api.md "Many searches at once"). Two seconds: past it an agent does better to
  // back off and come again than to hold its connection, and a person has stopped waiting for the page.
  // 64 waiting: at the 20–45 ms a long question costs one core on real text, 64 is 1.3–2.9 s of work, so a
  // line longer than that would time out anyway; refusing at once spares it the wait.
  MEMORIA_QUEUE_TIMEOUT_MS: positiveInt(2000),
  MEMORIA_MAX_QUEUE: positiveInt(64),
  // Threads that search at once (docs/scaling.md "Every core"); unset, the server starts one per core
  // (runtime/start.ts), since a search is all CPU. 1 searches on the main thread alone, with no threads.
  MEMORIA_SEARCH_THREADS: z
    .string()
    .regex(/^\d+$/, "must be a whole number")
    .transform(Number)
    .pipe(z.number().int().min(1, "must be at least 1").max(1024, "must be at most 1024"))
    .optional(),
  MEMORIA_NOTION_API_URL: z.url({ message: "must be a URL" }).default("https://api.notion.com"),
  // An organisation's OpenID Connect provider people may join and sign in with (all three, or none). https only:
  // an ID token and a client secret cross this connection.
  MEMORIA_OIDC_ISSUER: z
    .url({ message: "must be a URL" })
    .refine((url) => url.startsWith("https://"), "must be an https:// URL")
    .optional(),
  MEMORIA_OIDC_CLIENT_ID: z.string().min(1).optional(),
  MEMORIA_OIDC_CLIENT_SECRET: z.string().min(1).optional(),
  // Mechanisms of speed or memory to run without (src/tuning.ts): for the bench's A/B, or to rule one out.
  MEMORIA_TUNING_OFF: tuningOffSchema.default(ALL_TUNING_ON),
  MEMORIA_LOG_LEVEL: z.enum(logLevels, { message: `must be one of ${logLevels.join(", ")}` }).default("info"),
});

export interface Config {
  production: boolean;
  /** The address to listen on: an IP literal or a host name. */
  host: string;
  port: number;
  db: {
    url: string;
    authToken: string | null;
    syncUrl: string | null;
    syncIntervalSeconds: number;
    /** MEMORIA_STORAGE_TIMEOUT_MS. */
    timeoutMs: number;
  };
  masterKey: Uint8Array<ArrayBuffer> | null;
  previousMasterKey: Uint8Array<ArrayBuffer> | null;
  adminToken: string | null;
  cronToken: string | null;
  /** Also accepted by GET /metrics, besides the admin token. */
  metricsToken: string | null;
  /** Requests a minute per credential; 0 is no limit. */
  rateLimit: number;
  /** The header a trusted proxy puts the client's address in; null: the socket's peer address. */
  trustProxy: string | null;
  /** Browser origins, besides the server's own on loopback, allowed to call /mcp. */
  allowedOrigins: string[];
  maxDocumentBytes: number;
  /** MEMORIA_MAX_BATCH_BYTES: a batch body's bytes, counted as they arrive. */
  maxBatchBytes: number;
  /** MEMORIA_MAX_UPLOAD_BYTES: the largest PDF or DOCX file, before its text is extracted. */
  maxUploadBytes: number;
  catchupMs: number;
  /** MEMORIA_INDEX_MEMORY_MB; null: the runtime picks a share of the machine. */
  indexMemoryMb: number | null;
  /** MEMORIA_SNAPSHOT_MIN_CHUNKS; null: the live layer's default. */
  snapshotMinChunks: number | null;
  /** MEMORIA_SEARCH_FEEDBACK (on by default): search rescores with pseudo-relevance feedback. */
  searchFeedback: boolean;
  /** MEMORIA_QUEUE_TIMEOUT_MS: how long a search may wait for its turn before it is answered 503. */
  searchQueueTimeoutMs: number;
  /** MEMORIA_MAX_QUEUE: how many of one team's searches may wait; one more is answered 503. */
  searchMaxQueue: number;
  /** MEMORIA_SEARCH_THREADS: threads that search at once (1: the main thread alone); null: one per core. */
  searchThreads: number | null;
  notionApiUrl: string;
  /** MEMORIA_OIDC_ISSUER, _CLIENT_ID, _CLIENT_SECRET: null unless all three are set. */
  oidc: OidcConfig | null;
  logLevel: LogLevel;
  /** MEMORIA_TUNING_OFF: which speed and memory mechanisms run (all unless named). */
  tuning: Tuning;
}

export interface OidcConfig {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Plain-http issuers: only a test's provider on loopback; no environment variable sets it. */
  allowHttp?: boolean;
}

export class ConfigError extends Error {
  override readonly name = "ConfigError";
}

/** Parses an environment. Empty strings count as unset, as a shell's `VAR=` means. */
export function parseConfig(env: Record<string, string | undefined>): Config {
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ""));
  const parsed = envSchema.safeParse(present);
  if (!parsed.success) {
    const lines = parsed.error.issues.map(
      (issue) => `${String(issue.path[0] ?? "environment")} ${issue.message}`,
    );
    throw new ConfigError(`Invalid configuration: ${lines.join("; ")}.`);
  }
  const e = parsed.data;
  const oidcSet = [e.MEMORIA_OIDC_ISSUER, e.MEMORIA_OIDC_CLIENT_ID, e.MEMORIA_OIDC_CLIENT_SECRET].filter(
    (value) => value !== undefined,
  ).length;
  if (oidcSet !== 0 && oidcSet !== 3) {
    throw new ConfigError(
      "Invalid configuration: MEMORIA_OIDC_ISSUER, MEMORIA_OIDC_CLIENT_ID and MEMORIA_OIDC_CLIENT_SECRET go together.",
    );
  }
  if (e.MEMORIA_DB_SYNC_URL && !e.MEMORIA_DB_URL.startsWith("file:")) {
    throw new ConfigError(
      "Invalid configuration: MEMORIA_DB_SYNC_URL needs MEMORIA_DB_URL to be a file: path (the local replica).",
    );
  }
  return {
    production: e.NODE_ENV === "production",
    host: e.MEMORIA_HOST,
    port: e.PORT,
    db: {
      url: e.MEMORIA_DB_URL,
      authToken: e.MEMORIA_DB_AUTH_TOKEN ?? null,
      syncUrl: e.MEMORIA_DB_SYNC_URL ?? null,
      syncIntervalSeconds: e.MEMORIA_DB_SYNC_INTERVAL,
      timeoutMs: e.MEMORIA_STORAGE_TIMEOUT_MS,
    },
    masterKey: e.MEMORIA_MASTER_KEY ?? null,
    previousMasterKey: e.MEMORIA_MASTER_KEY_PREVIOUS ?? null,
    adminToken: e.MEMORIA_ADMIN_TOKEN ?? null,
    cronToken: e.MEMORIA_CRON_TOKEN ?? null,
    metricsToken: e.MEMORIA_METRICS_TOKEN ?? null,
    rateLimit: e.MEMORIA_RATE_LIMIT,
    trustProxy: e.MEMORIA_TRUST_PROXY ?? null,
    allowedOrigins: e.MEMORIA_ALLOWED_ORIGINS ?? [],
    maxDocumentBytes: e.MEMORIA_MAX_DOCUMENT_BYTES,
    maxBatchBytes: e.MEMORIA_MAX_BATCH_BYTES,
    maxUploadBytes: e.MEMORIA_MAX_UPLOAD_BYTES,
    catchupMs: e.MEMORIA_CATCHUP_MS,
    indexMemoryMb: e.MEMORIA_INDEX_MEMORY_MB ?? null,
    snapshotMinChunks: e.MEMORIA_SNAPSHOT_MIN_CHUNKS ?? null,
    searchFeedback: e.MEMORIA_SEARCH_FEEDBACK === "on",
    searchQueueTimeoutMs: e.MEMORIA_QUEUE_TIMEOUT_MS,
    searchMaxQueue: e.MEMORIA_MAX_QUEUE,
    searchThreads: e.MEMORIA_SEARCH_THREADS ?? null,
    notionApiUrl: e.MEMORIA_NOTION_API_URL,
    oidc:
      e.MEMORIA_OIDC_ISSUER && e.MEMORIA_OIDC_CLIENT_ID && e.MEMORIA_OIDC_CLIENT_SECRET
        ? {
            issuer: e.MEMORIA_OIDC_ISSUER,
            clientId: e.MEMORIA_OIDC_CLIENT_ID,
            clientSecret: e.MEMORIA_OIDC_CLIENT_SECRET,
          }
        : null,
    logLevel: e.MEMORIA_LOG_LEVEL,
    tuning: e.MEMORIA_TUNING_OFF,
  };
}
