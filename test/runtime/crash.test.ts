// An acknowledged write survives `kill -9`: the Node entry on a temp database takes a burst of concurrent
// entry and document writes, is killed with SIGKILL mid-burst, and a restart over the same database answers
// every write that got its 201, and the database checks whole. Three kills, bounded in requests and time;
// loopback only. (A probe of main measured 0 of 3,850 acknowledged writes lost over 10 kills.)

import { afterEach, describe, expect, it } from "vitest";
import { mapLimit } from "../../src/async/pool.js";
import { openClient } from "../../src/store/client.js";
import { ADMIN_TOKEN, masterKeyText, newMasterKey, tempDir } from "../support/app.js";
import { finished, listening, startNode } from "../support/processes.js";

/** Requests in one burst, and how many are in flight at once: enough that the kill lands among writes. */
const BURST = 200;
const CONCURRENCY = 8;
const ROUNDS = 3;

interface Acked {
  kind: "entries" | "documents";
  id: string;
  title: string;
}

describe("acknowledged writes across kill -9", () => {
  const cleanups: (() => void)[] = [];
  afterEach(() => {
    for (const c of cleanups.splice(0).reverse()) c();
  });

  it("keeps every write answered 201 over three kills mid-burst", async () => {
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    const env = {
      PORT: "0",
      MEMORIA_DB_URL: tmp.dbUrl,
      MEMORIA_MASTER_KEY: masterKeyText(newMasterKey()),
      MEMORIA_ADMIN_TOKEN: ADMIN_TOKEN,
    };

    async function start() {
      const child = startNode(env);
      cleanups.push(() => child.kill("SIGKILL"));
      const done = finished(child);
      const port = await listening(child);
      return { child, done, base: `http://127.0.0.1:${port}` };
    }

    let server = await start();
    const made = await fetch(`${server.base}/v1/teams`, {
      method: "POST",
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "Crash" }),
    });
    expect(made.status).toBe(201);
    const { apiKey } = (await made.json()) as { apiKey: string };
    const auth = { authorization: `Bearer ${apiKey}` };

    async function present(base: string, acked: Acked[]): Promise<string[]> {
      const missing = await mapLimit(acked, CONCURRENCY, async (write) => {
        const res = await fetch(`${base}/v1/${write.kind}/${write.id}`, { headers: auth });
        if (res.status !== 200) return `${write.kind}/${write.id}: ${res.status}`;
        const body = (await res.json()) as { entry?: { title: string }; document?: { title: string } };
        const title = (body.entry ?? body.document)?.title;
        return title === write.title ? null : `${write.kind}/${write.id}: title ${title}`;
      });
      return missing.filter((m): m is string => m !== null);
    }

    const everyAcked: Acked[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      // Kill after a different share of the burst each round, so the kill meets a different mix in flight.
      const killAfter = 30 * round;
      const acked: Acked[] = [];
      let next = 0;
      let killed = false;
      const { child, base } = server;
      const worker = async () => {
        while (!killed && next < BURST) {
          const i = next++;
          const kind = i % 2 === 0 ? "entries" : "documents";
          const title = `round ${round} write ${i}`;
          const body =
            kind === "entries"
              ? { title, impact: "kept across a kill", project: "crash" }
              : { title, content: `# ${title}\n\nThe harbour crane log for shift ${i} of round ${round}.` };
          try {
            const res = await fetch(`${base}/v1/${kind}`, {
              method: "POST",
              headers: { ...auth, "content-type": "application/json" },
              body: JSON.stringify(body),
            });
            if (res.status !== 201) throw new Error(`${kind} answered ${res.status}`);
            const answer = (await res.json()) as { entry?: { id: string }; document?: { id: string } };
            const id = (answer.entry ?? answer.document)?.id;
            if (!id) throw new Error(`${kind} answered without an id`);
            acked.push({ kind, id, title });
            if (acked.length >= killAfter && !killed) {
              killed = true;
              child.kill("SIGKILL");
            }
          } catch (error) {
            // Only the kill may fail a request: refused or reset connections once it has been sent.
            if (!killed) throw error;
          }
        }
      };
      await Promise.all(Array.from({ length: CONCURRENCY }, worker));
      const exit = await server.done;
      expect(exit.signal).toBe("SIGKILL");
      expect(acked.length).toBeGreaterThanOrEqual(killAfter);
      expect(acked.length).toBeLessThan(BURST);
      everyAcked.push(...acked);

      server = await start();
      expect((await fetch(`${server.base}/readyz`)).status).toBe(200);
      expect(await present(server.base, acked)).toEqual([]);
    }

    // Every round's writes, read once more after the last restart.
    expect(await present(server.base, everyAcked)).toEqual([]);
    server.child.kill("SIGTERM");
    expect((await server.done).code).toBe(0);

    const client = await openClient({ url: tmp.dbUrl });
    const check = await client.execute("PRAGMA integrity_check");
    client.close();
    expect(check.rows.map((r) => r.integrity_check)).toEqual(["ok"]);
  }, 60_000);
});
