// The snapshot codec on its own: records packed into parts and sealed, opened back in order; and every way a
// stored snapshot can be altered — a part reordered, dropped off the end, flipped, another team's, a seq or
// format not the one sealed — fails to open as "unreadable" rather than opening as something else.

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isDomainError } from "../../src/errors.js";
import { deriveTeamKey, generateTeamKeyMaterial, type TeamKey } from "../../src/seal/team-key.js";
import {
  openSnapshot,
  openSnapshotState,
  recordKinds,
  SNAPSHOT_PART_BYTES,
  SNAPSHOT_PARTS_AHEAD,
  type SnapshotBinding,
  type SnapshotRecord,
  SnapshotSealer,
  type SnapshotState,
} from "../../src/sealed-rows/snapshots.js";
import { STORED_VALUE_MAX_BYTES } from "../../src/store/value-limit.js";

const state: SnapshotState = {
  passages: { a: 1 },
  entries: [2],
  unreadable: { documents: [["d1", 3]], entries: [] },
};
const binding: SnapshotBinding = { snapshotId: "s1", format: "1/3.45.1/aa/bb", seq: 42 };

async function sealed(key: TeamKey, records: Uint8Array[], partBytes: number): Promise<Uint8Array[]> {
  const sealer = new SnapshotSealer(key, binding, partBytes);
  for (const r of records) sealer.add(recordKinds.passages, r);
  return sealer.finish(state);
}

async function opened(key: TeamKey, parts: (Uint8Array | null)[], b = binding, count = parts.length) {
  const out: SnapshotRecord[] = [];
  for await (const record of openSnapshot(key, b, count, async (i) => parts[i] ?? null)) {
    out.push({ kind: record.kind, bytes: new Uint8Array(record.bytes) });
  }
  return out;
}

async function failure(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return "opened";
  } catch (error) {
    return isDomainError(error, "unreadable") ? "unreadable" : String(error);
  }
}

const team = async (id: string) => deriveTeamKey(id, generateTeamKeyMaterial());
const records = Array.from({ length: 9 }, (_, i) => new Uint8Array(100 + i).fill(i));

