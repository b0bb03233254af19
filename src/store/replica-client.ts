// An embedded replica that answers from its primary until its copy is level with it. A container's disk does
// not survive its sleep, so each wake starts with an empty copy, and pulling it whole before serving made the
// first answer of every wake wait for the whole database (~4 s for a 20k-passage team with the primary 20 ms
// away). Instead every call goes to the primary over the network while another process pulls (replica-pull.ts); then
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
 * How long after a pull or a takeover that failed (the primary away, the pull ended) the next try starts.
 * Meanwhile the primary answers everything, as during any pull: slower reads, nothing wrong.
 */
export const REPLICA_PULL_RETRY_MS = 30_000;

export interface ReplicaClientOptions {
  /** A client of the primary; closed once the replica has taken over. */
  primary: Client;
  /** Starts a pull of the replica's file off this thread (replica-pull.ts). */
  pull: () => ReplicaPull;
  /** Opens the replica's file on this thread, once no pull holds it. */
  openReplica: () => Promise<Client>;
  /** Told when the replica takes over (ms since the first pull began) and when a pull or a takeover fails. */
  tookOver?: (ms: number) => void;
  failed?: (error: unknown) => void;
  /** REPLICA_PULL_RETRY_MS unless given (a test's retry does not wait half a minute). */
  retryMs?: number;
  /** When a pull's copy may begin (quiet-reads.ts); at once unless given. */
  copyWhen?: () => Promise<void>;
  /**
   * The longest the takeover holds new calls while calls already on the primary finish: the storage timeout,
   * after which those calls have been answered 503 anyway. Past it the takeover is tried again later.
   */
  settleMs: number;
}

export class ReplicaClient implements Client {
  readonly #primary: Client;
  readonly #options: ReplicaClientOptions;
  #replica: Client | null = null;
  /**
   * The replica's file as this thread opened it for a takeover that did not finish: kept, and the next try
   * uses it, because it pulls on its own from then on and a second puller must never write the same file.
   */
  #opened: Client | null = null;
  #pull: ReplicaPull | null = null;
  #firstOpened: Promise<void> = Promise.resolve();
  #retry: ReturnType<typeof setTimeout> | null = null;
  /** Calls (and open transactions) on the primary not yet settled: the takeover waits for them. */
  #onPrimary = 0;
  #onSettled: (() => void) | null = null;
  /** While the replica takes over, new calls wait here. */
  #takingOver: Promise<void> | null = null;
  #closed = false;
  #becameLocal: () => void = () => undefined;
  /** Resolves when the copy takes over (never, if the replica is closed before). */
  readonly whenLocal: Promise<void> = new Promise<void>((resolve) => {
    this.#becameLocal = resolve;
  });

  /** Starts the first pull; calls are answered by the primary until it is done. */
  constructor(options: ReplicaClientOptions) {
    this.#primary = options.primary;
    this.#options = options;
    this.#startPull(performance.now());
  }

  /**
   * The first pull's driver opened the replica's file (or could not: no CA certificates, say), which a start
   * waits for; a primary it then cannot reach is a failed pull, tried again.
   */
  get opened(): Promise<void> {
    return this.#firstOpened;
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
    this.#opened?.close();
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
    if (this.#onPrimary === 0) this.#onSettled?.();
  }

  #startPull(began: number): void {
    const first = this.#pull === null;
    let pull: ReplicaPull;
    try {
      pull = this.#options.pull();
    } catch (error) {
      // No process or thread to pull in (out of memory, too many processes): later, as for a failed pull.
      if (first) throw error;
      this.#pullFailed(began, error);
      return;
    }
    this.#pull = pull;
    if (first) this.#firstOpened = pull.opened;
    const begin = () => {
      if (this.#pull === pull && !this.#closed) pull.begin();
    };
    // A gate that fails lets the copy begin: it only ever delays it.
    (this.#options.copyWhen?.() ?? Promise.resolve()).then(begin, begin);
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
        // The first pull's driver failing to open fails the start, through `opened`: not retried.
        if (first && !opened) return;
        this.#pullFailed(began, error);
      },
    );
  }

  #pullFailed(began: number, error: unknown): void {
    if (this.#closed) return;
    const again = () => (this.#opened ? void this.#takeOver(began) : this.#startPull(began));
    this.#retry = setTimeout(again, this.#options.retryMs ?? REPLICA_PULL_RETRY_MS);
    this.#retry.unref?.();
    tell(() => this.#options.failed?.(error));
  }

  /**
   * New calls wait while the calls already on the primary finish (at most `settleMs`); the copy then pulls
   * what they wrote (a few frames: the first pull brought the rest), so nothing acknowledged by the primary is
   * missing from it.
   */
  async #takeOver(began: number): Promise<void> {
    if (this.#closed) return;
    let done: () => void = () => undefined;
    this.#takingOver = new Promise<void>((resolve) => {
      done = resolve;
    });
    let failure: unknown = null;
    try {
      this.#opened ??= await this.#options.openReplica();
      if (!(await this.#settled(this.#options.settleMs))) {
        throw new Error("calls on the primary did not finish within the storage timeout");
      }
      // Closed meanwhile: the pull below would be for nothing.
      if (!this.#closed) await this.#opened.sync();
    } catch (error) {
      failure = error;
    }
    if (this.#closed) {
      this.#opened?.close();
      this.#opened = null;
    } else if (failure === null && this.#opened) {
      this.#replica = this.#opened;
      this.#opened = null;
      this.#primary.close();
      this.#becameLocal();
    }
    this.#takingOver = null;
    done();
    if (failure !== null) this.#pullFailed(began, failure);
    else if (this.#replica) tell(() => this.#options.tookOver?.(performance.now() - began));
  }

  /** Whether every call on the primary settled within `ms`. */
  async #settled(ms: number): Promise<boolean> {
    if (this.#onPrimary === 0) return true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const settled = await new Promise<boolean>((resolve) => {
      this.#onSettled = () => resolve(true);
      timer = setTimeout(() => resolve(false), ms);
    });
    clearTimeout(timer);
    this.#onSettled = null;
    return settled;
  }
}

/** Runs a listener; one that throws is not the replica's failure. */
function tell(listener: () => void): void {
  try {
    listener();
  } catch {
    // A listener's own fault: the replica's state is already what it says.
  }
}
