// A team's index snapshot as sealed parts. The snapshot holds term postings and every passage's text, so it is
// sealed as a whole, in parts of 4 MiB (SNAPSHOT_PART_BYTES), never one huge value. Each part is bound
// (AES-GCM additional data) to its team, the snapshot it belongs to, the format it was written in, the
// change-log seq it reflects, its place and whether it is the last: a part swapped in from another team or
// another snapshot, a seq or format rewritten in the readable head, a part dropped off the end or moved, all
// fail to open, and the snapshot is ignored (src/live/snapshot.ts).
//
// Inside, the parts are one stream of records, cut into parts wherever the part size falls, so a record may
// run on into the next part: [u8 kind][u32 length][bytes]. Pages of the passage index's and the entry index's
// tables (src/index/snapshots/snapshot.ts encodes them), and last the bookkeeping as JSON.

import { z } from "zod";
import { DomainError } from "../errors.js";
import { fromUtf8, utf8 } from "../seal/bytes.js";
import { openRowBytes, sealRowBytes, type TeamKey } from "../seal/team-key.js";

/**
 * memoria's own snapshot format number, the first part of every snapshot's format string: bumped when what the
 * records hold changes in a way the index fingerprints would not show (the record framing, the state's shape).
 */
export const SNAPSHOT_FORMAT = 1;

/**
 * Plaintext bytes per sealed part, exactly (the last part holds what is left). Sealed, a part is 28 bytes more
 * (AES-GCM's nonce and tag), well under the one value storage takes (STORED_VALUE_MAX_BYTES: sqld refuses
 * 5,000,000 bytes). Records are cut across parts where they cross one: a part ended "at the first record past
 * 4 MiB" was as large as that record let it be, and was never written on sqld. A part's seal and open cost
 * ~1 ms of WebCrypto, and a 90k-passage snapshot is a few dozen rows.
 */
export const SNAPSHOT_PART_BYTES = 4 * 1024 * 1024;

/** The table name bound into every part's seal. */
const SNAPSHOTS_TABLE = "index_snapshots";

export const recordKinds = { passages: 1, entries: 2, state: 3 } as const;
export type RecordKind = (typeof recordKinds)[keyof typeof recordKinds];

export interface SnapshotRecord {
  kind: RecordKind;
  bytes: Uint8Array;
}

/** Which snapshot a part belongs to, as bound into its seal. */
export interface SnapshotBinding {
  snapshotId: string;
  /** SNAPSHOT_FORMAT and both indexes' fingerprints (snapshotFormat). */
  format: string;
  seq: number;
}

/** The format string: a snapshot is restored only into indexes whose own format string is equal. */
export function snapshotFormat(passagesFingerprint: string, entriesFingerprint: string): string {
  return `${SNAPSHOT_FORMAT}/${passagesFingerprint}/${entriesFingerprint}`;
}

const partRowId = (binding: SnapshotBinding, part: number, last: boolean) =>
  `${binding.snapshotId}/${binding.format}/${binding.seq}/${part}/${last ? "last" : "more"}`;

/** The bookkeeping record, as the live layer writes it: each index's own state, and the rows left out. */
export const snapshotStateSchema = z.object({
  passages: z.unknown(),
  entries: z.unknown(),
  /** [id, weight] of every document and entry the indexes left out because it did not open. */
  unreadable: z.object({
    documents: z.array(z.tuple([z.string(), z.number().int().nonnegative()])),
    entries: z.array(z.tuple([z.string(), z.number().int().nonnegative()])),
  }),
});
export type SnapshotState = z.infer<typeof snapshotStateSchema>;

/**
 * Packs records into parts of exactly `partBytes` and seals each part as it fills, so sealing (off the main
 * thread in WebCrypto) overlaps the reading of the next pages.
 */
export class SnapshotSealer {
  readonly #sealed: Promise<Uint8Array<ArrayBuffer>>[] = [];
  /** The stream's bytes not yet in a part: whole records, the first of them perhaps begun in the last part. */
  #pending: Uint8Array[] = [];
  #bytes = 0;
  /** Plaintext bytes of every part so far: what the snapshot weighs, for the log. */
  total = 0;