describe("a sealed snapshot", () => {
  it("opens to its records in order, across parts, with the bookkeeping last", async () => {
    const key = await team("tone");
    for (const partBytes of [1, 250, 1 << 20]) {
      const parts = await sealed(key, records, partBytes);
      const got = await opened(key, parts);
      expect(got.slice(0, -1).map((r) => r.bytes)).toEqual(records);
      const last = got.at(-1) as SnapshotRecord;
      expect(last.kind).toBe(recordKinds.state);
      expect(openSnapshotState(last.bytes)).toEqual(state);
    }
    expect((await sealed(key, records, 250)).length).toBeGreaterThan(3);
  });

  it("keeps the parts ahead asked for while one part's records are consumed, and never more", async () => {
    const key = await team("tone");
    // Records of a part's size each: record i is the whole of part i, the bookkeeping the last part.
    const partBytes = 256;
    const whole = Array.from({ length: 7 }, (_, i) => new Uint8Array(partBytes - 5).fill(i));
    const parts = await sealed(key, whole, partBytes);
    expect(parts.length).toBe(whole.length + 1);
    for (const ahead of [1, SNAPSHOT_PARTS_AHEAD, 3]) {
      const asked: number[] = [];
      const read = async (i: number) => {
        asked.push(i);
        // A read that takes a few turns of the loop, as storage's does.
        await new Promise((resolve) => setTimeout(resolve, 2));
        return parts[i] ?? null;
      };
      const got: Uint8Array[] = [];
      for await (const record of openSnapshot(key, binding, parts.length, read, ahead)) {
        // While part k is consumed, parts up to k + ahead have been asked for, and none past them.
        const k = got.length;
        expect(asked.length).toBe(Math.min(parts.length, k + 1 + ahead));
        got.push(new Uint8Array(record.bytes));
        // The caller's own work on a record (an insert).
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      expect(got.slice(0, -1)).toEqual(whole);
      expect(asked).toEqual(parts.map((_, i) => i));
    }
    await expect(opened(key, parts, binding, parts.length)).resolves.toHaveLength(parts.length);
    for (const ahead of [0, -1, 1.5, Number.NaN]) {
      const records = openSnapshot(key, binding, parts.length, async (i) => parts[i] ?? null, ahead);
      await expect(records.next()).rejects.toThrow(RangeError);
    }
  });

  it("does not open reordered, cut short, flipped, rebound or another team's", async () => {
    const key = await team("tone");
    const parts = await sealed(key, records, 250);
    const swapped = [parts[1], parts[0], ...parts.slice(2)] as Uint8Array[];
    expect(await failure(opened(key, swapped))).toBe("unreadable");
    // The head claims one part fewer: the part now read as the last was sealed as "more".
    expect(await failure(opened(key, parts.slice(0, -1)))).toBe("unreadable");
    expect(await failure(opened(key, [...parts.slice(0, -1), null], binding, parts.length))).toBe(
      "unreadable",
    );
    const flipped = parts.map((p) => new Uint8Array(p));
    const middle = flipped[1] as Uint8Array;
    middle[20] = (middle[20] ?? 0) ^ 1;
    expect(await failure(opened(key, flipped))).toBe("unreadable");
    expect(await failure(opened(key, parts, { ...binding, seq: 41 }))).toBe("unreadable");
    expect(await failure(opened(key, parts, { ...binding, format: "1/3.46.0/aa/bb" }))).toBe("unreadable");
    expect(await failure(opened(key, parts, { ...binding, snapshotId: "s2" }))).toBe("unreadable");
    expect(await failure(opened(await team("ttwo"), parts))).toBe("unreadable");
    // Another team's part, sealed under the same binding, in place of one of ours.
    const theirs = await sealed(await team("ttwo"), records, 250);
    expect(await failure(opened(key, [theirs[0], ...parts.slice(1)] as Uint8Array[]))).toBe("unreadable");
  });

  it("property: cuts the stream at exactly the part size, records across parts, and opens them back", async () => {
    const key = await team("tone");
    // What sealing adds to a part: a snapshot of the bookkeeping alone is one part of its record.
    const stateRecord = 5 + new TextEncoder().encode(JSON.stringify(state)).length;
    const overhead = ((await sealed(key, [], 1 << 20))[0]?.length ?? 0) - stateRecord;
    expect(overhead).toBeGreaterThan(0);
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.nat({ max: 700 }), { maxLength: 12 }),
        fc.integer({ min: 1, max: 300 }),
        async (sizes, partBytes) => {
          const input = sizes.map((size, i) => new Uint8Array(size).fill(i + 1));
          const parts = await sealed(key, input, partBytes);
          for (const part of parts.slice(0, -1)) expect(part.length).toBe(partBytes + overhead);
          expect((parts.at(-1) as Uint8Array).length).toBeLessThanOrEqual(partBytes + overhead);
          const got = await opened(key, parts);
          expect(got.slice(0, -1).map((r) => r.bytes)).toEqual(input);
          expect(openSnapshotState((got.at(-1) as SnapshotRecord).bytes)).toEqual(state);
        },
      ),
      { numRuns: 60 },
    );
  });

  it("seals no part larger than storage takes in one value, whatever the records (sqld refuses 5,000,000 bytes)", async () => {
    const key = await team("tone");
    // One record three parts long, and one that ends a few bytes past a part's edge.
    const large = [
      new Uint8Array(3 * SNAPSHOT_PART_BYTES).fill(7),
      new Uint8Array(SNAPSHOT_PART_BYTES + 3).fill(9),
    ];
    const parts = await sealed(key, large, SNAPSHOT_PART_BYTES);
    expect(parts.length).toBeGreaterThanOrEqual(4);
    for (const part of parts) expect(part.length).toBeLessThanOrEqual(STORED_VALUE_MAX_BYTES);
    const got = await opened(key, parts);
    // Compared as buffers: element by element, 16 MiB would take minutes.
    expect(
      got.slice(0, -1).map((r) => Buffer.from(r.bytes).equals(Buffer.from(large[got.indexOf(r)] ?? []))),
    ).toEqual([true, true]);
  }, 120_000);

  it("refuses bookkeeping that is not in its shape", () => {
    expect(() => openSnapshotState(new TextEncoder().encode('{"passages":1}'))).toThrow();
    expect(() => openSnapshotState(new TextEncoder().encode("not json"))).toThrow();
  });
});
