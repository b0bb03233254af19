// The audit trail under attack and under faults: storage refuses to change or delete an event while its team
// exists; an event moved to another row or another team does not open (and is counted, not hidden); a trail
// is only its own team's; an event storage refuses right after its change is held, not lost, and written
// once storage takes it again — all on real libSQL databases.

import { describe, expect, it } from "vitest";
import type { LogFields } from "../../src/logger.js";
import { auditAnswer } from "../../src/routes/audit.js";
import { ADMIN_TOKEN, addDocument, makeTeam, tempDir } from "../support/app.js";
import { auditOf, changesSinceMade } from "../support/audit.js";
import { makeKey } from "../support/keys.js";
import { expectError, expectNoContent, expectOk, tickingClock, withApp } from "./contract.js";

describe("the audit trail at rest", () => {
  it("cannot be changed, nor an event deleted while its team exists; deleting the team deletes its trail", () =>
    withApp(async (app) => {
      const { teamId, apiKey } = await makeTeam(app);
      await makeKey(app, apiKey, "read");
      await makeKey(app, apiKey, "write");
      const { client } = app.storage;
      await expect(client.execute("UPDATE audit_events SET at = '2000-01-01T00:00:00.000Z'")).rejects.toThrow(
        /append-only/,
      );
      await expect(client.execute("DELETE FROM audit_events")).rejects.toThrow(/append-only/);
      expect((await changesSinceMade(app, apiKey)).length).toBe(2);

      await expectNoContent(
        await app.request(`/v1/teams/${teamId}`, { method: "DELETE", token: ADMIN_TOKEN }),
      );
      const left = await client.execute({
        sql: "SELECT COUNT(*) AS n FROM audit_events WHERE team_id = ?",
        args: [teamId],
      });
      expect(Number(left.rows[0]?.n)).toBe(0);
    }));

  it("does not open an event moved to another row or another team, and says how many did not", () =>
    withApp(async (app) => {
      const a = await makeTeam(app, "A");
      const b = await makeTeam(app, "B");
      await makeKey(app, a.apiKey, "read");
      await makeKey(app, a.apiKey, "write");
      await makeKey(app, b.apiKey, "read");
      const { client } = app.storage;
      // Someone with the database in hand: the schema's guard first, then the rows.
      await client.execute("DROP TRIGGER audit_events_never_updated");
      const [first, second] = (
        await client.execute({
          sql: "SELECT id, sealed FROM audit_events WHERE team_id = ?",
          args: [a.teamId],
        })
      ).rows;
      await client.execute({
        sql: "UPDATE audit_events SET sealed = ? WHERE team_id = ? AND id = ?",
        args: [first?.sealed ?? null, a.teamId, String(second?.id)],
      });
      await client.execute({
        sql: "INSERT INTO audit_events (team_id, id, at, sealed) VALUES (?, ?, '2030-01-01T00:00:00.000Z', ?)",
        args: [b.teamId, String(first?.id), first?.sealed ?? null],
      });
      // A's four events (its first key, its first owner's invite, a read and a write key): the one overwritten
      // does not open.
      const trailA = await expectOk(await app.request("/v1/audit", { token: a.apiKey }), 200, auditAnswer);
      expect(trailA.events.map((e) => e.id)).toContain(String(first?.id));
      expect(trailA.events.map((e) => e.id)).not.toContain(String(second?.id));
      expect(trailA.events).toHaveLength(3);
      expect(trailA.unreadable).toBe(1);
      // B's three (its first key and invite, a read key), and the copy from A that does not open under B's key.
      const trailB = await expectOk(await app.request("/v1/audit", { token: b.apiKey }), 200, auditAnswer);
      expect(trailB.events.map((e) => e.action).sort()).toEqual(["key.made", "key.made", "member.invited"]);
      expect(trailB.unreadable).toBe(1);
    }));
});