  constructor(
    private readonly key: TeamKey,
    private readonly binding: SnapshotBinding,
    private readonly partBytes = SNAPSHOT_PART_BYTES,
  ) {
    if (!Number.isInteger(partBytes) || partBytes < 1)
      throw new RangeError("partBytes must be a positive integer");
  }

  add(kind: RecordKind, bytes: Uint8Array): void {
    const head = new Uint8Array(5);
    head[0] = kind;
    new DataView(head.buffer).setUint32(1, bytes.length, true);
    this.#pending.push(head, bytes);
    this.#bytes += head.length + bytes.length;
    while (this.#bytes >= this.partBytes) this.#seal(this.partBytes, false);
  }

  /** Adds the bookkeeping as the last record and seals what is left: every part, in order. */
  async finish(state: SnapshotState): Promise<Uint8Array<ArrayBuffer>[]> {
    this.add(recordKinds.state, utf8(JSON.stringify(state)));
    // When the stream ended on a part's edge, that part went out as "more": an empty last part then ends it.
    this.#seal(this.#bytes, true);
    return Promise.all(this.#sealed);
  }

  /** Seals the stream's next `size` bytes as a part. */
  #seal(size: number, last: boolean): void {
    const part = new Uint8Array(size);
    let at = 0;
    while (at < size) {
      const chunk = this.#pending[0] as Uint8Array;
      const take = Math.min(chunk.length, size - at);
      part.set(take === chunk.length ? chunk : chunk.subarray(0, take), at);
      at += take;
      if (take === chunk.length) this.#pending.shift();
      else this.#pending[0] = chunk.subarray(take);
    }
    this.total += part.length;
    this.#bytes -= size;
    this.#sealed.push(
      sealRowBytes(this.key, SNAPSHOTS_TABLE, partRowId(this.binding, this.#sealed.length, last), part),
    );
  }
}

/**
 * Parts being fetched and opened from remote storage while the caller works on one part's records. With one,
 * part k+1 was asked for only once part k had arrived and opened, so a single read was ever outstanding and
 * parts arrived at best a round trip apart however fast they were inserted. Measured on a wake from a
 * 20,024-passage team's snapshot (five 4 MiB parts), sqld behind the remote suite's latency proxy, five wakes
 * each alternated, median first answer: 20 ms away over `ws://` 730 → 657 ms, over `http://` 772 → 683 ms;
 * near over `ws://` 565 → 537 ms. Three gave no more (665 ms). What it costs: each part ahead is 4 MiB sealed,
 * its wire text and its opened copy, garbage once inserted; the remote suite's RSS just after a remote
 * snapshot wake was 9–45 MiB higher (docs/decisions/0106).
 */
export const SNAPSHOT_PARTS_AHEAD = 2;

/**
 * The records of a stored snapshot of `parts` parts, in order. `read` fetches one sealed part (null when it
 * is missing); up to `ahead` (a whole number, at least 1) further parts are fetched and opened while the
 * caller works on the current one's records. Throws DomainError "unreadable" for a part that is missing or
 * does not open, and for a stream that is not whole records (one ending inside a record included) ending with
 * the bookkeeping.
 */
export async function* openSnapshot(
  key: TeamKey,
  binding: SnapshotBinding,
  parts: number,
  read: (part: number) => Promise<Uint8Array | null>,
  ahead: number = SNAPSHOT_PARTS_AHEAD,
): AsyncGenerator<SnapshotRecord> {
  const open = async (part: number) => {
    const sealed = await read(part);
    if (!sealed) throw new DomainError("unreadable", `Index snapshot part ${part} of ${parts} is missing.`);
    return openRowBytes(key, SNAPSHOTS_TABLE, partRowId(binding, part, part === parts - 1), sealed);
  };
  if (!Number.isInteger(ahead) || ahead < 1) throw new RangeError("ahead must be a whole number, at least 1");
  if (parts < 1) throw new DomainError("unreadable", "Index snapshot has no parts.");
  const records = new RecordStream();
  const opening: Promise<Uint8Array>[] = [];
  let asked = 0;
  const askAhead = () => {
    while (asked < parts && opening.length < ahead) {
      const next = open(asked++);
      // Kept from surfacing as unhandled while earlier parts' records are consumed; awaited in its turn.
      next.catch(() => undefined);
      opening.push(next);
    }
  };
  askAhead();
  for (let part = 0; part < parts; part++) {
    const bytes = await (opening.shift() as Promise<Uint8Array>);
    askAhead();
    yield* records.push(bytes);
  }
  records.end();
}

/**
 * Cuts the stream of parts back into records. A record that runs on past its part is gathered piece by piece
 * and joined once, when it is whole; every other record is a view into its part.
 */
class RecordStream {
  /** The pieces of a record begun in an earlier part, and their bytes. */
  #pieces: Uint8Array[] = [];
  #have = 0;
  #ended = false;

  *push(bytes: Uint8Array): Generator<SnapshotRecord> {
    let at = 0;
    if (this.#have > 0) {
      if (this.#have < 5) at = this.#gather(bytes, 0, 5 - this.#have);
      if (this.#have < 5) return;
      const head = joined(this.#pieces, 5);
      const whole = 5 + new DataView(head.buffer).getUint32(1, true);
      at = this.#gather(bytes, at, whole - this.#have);
      if (this.#have < whole) return;
      const record = joined(this.#pieces, whole);
      this.#pieces = [];
      this.#have = 0;
      yield this.#record(record[0] as RecordKind, record.subarray(5));
    }
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    while (at < bytes.length) {
      if (this.#ended) throw new DomainError("unreadable", "Index snapshot is not framed.");
      if (at + 5 > bytes.length || at + 5 + view.getUint32(at + 1, true) > bytes.length) {
        this.#gather(bytes, at, bytes.length - at);
        return;
      }
      const length = view.getUint32(at + 1, true);
      yield this.#record(bytes[at] as RecordKind, bytes.subarray(at + 5, at + 5 + length));
      at += 5 + length;
    }
  }

  /** Throws unless the stream ended whole, with the bookkeeping last. */
  end(): void {
    if (this.#have > 0) throw new DomainError("unreadable", "Index snapshot ends inside a record.");
    if (!this.#ended) throw new DomainError("unreadable", "Index snapshot ends before its bookkeeping.");
  }

  /** Adds up to `want` bytes of `bytes` from `at` to the record begun; returns where it stopped. */
  #gather(bytes: Uint8Array, at: number, want: number): number {
    const take = Math.min(want, bytes.length - at);
    this.#pieces.push(bytes.subarray(at, at + take));
    this.#have += take;
    return at + take;
  }

  #record(kind: RecordKind, bytes: Uint8Array): SnapshotRecord {
    if (this.#ended || !Object.values(recordKinds).includes(kind)) {
      throw new DomainError("unreadable", "Index snapshot is not framed.");
    }
    if (kind === recordKinds.state) this.#ended = true;
    return { kind, bytes };
  }
}

/** The first `length` bytes of `pieces`, as one array. */
function joined(pieces: readonly Uint8Array[], length: number): Uint8Array {
  const out = new Uint8Array(length);
  let at = 0;
  for (const piece of pieces) {
    if (at >= length) break;
    const take = Math.min(piece.length, length - at);
    out.set(piece.subarray(0, take), at);
    at += take;
  }
  return out;
}

/** The bookkeeping record's JSON, shaped; throws DomainError "unreadable" when it is not. */
export function openSnapshotState(bytes: Uint8Array): SnapshotState {
  let raw: unknown;
  try {
    raw = JSON.parse(fromUtf8(bytes));
  } catch {
    throw new DomainError("unreadable", "Index snapshot bookkeeping is not JSON.");
  }
  const parsed = snapshotStateSchema.safeParse(raw);
  if (!parsed.success) throw new DomainError("unreadable", "Index snapshot bookkeeping is not in its shape.");
  return parsed.data;
}
