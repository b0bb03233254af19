// The reads that bring a team's sealed rows and snapshot parts from remote storage in bulk (a wake's), over
// Hrana 3's binary encoding instead of the JSON the storage client speaks.
//
// Why: libSQL's client opens Hrana at version 2 over both transports, which is JSON, so every sealed blob
// crosses as base64 inside a JSON text that is parsed whole on the request thread. Hrana 3 carries the same
// answer as protobuf, blobs as bytes. Reading one 87k-passage team's 16 snapshot parts (65 MB) from sqld
// 20 ms away, two parts in flight: 715 ms over version 2 against 332 ms over version 3 (`ws://`). The storage
// client itself cannot simply be moved to version 3: its batches then run through Hrana 3 cursors, which
// sqld's answers fail to decode in this client ("unrecognized CursorEntry"), and it reconnects at version 2
// anyway. So only plain reads, one statement each, go this way (docs/decisions/0109).
//
// A server that does not speak version 3 is answered at version 2 by the same library (a WebSocket
// subprotocol it does not offer, an HTTP endpoint it does not have): the same rows, as JSON.

import type { InStatement, Row } from "@libsql/client";
import type * as Hrana from "@libsql/hrana-client";

/** What a row module asks of the reads it is given: one statement, its rows (the storage client fits too). */
export interface RowReads {
  execute(statement: InStatement): Promise<{ rows: Row[] }>;
}

/** Where a remote storage URL is read over Hrana 3, or null for a URL this does not take (the client's reads). */
export function binaryReadsTarget(url: string): { url: string; transport: "ws" | "http" } | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  // A URL carrying anything but one `tls` (a token in its query, say) or a user and password (sent as basic
  // authentication by the client's WebSocket) is left to the client, which knows them.
  if (parsed.username || parsed.password) return null;
  for (const name of parsed.searchParams.keys()) if (name !== "tls") return null;
  const tlsValues = parsed.searchParams.getAll("tls");
  const tls = tlsValues[0] ?? null;
  if (tlsValues.length > 1 || (tls !== null && tls !== "0" && tls !== "1")) return null;
  const base = `//${parsed.host}${parsed.pathname === "/" ? "" : parsed.pathname}`;
  switch (parsed.protocol) {
    case "libsql:":
      // As the client takes it on Node: HTTP, with TLS unless tls=0 (which needs a port, as the client says).
      if (tls === "0" && parsed.port === "") return null;
      return { url: `${tls === "0" ? "http" : "https"}:${base}`, transport: "http" };
    case "ws:":
    case "wss:":
      return { url: `${parsed.protocol}${base}`, transport: "ws" };
    case "http:":
    case "https:":
      return { url: `${parsed.protocol}${base}`, transport: "http" };
    default:
      return null;
  }
}

export interface BinaryReadsOptions {
  url: string;
  transport: "ws" | "http";
  authToken?: string | null;
  /** The HTTP transport's fetch (the storage client's own, whole-body-fetch.ts). */
  fetch: (input: Request | string | URL, init?: RequestInit) => Promise<Response>;
}

/**
 * How long a connection is kept before the next read opens a fresh one, once no read is in flight on it. The
 * bulk reads run only while a team loads, so between wakes the connection sits idle for hours, and a socket a
 * NAT dropped without a word would cost the next wake a whole storage timeout (and its snapshot, rebuilt from
 * rows); an HTTP client whose version probe met a passing error stays on JSON until it is replaced. A minute,
 * as libSQL's client keeps a WebSocket; a fresh one costs a round trip.
 */
export const CONNECTION_MAX_AGE_MS = 60_000;

/**
 * A read on a connection that was dropped under it (after another read on it timed out), or on reads already
 * closed (the server stopping): storage away.
 */
export class ConnectionDropped extends Error {
  override readonly name = "ConnectionDropped";
}

/**
 * Plain reads over Hrana 3, one stream a statement (so reads run side by side, as the client's do). The
 * connection is opened at the first read, not at start (a start reads nothing in bulk before the first
 * request), and again after one that failed or timed out (reset), or that grew old while idle.
 */
