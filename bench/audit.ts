// What the audit trail costs a write (docs/decisions/0103-audit-trail.md): a document stored with its event in
// the same transaction against the same write without one (the floor), and an event appended on its own after
// a change (what key, source, export and import events cost), on a `file:` database, a real sqld reached
// directly, and the same sqld behind a 20 ms round trip. Rows are opaque to storage, so the writes carry
// placeholder bytes of a real document's sizes; what is timed is storage's share, which is all the event adds
// beside one small seal. Alternated, median of `rounds` each.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AuditRow } from "../src/store/audit.js";
import type { DocumentWrite } from "../src/store/documents.js";
import { openStorage, type Storage } from "../src/store/storage.js";
import { startSqld } from "../test/support/sqld.js";
import { startLatencyProxy } from "./latency-proxy.js";
import { median } from "./stats.js";

const TEAM = "tbenchauditteam00";
const AT = "2026-12-06T12:00:00.000Z";
/** A document of ~8 KiB of content in 6 chunk runs, sealed: the shape of a README through the batch route. */
const CONTENT_BYTES = 8 * 1024;
const RUNS = 6;
/** A sealed event: ~100 bytes of JSON, sealed (nonce and tag beside it). */
const EVENT_BYTES = 140;

let counter = 0;
const bytes = (n: number) => crypto.getRandomValues(new Uint8Array(n));

function documentWrite(withEvent: boolean): DocumentWrite {
  const id = `dbench${(counter++).toString().padStart(11, "0")}`;
  const event: AuditRow = { teamId: TEAM, id: `a${id}`, at: AT, sealed: bytes(EVENT_BYTES) };
  return {
    row: {
      teamId: TEAM,
      id,
      sealed: bytes(300),
      externalRef: null,
      version: 1,
      chunkCount: RUNS * 4,
      contentBytes: CONTENT_BYTES,
      createdAt: AT,
      updatedAt: AT,
    },
    content: bytes(CONTENT_BYTES),
    runs: Array.from({ length: RUNS }, (_, i) => ({
      documentId: id,
      firstOrdinal: i * 4,
      count: 4,
      version: 1,
      sealed: bytes(CONTENT_BYTES / RUNS + 200),
    })),
    ...(withEvent ? { event } : {}),
  };
}

async function timed(task: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await task();
  return performance.now() - started;
}

async function measure(label: string, storage: Storage, rounds: number): Promise<void> {
  await storage.client.execute({
    // The near and the far sqld are one server: the team is made once.
    sql: "INSERT OR IGNORE INTO teams (id, sealed, wrapped_key, created_at) VALUES (?, ?, ?, ?)",
    args: [TEAM, bytes(40), bytes(60), AT],
  });
  const floor: number[] = [];
  const withEvent: number[] = [];
  const after: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? [false, true] : [true, false];
    for (const event of order) {
      const ms = await timed(() => storage.documents.write(documentWrite(event), null));
      (event ? withEvent : floor).push(ms);
    }
    after.push(
      await timed(() =>
        storage.audit.append([
          { teamId: TEAM, id: `aafter${counter++}`, at: AT, sealed: bytes(EVENT_BYTES) },
        ]),
      ),
    );
  }
  const f = median(floor);
  const w = median(withEvent);
  const a = median(after);
  console.log(
    `  ${label.padEnd(14)} write ${f.toFixed(2)} ms; with its event ${w.toFixed(2)} ms (${(w / f).toFixed(2)}×); ` +
      `an event after its change ${a.toFixed(2)} ms more (${((f + a) / f).toFixed(2)}× the write)`,
  );
}

export async function benchAudit(rounds: number): Promise<void> {
  console.log(
    `\naudit trail: a document write with its event, ÷ the same write without (median of ${rounds})`,
  );
  const dir = mkdtempSync(join(tmpdir(), "memoria-bench-audit-"));
  const sqld = await startSqld(dir);
  const proxy = await startLatencyProxy({ host: "127.0.0.1", port: Number(new URL(sqld.url).port) }, 20);
  try {
    for (const [label, url] of [
      ["file:", `file:${join(dir, "audit.db")}`],
      ["sqld near", sqld.url],
      ["sqld 20 ms", proxy.url],
    ] as const) {
      const storage = await openStorage({ url });
      try {
        await measure(label, storage, rounds);
      } finally {
        storage.close();
      }
    }
  } finally {
    await proxy.close();
    await sqld.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
