// An embedded replica that answers from its primary until its copy is level with it. A container's disk does
// not survive its sleep, so each wake starts with an empty copy, and pulling it whole before serving made the
// first answer of every wake wait for the whole database (~4 s for a 20k-passage team with the primary 20 ms
// away). Instead every call goes to the primary over the network while a thread pulls (replica-pull.ts); then
// the replica takes over: calls already sent to the primary are let finish, the copy pulls what they wrote,
// and from then on reads are answered on this machine (decision 0107).

import type {
  Client,
  InArgs,
  InStatement,
  Replicated,
  ResultSet,
  Transaction,
  TransactionMode,
} from "@libsql/client";
import type { ReplicaPull } from "./replica-pull.js";

/**
 * How long after a pull that failed (the primary away, the thread ended) the next one starts. Meanwhile the
 * primary answers everything, as during any pull: slower reads, nothing wrong.
 */
export const REPLICA_PULL_RETRY_MS = 30_000;

export interface ReplicaClientOptions {
  /** A client of the primary; closed once the replica has taken over. */
  primary: Client;
  /** Starts a pull of the replica's file on a thread of its own. */
  pull: () => ReplicaPull;
  /** Opens the replica's file on this thread, once no pull holds it. */
  openReplica: () => Promise<Client>;
  /** Told when the replica takes over (ms since the first pull began) and when a pull or a takeover fails. */
  tookOver?: (ms: number) => void;
  failed?: (error: unknown) => void;
  /** REPLICA_PULL_RETRY_MS unless given (a test's retry does not wait half a minute). */
  retryMs?: number;
}

export class ReplicaClient implements Client {
  readonly #primary: Client;
  readonly #options: ReplicaClientOptions;
  #replica: Client | null = null;
  #pull: ReplicaPull | null = null;
  #retry: ReturnType<typeof setTimeout> | null = null;
  /** Calls (and open transactions) on the primary not yet settled: the takeover waits for them. */
  #onPrimary = 0;
  #settled: (() => void) | null = null;
  /** While the replica takes over, new calls wait here. */
  #takingOver: Promise<void> | null = null;
  #closed = false;

  /** Starts the first pull; calls are answered by the primary until it is done. */
  constructor(options: ReplicaClientOptions) {
    this.#primary = options.primary;
    this.#options = options;
    this.#startPull(performance.now());
  }

  /** A pull that has reached the primary, or its error (a start waits for this: a replica that cannot pull fails it). */
  get opened(): Promise<void> {
    return this.#pull?.opened ?? Promise.resolve();
  }

  /** Whether calls are answered from the copy on this machine rather than by the primary. */
  get local(): boolean {
    return this.#replica !== null;
  }

  get closed(): boolean {
    return this.#closed;
  }

  get protocol(): string {
    return (this.#replica ?? this.#primary).protocol;
  }

  execute(stmt: InStatement): Promise<ResultSet>;
  execute(sql: string, args?: InArgs): Promise<ResultSet>;
  execute(stmtOrSql: InStatement | string, args?: InArgs): Promise<ResultSet> {
    return this.#call((client) =>
      typeof stmtOrSql === "string" ? client.execute(stmtOrSql, args) : client.execute(stmtOrSql),
    );
  }

  batch(stmts: Array<InStatement | [string, InArgs?]>, mode?: TransactionMode): Promise<ResultSet[]> {
    return this.#call((client) => client.batch(stmts, mode));
  }

  migrate(stmts: InStatement[]): Promise<ResultSet[]> {
    return this.#call((client) => client.migrate(stmts));
  }

  executeMultiple(sql: string): Promise<void> {
    return this.#call((client) => client.executeMultiple(sql));
  }

  async transaction(mode?: TransactionMode): Promise<Transaction> {
    if (this.#takingOver) await this.#takingOver;
    if (this.#replica) return this.#replica.transaction(mode);
    // A transaction on the primary holds the takeover until it ends, however it ends.
    this.#onPrimary++;
    let held = true;
    const release = () => {
      if (!held) return;
      held = false;
      this.#left();
    };
    let tx: Transaction;
    try {
      tx = await this.#primary.transaction(mode);
    } catch (error) {
      release();
      throw error;
    }
    return new Proxy(tx, {
      get(target, property) {
        const value = Reflect.get(target, property, target);
        if (typeof value !== "function") return value;
        if (property === "close") {
          return () => {
            release();
            return value.call(target);
          };
        }
        if (property !== "commit" && property !== "rollback") return value.bind(target);
        return async () => {
          try {
            return await value.call(target);
          } finally {
            release();
          }
        };
      },
    });
  }

  /** Pulls now when the replica has taken over; before that, the pull under way is the sync. */
  async sync(): Promise<Replicated> {
    return this.#replica ? this.#replica.sync() : undefined;
  }

  reconnect(): void {
    (this.#replica ?? this.#primary).reconnect();
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#retry) clearTimeout(this.#retry);
    this.#pull?.stop();
    this.#primary.close();
    this.#replica?.close();
  }

  async #call<T>(call: (client: Client) => Promise<T>): Promise<T> {
    if (this.#takingOver) await this.#takingOver;
    if (this.#replica) return call(this.#replica);
    this.#onPrimary++;
    try {
      return await call(this.#primary);
    } finally {
      this.#left();
    }
  }

  #left(): void {
    this.#onPrimary--;
    if (this.#onPrimary === 0) this.#settled?.();
  }

  #startPull(began: number): void {
    const first = this.#pull === null;
    const pull = this.#options.pull();
    this.#pull = pull;
    let opened = false;
    pull.opened.then(
      () => {
        opened = true;
      },
      () => undefined,
    );
    pull.pulled.then(
      () => this.#takeOver(began),
      (error: unknown) => {
        // The first pull failing to reach the primary fails the start, through `opened`: not retried.
        if (first && !opened) return;
        this.#pullFailed(began, error);
      },
    );
  }

  #pullFailed(began: number, error: unknown): void {
    if (this.#closed) return;
    this.#options.failed?.(error);
    this.#retry = setTimeout(() => this.#startPull(began), this.#options.retryMs ?? REPLICA_PULL_RETRY_MS);
    this.#retry.unref?.();
  }

  /**
   * New calls wait while the calls already on the primary finish; the copy then pulls what they wrote (a few
   * frames: the first pull brought the rest), so nothing acknowledged by the primary is missing from it.
   */
  async #takeOver(began: number): Promise<void> {
    if (this.#closed) return;
    let done: () => void = () => undefined;
    this.#takingOver = new Promise<void>((resolve) => {
      done = resolve;
    });
    let replica: Client | null = null;
    try {
      replica = await this.#options.openReplica();
      if (this.#onPrimary > 0) {
        await new Promise<void>((resolve) => {
          this.#settled = resolve;
        });
        this.#settled = null;
      }
      await replica.sync();
      if (this.#closed) {
        replica.close();
        return;
      }
      this.#replica = replica;
      this.#primary.close();
      this.#options.tookOver?.(performance.now() - began);
    } catch (error) {
      replica?.close();
      this.#pullFailed(began, error);
    } finally {
      this.#takingOver = null;
      done();
    }
  }
}