export class BinaryReads implements RowReads {
  #client: Hrana.Client | null = null;
  #openedAt = 0;
  #inFlight = 0;
  /** Bumped with every connection opened: a reset names the one it means. */
  #generation = 0;
  readonly #generations = new WeakMap<Hrana.Client, number>();
  #opening: Promise<Hrana.Client> | null = null;
  #closed = false;
  /** Connections closed under their reads, whose failures are storage away, not errors of their own. */
  readonly #dropped = new WeakSet<Hrana.Client>();

  constructor(private readonly options: BinaryReadsOptions) {}

  /**
   * One statement's rows. `used` hears which connection it went to (reset takes that, so a read that timed out
   * drops its own connection and never a newer one).
   */
  async execute(statement: InStatement, used?: (generation: number) => void): Promise<{ rows: Row[] }> {
    this.#inFlight++;
    try {
      const client = await this.#connection();
      used?.(this.#generations.get(client) ?? -1);
      const sql = typeof statement === "string" ? statement : statement.sql;
      const args = typeof statement === "string" ? [] : (statement.args ?? []);
      try {
        const stream = client.openStream();
        let answer: Promise<Hrana.RowsResult>;
        try {
          answer = stream.query([sql, args as Hrana.InStmtArgs]);
        } finally {
          // Also when the statement could not be encoded: the server would keep the stream open otherwise.
          stream.closeGracefully();
        }
        return { rows: (await answer).rows as unknown as Row[] };
      } catch (error) {
        if (this.#dropped.has(client)) throw new ConnectionDropped("The storage connection was dropped.");
        // A transport failure closes the client; a statement's own error (SQL) leaves it open for the next one.
        if (client.closed && this.#client === client) this.#client = null;
        throw error;
      }
    } finally {
      this.#inFlight--;
    }
  }

  /** The protocol version storage answered with (3, or 2 from a server without it). */
  async version(): Promise<number> {
    this.#inFlight++;
    try {
      return await (await this.#connection()).getVersion();
    } finally {
      this.#inFlight--;
    }
  }

  /**
   * Drops connection `generation` if it is still the one in use, so the next read opens a fresh one (after a
   * read on it timed out). Over WebSocket the reads still in flight on it fail at once, as storage away; over
   * HTTP a request already sent runs on, bounded by the guard's timeout like any other.
   */
  reset(generation: number): void {
    if (generation !== this.#generation || !this.#client) return;
    this.#drop(this.#client);
  }

  close(): void {
    this.#closed = true;
    if (this.#client) this.#drop(this.#client);
  }

  #drop(client: Hrana.Client): void {
    this.#dropped.add(client);
    client.close();
    if (this.#client === client) this.#client = null;
  }

  async #connection(): Promise<Hrana.Client> {
    if (this.#closed) throw new ConnectionDropped("The storage reads are closed.");
    const client = this.#client;
    if (client && !client.closed) {
      // This read is counted in #inFlight: alone, no other read is in flight (on this connection or one
      // dropped before it, whose HTTP requests may still run).
      const old = performance.now() - this.#openedAt > CONNECTION_MAX_AGE_MS;
      if (!old || this.#inFlight > 1) return client;
      this.#drop(client);
    }
    this.#opening ??= this.#open().finally(() => {
      this.#opening = null;
    });
    return this.#opening;
  }

  async #open(): Promise<Hrana.Client> {
    // Loaded only here: a start on local storage, or one that wakes no team, never compiles it (0106).
    const hrana = await import("@libsql/hrana-client");
    const token = this.options.authToken || undefined;
    const client =
      this.options.transport === "ws"
        ? hrana.openWs(this.options.url, token, 3)
        : hrana.openHttp(this.options.url, token, this.options.fetch, undefined, 3);
    client.intMode = "number";
    if (this.#closed) {
      this.#drop(client);
      throw new ConnectionDropped("The storage reads are closed.");
    }
    this.#client = client;
    this.#openedAt = performance.now();
    this.#generations.set(client, ++this.#generation);
    return client;
  }
}
