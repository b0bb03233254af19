// Audit events in their change's transaction (src/store/audit.ts with documents.ts and entries.ts): an event
// is stored exactly when its change applies — a replacement that lost its version race, a delete that found
// nothing, a batch whose insert failed store no event — on a real libSQL database. The rows are opaque to
// storage, so these write placeholder bytes where the services would write sealed ones.

import { afterEach, describe, expect, it } from "vitest";
import type { AuditRow } from "../../src/store/audit.js";
import type { DocumentWrite } from "../../src/store/documents.js";
import { openStorage, type Storage } from "../../src/store/storage.js";

const TEAM = "tteamteamteamteam";
const AT = "2026-12-06T12:00:00.000Z";
let storage: Storage | undefined;
afterEach(() => storage?.close());

async function openWithTeam(): Promise<Storage> {
  storage = await openStorage({ url: ":memory:" });
  await storage.client.execute({
    sql: "INSERT INTO teams (id, sealed, wrapped_key, created_at) VALUES (?, ?, ?, ?)",
    args: [TEAM, new Uint8Array([1]), new Uint8Array([2]), AT],
  });
  return storage;
}

const event = (id: string): AuditRow => ({ teamId: TEAM, id, at: AT, sealed: new Uint8Array([9, 9, 9]) });

function documentWrite(
  id: string,
  version: number,
  eventId: string,
  externalRef: Uint8Array | null = null,
): DocumentWrite {
  return {
    row: {
      teamId: TEAM,
      id,
      // Unique, as a real seal is (its nonce): the write's own row is known by it.
      sealed: new TextEncoder().encode(`${id} ${version} ${eventId}`),
      externalRef,
      version,
      chunkCount: 0,
      contentBytes: 1,
      createdAt: AT,
      updatedAt: AT,
    },
    content: new Uint8Array([7]),
    runs: [],
    event: event(eventId),
  };
}

async function eventIds(s: Storage): Promise<string[]> {
  const rs = await s.client.execute({
    sql: "SELECT id FROM audit_events WHERE team_id = ? ORDER BY id",
    args: [TEAM],
  });
  return rs.rows.map((row) => String(row.id));
}

describe("audit events in their change's transaction", () => {
  it("stores a document write's event when the write applies, and none for a replacement that lost its race", async () => {
    const s = await openWithTeam();
    expect(await s.documents.write(documentWrite("dfirst", 1, "a1"), null)).not.toBeNull();
    expect(await s.documents.write(documentWrite("dfirst", 2, "a2"), 1)).not.toBeNull();
    // Replacing version 1 again: another write got there first.
    expect(await s.documents.write(documentWrite("dfirst", 2, "a3"), 1)).toBeNull();
    expect(await eventIds(s)).toEqual(["a1", "a2"]);
  });

  it("stores a batch's events with its documents: an applied replacement's and every insert's, not a lost one's", async () => {
    const s = await openWithTeam();
    await s.documents.write(documentWrite("dold", 1, "a0"), null);
    const written = await s.documents.writeMany([
      { write: documentWrite("dnew1", 1, "b1"), replacing: null },
      { write: documentWrite("dold", 2, "b2"), replacing: 1 },
      { write: documentWrite("dold", 3, "b3"), replacing: 7 },
      { write: documentWrite("dnew2", 1, "b4"), replacing: null },
    ]);
    expect(written.applied).toEqual([true, true, false, true]);
    expect(await eventIds(s)).toEqual(["a0", "b1", "b2", "b4"]);
  });

  it("stores no event of a batch whose insert failed, as it stores none of its documents", async () => {
    const s = await openWithTeam();
    const ref = new Uint8Array([5, 5]);
    await s.documents.write(documentWrite("dheld", 1, "a0", ref), null);
    await expect(
      s.documents.writeMany([
        { write: documentWrite("dother", 1, "c1"), replacing: null },
        { write: documentWrite("dclash", 1, "c2", ref), replacing: null },
      ]),
    ).rejects.toThrow();
    expect(await eventIds(s)).toEqual(["a0"]);
  });

  it("stores a delete's event only when it deleted something, for documents and entries", async () => {
    const s = await openWithTeam();
    await s.documents.write(documentWrite("dgone", 1, "a0"), null);
    expect(await s.documents.delete(TEAM, "dgone", AT, event("d1"))).not.toBeNull();
    expect(await s.documents.delete(TEAM, "dgone", AT, event("d2"))).toBeNull();
    await s.entries.insert(
      { teamId: TEAM, id: "eone", createdAt: AT, projectRef: null, sealed: new Uint8Array([1]) },
      undefined,
      event("e1"),
    );
    expect(await s.entries.delete(TEAM, "eone", AT, event("e2"))).toBe(true);
    expect(await s.entries.delete(TEAM, "eone", AT, event("e3"))).toBe(false);
    expect(await eventIds(s)).toEqual(["a0", "d1", "e1", "e2"]);
  });

  it("takes an event sent again with the same id once (a retry whose answer was lost)", async () => {
    const s = await openWithTeam();
    await s.audit.append([event("r1"), event("r2")]);
    await s.audit.append([event("r2"), event("r3")]);
    expect(await eventIds(s)).toEqual(["r1", "r2", "r3"]);
  });
});
