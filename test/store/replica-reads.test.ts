// An embedded replica's bulk reads (src/store/replica-reads.ts): the primary's until the copy takes over, the
// copy's after, and the primary's connection closed once, never under a read still on it. Both sides are real
// libSQL databases in memory, each holding a row that says which one answered.

import { createClient } from "@libsql/client";
import { afterEach, expect, it } from "vitest";
import type { RowReads } from "../../src/store/binary-reads.js";
import { QuietReads } from "../../src/store/quiet-reads.js";
import { replicaReads } from "../../src/store/replica-reads.js";

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

async function database(name: string) {
  const client = createClient({ url: ":memory:" });
  cleanups.push(() => client.close());
  await client.execute("CREATE TABLE side (name TEXT NOT NULL)");
  await client.execute({ sql: "INSERT INTO side (name) VALUES (?)", args: [name] });
  return client;
}

async function answeredBy(reads: RowReads): Promise<string> {
  return String((await reads.execute("SELECT name FROM side")).rows[0]?.name);
}

it("reads from the primary until the copy takes over, then from the copy, and closes the primary's connection once no read is on it", async () => {
  const primaryDb = await database("primary");
  let held: (() => void) | null = null;
  const primary: RowReads = {
    execute: async (statement) => {
      if (held === null) {
        await new Promise<void>((resolve) => {
          held = resolve;
        });
      }
      return primaryDb.execute(statement);
    },
  };
  let tookOver: () => void = () => undefined;
  let closings = 0;
  const reads = replicaReads({
    quiet: new QuietReads(),
    tookOver: new Promise<void>((resolve) => {
      tookOver = resolve;
    }),
    local: await database("copy"),
    primary,
    closePrimary: () => closings++,
  });

  // Held on the primary across the takeover.
  const onPrimary = answeredBy(reads.rows);
  await new Promise((resolve) => setTimeout(resolve, 10));
  expect(held).not.toBeNull();
  tookOver();
  await new Promise((resolve) => setTimeout(resolve, 0));
  expect(await answeredBy(reads.rows)).toBe("copy");
  expect(closings).toBe(0);
  (held as unknown as () => void)();
  expect(await onPrimary).toBe("primary");
  expect(closings).toBe(1);
  expect(await answeredBy(reads.rows)).toBe("copy");
  reads.close();
  expect(closings).toBe(1);
});

it("closed before the copy took over, ends the primary's connection and reads nothing more from it", async () => {
  let primaryReads = 0;
  const primaryDb = await database("primary");
  let closings = 0;
  const reads = replicaReads({
    quiet: new QuietReads(),
    tookOver: new Promise<void>(() => undefined),
    local: await database("copy"),
    primary: {
      execute: (statement) => {
        primaryReads++;
        return primaryDb.execute(statement);
      },
    },
    closePrimary: () => closings++,
  });
  expect(await answeredBy(reads.rows)).toBe("primary");
  reads.close();
  expect(closings).toBe(1);
  await answeredBy(reads.rows);
  expect(primaryReads).toBe(1);
});

it("closes the primary's connection when the copy takes over with no read on it, though no read follows", async () => {
  let tookOver: () => void = () => undefined;
  let closings = 0;
  const reads = replicaReads({
    quiet: new QuietReads(),
    tookOver: new Promise<void>((resolve) => {
      tookOver = resolve;
    }),
    local: await database("copy"),
    primary: await database("primary"),
    closePrimary: () => closings++,
  });
  expect(await answeredBy(reads.rows)).toBe("primary");
  expect(closings).toBe(0);
  tookOver();
  await new Promise((resolve) => setTimeout(resolve, 0));
  expect(closings).toBe(1);
  expect(await answeredBy(reads.rows)).toBe("copy");
  expect(closings).toBe(1);
});
