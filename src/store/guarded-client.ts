// Storage that is away or slow, turned into one answer: every call a row module makes through the client
// (or through a wake's bulk reads, binary-reads.ts) is bounded by the storage timeout, and a call that times
// out or fails because storage cannot be reached (no connection, a dropped WebSocket, a 5xx from sqld or
// Turso, a `file:` database locked past its busy timeout) throws DomainError "unavailable" with a
// Retry-After. The HTTP edge answers that 503, never 500, so a client can tell "try again" from a bug. Any
// other error (a constraint, SQL) passes through as it was.
//
// A call that times out is not cancelled: libSQL's client cannot take a request back. A write answered 503 may
// still commit afterwards, whole (each write is one batch, one transaction): a client sending it again is
// answered as for any repeat (an Idempotency-Key, an externalId), and nothing half-written is ever visible.

import type { Client, Transaction } from "@libsql/client";
// The local client's entry has the same error class without loading the remote one (client.ts).
import { LibsqlError } from "@libsql/client/sqlite3";
import { DomainError } from "../errors.js";
import type { BinaryReads, RowReads } from "./binary-reads.js";

/**
 * Seconds a client is told to wait: a sqld restarted here answered again within a second, and a few seconds
 * leave a network blip or a failover room to pass without a retry storm.
 */
export const STORAGE_RETRY_AFTER_SECONDS = 5;

/** The client's methods that reach storage, and a transaction's. */
const CLIENT_CALLS = new Set<PropertyKey>(["execute", "batch", "executeMultiple", "transaction", "sync"]);
const TRANSACTION_CALLS = new Set<PropertyKey>(["execute", "batch", "executeMultiple", "commit", "rollback"]);

/**
 * `client` with every call to storage bounded by `timeoutMs` and its transport failures made "unavailable".
 * `answered` hears how each call ended: true when it succeeded, false when it failed in any way (away, too slow,
 * or an error that may be storage's: an expired token or a closed client fail every call after it).
 */
export function guardedClient(
  client: Client,
  timeoutMs: number,
  answered: (ok: boolean) => void = () => undefined,
): Client {
  return guard(client, CLIENT_CALLS, timeoutMs, answered);
}

function guard<T extends object>(
  target: T,
  calls: ReadonlySet<PropertyKey>,
  timeoutMs: number,
  answered: (ok: boolean) => void,
): T {
  return new Proxy(target, {
    get(object, property) {
      const value = Reflect.get(object, property, object);
      if (typeof value !== "function") return value;
      // Called on the client itself, not on this proxy: the client keeps its state in private fields.
      if (!calls.has(property)) return value.bind(object);
      return (...args: unknown[]) => {
        const call = Promise.resolve(value.apply(object, args));
        const answer = bounded(call, timeoutMs, answered);
        if (property !== "transaction") return answer;
        // A transaction that arrives after its caller was answered 503 has nobody to end it: ended here, so it
        // holds no connection (nor an embedded replica's takeover) for good.
        answer.catch(() =>
          call.then(
            (tx) => (tx as Transaction).close(),
            () => undefined,
          ),
        );
        return answer.then((tx) => guard(tx as Transaction, TRANSACTION_CALLS, timeoutMs, answered));
      };
    },
  });
}

/**
 * `reads` (binary-reads.ts) bounded and answered the same way; a read that failed as storage away, or timed
 * out, drops their connection, so the next read opens a fresh one instead of waiting on a dead socket.
 */
export function guardedReads(
  reads: BinaryReads,
  timeoutMs: number,
  answered: (ok: boolean) => void = () => undefined,
): RowReads {
  return {
    execute: async (statement) => {
      let generation = -1;
      try {
        const read = reads.execute(statement, (used) => {
          generation = used;
        });
        return await bounded(read, timeoutMs, answered);
      } catch (error) {
        if (error instanceof DomainError && error.code === "unavailable") reads.reset(generation);
        throw error;
      }
    },
  };
}

async function bounded<T>(call: Promise<T>, timeoutMs: number, answered: (ok: boolean) => void): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new DomainError(
            "unavailable",
            "Storage did not answer in time; try again shortly.",
            STORAGE_RETRY_AFTER_SECONDS,
          ),
        ),
      timeoutMs,
    );
  });
  // A call that loses the race may still fail later: that failure has nobody to reach.
  call.catch(() => undefined);
  try {
    const result = await Promise.race([call, late]);
    answered(true);
    return result;
  } catch (error) {
    answered(false);
    if (isStorageAway(error)) {
      throw new DomainError(
        "unavailable",
        "Storage is unavailable; try again shortly.",
        STORAGE_RETRY_AFTER_SECONDS,
      );
    }
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

/** Whether `error` says storage could not be reached or could not answer now, rather than refused the call. */
export function isStorageAway(error: unknown): boolean {
  // libSQL's HTTP client's fetch (whole-body-fetch.ts): the connection was refused, reset or never made.
  if (error instanceof TypeError && error.message === "fetch failed") return true;
  if (isHranaAway(error)) return true;
  if (!(error instanceof LibsqlError)) return false;
  switch (error.code) {
    case "HRANA_WEBSOCKET_ERROR":
    case "HRANA_CLOSED_ERROR":
    case "SQLITE_BUSY":
      return true;
    case "SERVER_ERROR": {
      // An HTTP answer that is not a Hrana one: 5xx and 429 pass; 4xx (a bad token, a wrong URL) do not.
      const status = (error.cause as { status?: unknown } | undefined)?.status;
      return typeof status !== "number" || status >= 500 || status === 429;
    }
    default:
      return false;
  }
}

/**
 * The same judgement for the Hrana library's own errors, which binary-reads.ts meets unwrapped (the client
 * wraps them as the LibsqlError codes above). By name: its classes are loaded only with remote storage.
 */
function isHranaAway(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  switch (error.name) {
    case "WebSocketError":
    case "ConnectionDropped":
      return true;
    case "ClosedError": {
      // Judged by what ended the connection, as libSQL's client judges it: storage's own refusal (a token it
      // does not take) or an answer the library cannot read is not storage away; nothing named, or a failure
      // to reach it, is.
      let cause: unknown = (error as { cause?: unknown }).cause;
      while (cause instanceof Error && cause.name === "ClosedError")
        cause = (cause as { cause?: unknown }).cause;
      return !(cause instanceof Error && (cause.name === "ResponseError" || cause.name === "ProtoError"));
    }
    case "ResponseError":
      // A file storage's write lock held past its busy timeout, as the client's SQLITE_BUSY above.
      return (error as { code?: unknown }).code === "SQLITE_BUSY";
    case "HttpServerError": {
      const status = (error as { status?: unknown }).status;
      return typeof status !== "number" || status >= 500 || status === 429;
    }
    default:
      return false;
  }
}