describe("an event storage refuses", () => {
  // A trigger stands for storage refusing the event's write, which no real fault can be timed to hit.
  const REFUSE_EVENTS =
    "CREATE TRIGGER refuse_events BEFORE INSERT ON audit_events BEGIN SELECT RAISE(ABORT, 'away'); END";

  it("takes its document or entry change with it: the change and its event are stored together or not at all", () =>
    withApp(
      async (app) => {
        const { apiKey } = await makeTeam(app);
        const doc = await addDocument(app, apiKey, {
          title: "Runbook",
          content: "Restart the primary first.",
        });
        await app.storage.client.execute(REFUSE_EVENTS);
        const refused = await app.request(`/v1/documents/${doc.id}`, { method: "DELETE", token: apiKey });
        await refused.text();
        expect(refused.status).toBeGreaterThanOrEqual(500);
        const remembered = await app.request("/v1/entries", {
          method: "POST",
          token: apiKey,
          json: { title: "x" },
        });
        await remembered.text();
        expect(remembered.status).toBeGreaterThanOrEqual(500);
        await app.storage.client.execute("DROP TRIGGER refuse_events");
        expect((await app.request(`/v1/documents/${doc.id}`, { token: apiKey })).status).toBe(200);
        const entries = (await (await app.request("/v1/entries", { token: apiKey })).json()) as {
          entries: [];
        };
        expect(entries.entries).toEqual([]);
        expect(await changesSinceMade(app, apiKey)).toEqual([
          { who: "key", action: "document.created", target: `document ${doc.id}` },
        ]);
        expect(app.memoria.audit.held).toBe(0);
      },
      { clock: tickingClock() },
    ));

  it("after a key or source change is held, the change still answered, and written once storage takes it", async () => {
    const tmp = tempDir();
    const logs: { message: string; fields: LogFields | undefined }[] = [];
    const log = (message: string, fields?: LogFields) => logs.push({ message, fields });
    try {
      await withApp(
        async (app) => {
          const { apiKey } = await makeTeam(app);
          const first = await makeKey(app, apiKey, "read", { name: "Dashboard" });
          await app.storage.client.execute(REFUSE_EVENTS);
          await expectNoContent(
            await app.request(`/v1/keys/${first.keyId}`, { method: "DELETE", token: apiKey }),
          );
          expect(app.memoria.audit.held).toBe(1);
          // Reading the trail tries them first; still refused, they stay held and the read answers.
          const during = await expectOk(await app.request("/v1/audit", { token: apiKey }), 200, auditAnswer);
          expect(during.events.map((e) => e.action).sort()).toEqual([
            "key.made",
            "key.made",
            "member.invited",
          ]);
          expect(app.memoria.audit.held).toBe(1);
          // A server stopping now tries once more, and says how many it loses.
          expect(await app.memoria.audit.flush(2_000)).toBe(1);
          expect(logs.some((l) => l.message.startsWith("audit events lost") && l.fields?.lost === 1)).toBe(
            true,
          );

          await app.storage.client.execute("DROP TRIGGER refuse_events");
          expect(await changesSinceMade(app, apiKey)).toEqual([
            { who: "key", action: "key.revoked", target: `key ${first.keyId}` },
            { who: "key", action: "key.made", target: `key ${first.keyId}` },
          ]);
          expect(app.memoria.audit.held).toBe(0);
          // A second read writes nothing twice.
          expect((await changesSinceMade(app, apiKey)).length).toBe(2);
        },
        {
          dbUrl: tmp.dbUrl,
          clock: tickingClock(),
          logger: { debug: log, info: log, warn: log, error: log },
        },
      );
      const held = logs.filter((l) => l.message === "audit events held until storage takes them");
      expect(held.length).toBeGreaterThan(0);
      expect(held[0]?.fields?.held).toBe(1);
      // The log names the condition, never the event's content or the key's name.
      expect(JSON.stringify(held)).not.toMatch(/key\.revoked|Dashboard/);
    } finally {
      tmp.cleanup();
    }
  });
});

describe("the audit trail under concurrent writes", () => {
  it("gives each stored change exactly one event, naming the key that made it", () =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app);
      const agents = await Promise.all(
        ["one", "two", "three", "four"].map((name) => makeKey(app, apiKey, "admin", { name })),
      );
      // Each agent writes the same externalIds at once: some of their writes are replacements of the others'.
      const made = await Promise.all(
        agents.flatMap((agent) =>
          [0, 1, 2, 3, 4].map(async (i) => {
            const res = await app.request("/v1/documents", {
              method: "POST",
              token: agent.apiKey,
              json: { title: `Note ${i}`, content: `Written by ${agent.keyId}.`, externalId: `note-${i}` },
            });
            const { document } = (await res.json()) as { document: { id: string; version: number } };
            return { agent: agent.keyId, id: document.id, version: document.version };
          }),
        ),
      );
      const events = (await auditOf(app, apiKey, "?limit=200")).filter((e) =>
        e.action.startsWith("document."),
      );
      expect(events).toHaveLength(made.length);
      // Five documents, each created once and replaced by every other write of it.
      expect(events.filter((e) => e.action === "document.created")).toHaveLength(5);
      expect(events.filter((e) => e.action === "document.replaced")).toHaveLength(15);
      const byAgent = (agent: string) =>
        events
          .filter((e) => e.actor.id === agent)
          .map((e) => e.target?.id)
          .sort();
      for (const agent of agents) {
        expect(byAgent(agent.keyId)).toEqual(
          made
            .filter((m) => m.agent === agent.keyId)
            .map((m) => m.id)
            .sort(),
        );
      }
    }));
});

describe("GET /v1/audit refuses", () => {
  it("a key below admin, naming the scope", () =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app);
      for (const scope of ["read", "write"] as const) {
        const key = await makeKey(app, apiKey, scope);
        const error = await expectError(
          await app.request("/v1/audit", { token: key.apiKey }),
          403,
          "forbidden",
        );
        expect(error.error.message).toMatch(/needs a key with the admin scope/);
      }
    }));

  it("no key, and a revoked one", () =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app);
      await expectError(await app.request("/v1/audit"), 401, "unauthorized");
      const other = await makeKey(app, apiKey, "admin");
      await app.request(`/v1/keys/${other.keyId}`, { method: "DELETE", token: apiKey });
      await expectError(await app.request("/v1/audit", { token: other.apiKey }), 401, "unauthorized");
    }));

  it("a limit out of range and a cursor it did not give, with 400", () =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app);
      for (const query of ["?limit=0", "?limit=201", "?limit=ten", "?cursor=notacursor", "?cursor=W10"]) {
        const error = await expectError(
          await app.request(`/v1/audit${query}`, { token: apiKey }),
          400,
          "invalid_request",
        );
        expect(error.error.message.length).toBeGreaterThan(0);
      }
    }));
});
