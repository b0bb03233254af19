// The audit trail: who did each change, read back newest first with each actor's current name. Documents and
// entries, the changes made most often, carry their event into their own transaction (the services take `by`
// and seal it; store/ appends it only if the change applied), so such a change and its event are stored
// together or not at all, at no extra round trip. The rarer changes (keys, sources, export, import) are
// recorded here after they are stored, one statement more: storage that takes the change and then refuses
// its event (it went away in between) does not fail a request whose change is stored. The events are held
// here and written with the next ones, or by a retry a few seconds on, and a read of the trail on this
// instance writes them first; only this process stopping while storage is away loses held events.
// docs/decisions/0103-audit-trail.md weighs both.

import type { Actor, AuditRecord } from "../audit.js";
import type { Clock } from "../clock.js";
import { errorFields, type Logger } from "../logger.js";
import type { TeamKey } from "../seal/team-key.js";
import { type AuditContent, openAuditEvent, sealAuditEvents } from "../sealed-rows/audit.js";
import { openOrNull } from "../sealed-rows/readable.js";
import type { AuditPosition, AuditRow } from "../store/audit.js";
import type { Storage } from "../store/storage.js";
import type { MemberService } from "./members.js";
import type { OAuthService } from "./oauth.js";
import type { TeamService } from "./teams.js";

/** An event as GET /v1/audit gives it. */
export interface AuditEvent extends Omit<AuditContent, "actor"> {
  id: string;
  at: string;
  /**
   * `name` is the member's or key's name now (null for a key made without one, a row that does not open, and
   * the admin token).
   */
  actor: AuditContent["actor"] & { name: string | null };
}

export interface AuditPage {
  events: AuditEvent[];
  /** Where the next page starts; null when this one reached the oldest event. */
  next: AuditPosition | null;
  unreadable: number;
}

/**
 * Events held while storage refuses them, at most: at a few hundred bytes each, ~2 MiB, a batch route's
 * thousand documents ten times over. Past it the oldest are dropped, and the log says how many.
 */
export const MAX_HELD_EVENTS = 10_000;

/** How long held events wait before a retry when no new event comes to carry them. */
export const HELD_RETRY_MS = 5_000;

export interface AuditDeps {
  storage: Storage;
  clock: Clock;
  logger: Logger;
  /** For the names of the keys that acted. */
  teams: Pick<TeamService, "keysOf">;
  /** For the names of the members that acted. */
  members: Pick<MemberService, "names">;
  /** For the names of the OAuth clients that acted, by their approvals. */
  oauth: Pick<OAuthService, "names">;
}

export class AuditTrail {
  #held: AuditRow[] = [];
  #retry: ReturnType<typeof setTimeout> | null = null;
  #closed = false;
  /** Events in a write storage has not answered yet. */
  #sending = 0;

  constructor(private readonly deps: AuditDeps) {}

  /** Records one event or several (a batch's documents), all at the same time, by one actor. */
  async record(team: TeamKey, actor: Actor, records: AuditRecord | readonly AuditRecord[]): Promise<void> {
    const list: readonly AuditRecord[] = Array.isArray(records) ? records : [records as AuditRecord];
    if (list.length === 0) return;
    const rows = await sealAuditEvents(team, actor, list, this.deps.clock.now().toISOString());
    await this.#append(rows);
  }

  /** A page of the team's trail, newest first; held events are written first, so the page has them. */
  async list(team: TeamKey, limit: number, from: AuditPosition | null): Promise<AuditPage> {
    await this.#append([]);
    // One more than the page: whether an older page exists, without a last link to an empty one.
    const fetched = await this.deps.storage.audit.newestFirst(team.teamId, limit + 1, from);
    const rows = fetched.slice(0, limit);
    const opened = await Promise.all(
      rows.map(async (row) => {
        const content = await openOrNull(openAuditEvent(team, row.id, row.sealed));
        return content && { id: row.id, at: row.at, content };
      }),
    );
    const readable = opened.filter((event) => event !== null);
    const acting = (kind: string) => readable.some((event) => event.content.actor.kind === kind);
    const [keyNames, memberNames, clientNames] = await Promise.all([
      acting("key")
        ? this.deps.teams.keysOf(team).then((keys) => new Map(keys.map((key) => [key.keyId, key.name])))
        : new Map<string, string | null>(),
      acting("member") ? this.deps.members.names(team) : new Map<string, string | null>(),
      acting("oauth") ? this.deps.oauth.names(team) : new Map<string, string | null>(),
    ]);
    const byKind: Record<string, Map<string, string | null>> = {
      key: keyNames,
      member: memberNames,
      oauth: clientNames,
    };
    const nameOf = (actor: AuditContent["actor"]) => byKind[actor.kind]?.get(actor.id) ?? null;
    const last = rows.at(-1);
    return {
      events: readable.map(({ id, at, content }) => ({
        id,
        at,
        actor: {
          ...content.actor,
          name: nameOf(content.actor),
        },
        action: content.action,
        ...(content.target ? { target: content.target } : {}),
      })),
      next: fetched.length > limit && last ? { at: last.at, id: last.id } : null,
      unreadable: rows.length - readable.length,
    };
  }

  /**
   * Tries once more, for at most `withinMs`, to write held events (a server stopping); how many are still not
   * written after, held or in a write storage has not answered. Those are lost with this process, and the log
   * says how many.
   */
  async flush(withinMs: number): Promise<number> {
    let bound: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      this.#append([]),
      new Promise<void>((resolve) => {
        bound = setTimeout(resolve, withinMs);
      }),
    ]);
    clearTimeout(bound);
    const lost = this.#held.length + this.#sending;
    if (lost > 0) {
      this.deps.logger.error("audit events lost: storage refused them until the process stopped", { lost });
    }
    return lost;
  }

  /** How many events wait for storage to take them. */
  get held(): number {
    return this.#held.length;
  }

  /** Stops the retry timer; held events stay held (a test's app, or a server shutting down). */
  close(): void {
    this.#closed = true;
    if (this.#retry) clearTimeout(this.#retry);
    this.#retry = null;
  }

  async #append(rows: readonly AuditRow[]): Promise<void> {
    const taking = [...this.#held.splice(0), ...rows];
    if (taking.length === 0) return;
    this.#sending += taking.length;
    try {
      // An event whose write committed but whose answer was lost is sent again with the same id; storage
      // ignores it then, so a retry never doubles an event.
      await this.deps.storage.audit.append(taking);
    } catch (error) {
      this.#hold(taking, error);
    } finally {
      this.#sending -= taking.length;
    }
  }

  #hold(rows: readonly AuditRow[], error: unknown): void {
    this.#held.unshift(...rows);
    const dropped = this.#held.length - MAX_HELD_EVENTS;
    if (dropped > 0) this.#held.splice(0, dropped);
    this.deps.logger.warn("audit events held until storage takes them", {
      held: this.#held.length,
      ...(dropped > 0 ? { dropped } : {}),
      ...errorFields(error),
    });
    if (!this.#retry && !this.#closed) {
      this.#retry = setTimeout(() => {
        this.#retry = null;
        void this.#append([]);
      }, HELD_RETRY_MS);
      // A held event must not keep a process alive that is otherwise done (a CLI, a test).
      (this.#retry as { unref?: () => void }).unref?.();
    }
  }
}
