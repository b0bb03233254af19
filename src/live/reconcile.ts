// What the reindex ping asks of a team's indexes: level with storage? Compared by storage's counts and seq,
// and rebuilt from storage when they still disagree after a catch-up — which only a row changed behind the
// change log's back (a restore, a manual fix, a bug) can cause. Indexes restored from a snapshot have their
// rows opened once first (verify.ts): counts cannot see a row altered since the snapshot.

import { DomainError } from "../errors.js";
import type { TeamKey } from "../seal/team-key.js";
import { type BuildDeps, build, catchUpOrRebuild } from "./build.js";
import type { LiveTeam } from "./team.js";
import { verifyRestored } from "./verify.js";

/** What reconcile() found and did for one team. */
export interface Reconciled {
  documents: number;
  chunks: number;
  entries: number;
  /** Documents and entries left out because they did not open (a rebuild would leave them out again). */
  unreadable: { documents: number; entries: number };
  appliedSeq: number;
  storedSeq: number;
  rebuilt: boolean;
}

/**
 * How often reconcile() re-reads storage when writes from another instance land while it compares: each
 * round catches up first, so only a team written to without pause exhausts them (and is left as it is, to be
 * compared on the next ping).
 */
const RECONCILE_ROUNDS = 3;

/**
 * Builds the team's indexes if cold, catches them up, compares them with storage and rebuilds them once if
 * they disagree. Runs in the team's queue, so no write of this instance interleaves with the comparison.
 */
export async function reconcile(deps: BuildDeps, key: TeamKey, team: LiveTeam): Promise<Reconciled> {
  const { storage, registry } = deps;
  // A team deleted while this waited in its queue has had its index dropped already; see build for one
  // that was never built.
  if (!registry.holds(key.teamId, team)) throw new DomainError("not_found", `No team ${key.teamId}.`);
  if (team.state !== "ready") await build(deps, key, team);
  if (team.unverified) {
    const { dropped } = await verifyRestored(deps, key, team);
    team.markVerified(dropped.documents + dropped.entries > 0);
  }
  let rebuilt = false;
  for (let round = 1; ; round++) {
    await catchUpOrRebuild(deps, key, team);
    const storedSeq = await storage.changes.latestSeq(key.teamId);
    const [stored, entries] = await Promise.all([
      storage.documents.counts(key.teamId),
      storage.entries.count(key.teamId),
    ]);
    const settled = (await storage.changes.latestSeq(key.teamId)) === storedSeq;
    const held = team.passages?.counts() ?? { documents: -1, chunks: -1 };
    const heldEntries = team.entries?.count() ?? -1;
    // Rows the index left out because they did not open count as accounted for: rebuilding would only
    // leave them out again.
    const left = team.unreadableDocuments;
    const level =
      team.appliedSeq === storedSeq &&
      held.documents + left.count === stored.documents &&
      held.chunks + left.weight === stored.chunks &&
      heldEntries + team.unreadableEntries.count === entries;
    // Writes landed while counting: the counts may be from either side of them. Catch up and count again.
    if (!settled && round < RECONCILE_ROUNDS) continue;
    if (!level && settled && !rebuilt) {
      deps.logger.warn("index disagreed with storage; rebuilding", {
        teamId: key.teamId,
        appliedSeq: team.appliedSeq,
        storedSeq,
      });
      team.discard();
      await build(deps, key, team, { fromRows: true });
      rebuilt = true;
      continue;
    }
    return {
      documents: held.documents,
      chunks: held.chunks,
      entries: heldEntries,
      unreadable: { documents: left.count, entries: team.unreadableEntries.count },
      appliedSeq: team.appliedSeq,
      storedSeq,
      rebuilt,
    };
  }
}
