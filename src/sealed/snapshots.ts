// A team's index snapshot as sealed parts. The snapshot holds term postings and every passage's text, so it is
// sealed as a whole, in parts of a few MiB (SNAPSHOT_PART_BYTES), never one huge value. Each part is bound
// (AES-GCM additional data) to its team, the snapshot it belongs to, the format it was written in, the
// change-log seq it reflects, its place and whether it is the last: a part swapped in from another team or
// another snapshot, a seq or format rewritten in the readable head, a part dropped off the end or moved, all
// fail to open, and the snapshot is ignored (src/live/snapshot.ts).
//
// Inside, the parts are one stream of records: [u8 kind][u32 length][bytes]. Pages of the passage index's
// and the entry index's tables (src/index/snapshot.ts encodes them), and last the bookkeeping as JSON.

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
 * Plaintext bytes per sealed part. A few MiB: one storage row stays an ordinary value for libSQL and Turso
 * (whose rows are capped well above this), a part's seal and open cost ~1 ms of WebCrypto, and a 90k-passage
 * snapshot is a few dozen rows.
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
 * Packs records into parts and seals each part as it fills, so sealing (off the main thread in WebCrypto)
 * overlaps the reading of the next pages.
 */
export class SnapshotSealer {
  readonly #sealed: Promise<Uint8Array<ArrayBuffer>>[] = [];
  #records: Uint8Array[] = [];
  #bytes = 0;
  /** Plaintext bytes of every part so far: what the snapshot weighs, for the log. */
  total = 0;

  constructor(
    private readonly key: TeamKey,
    private readonly binding: SnapshotBinding,
    private readonly partBytes = SNAPSHOT_PART_BYTES,
  ) {}

  add(kind: RecordKind, bytes: Uint8Array): void {
    const head = new Uint8Array(5);
    head[0] = kind;
    new DataView(head.buffer).setUint32(1, bytes.length, true);
    this.#records.push(head, bytes);
    this.#bytes += head.length + bytes.length;
    if (this.#bytes >= this.partBytes) this.#seal(false);
  }

  /** Adds the bookkeeping as the last record and seals what is left: every part, in order. */
  async finish(state: SnapshotState): Promise<Uint8Array<ArrayBuffer>[]> {
    this.add(recordKinds.state, utf8(JSON.stringify(state)));
    // When that record filled its part, the part went out as "more": an empty last part then ends the stream.
    this.#seal(true);
    return Promise.all(this.#sealed);
  }

  #seal(last: boolean): void {
    const part = new Uint8Array(this.#bytes);
    let at = 0;
    for (const record of this.#records) {
      part.set(record, at);
      at += record.length;
    }
    this.total += part.length;
    this.#records = [];
    this.#bytes = 0;
    this.#sealed.push(
      sealRowBytes(this.key, SNAPSHOTS_TABLE, partRowId(this.binding, this.#sealed.length, last), part),
    );
  }
}

/**
 * The records of a stored snapshot of `parts` parts, in order. `read` fetches one sealed part (null when it
 * is missing); the next part is fetched and opened while the caller works on the current one's records.
 * Throws DomainError "unreadable" for a part that is missing, does not open, or does not frame whole records,
 * and for a stream that does not end with the bookkeeping.
 */
export async function* openSnapshot(
  key: TeamKey,
  binding: SnapshotBinding,
  parts: number,
  read: (part: number) => Promise<Uint8Array | null>,
): AsyncGenerator<SnapshotRecord> {
  const open = async (part: number) => {
    const sealed = await read(part);
    if (!sealed) throw new DomainError("unreadable", `Index snapshot part ${part} of ${parts} is missing.`);
    return openRowBytes(key, SNAPSHOTS_TABLE, partRowId(binding, part, part === parts - 1), sealed);
  };
  if (parts < 1) throw new DomainError("unreadable", "Index snapshot has no parts.");
  let next = open(0);
  let ended = false;
  for (let part = 0; part < parts; part++) {
    const bytes = await next;
    if (part + 1 < parts) {
      next = open(part + 1);
      // Kept from surfacing as unhandled while this part's records are consumed; awaited on the next turn.
      next.catch(() => undefined);
    }
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    let at = 0;
    while (at < bytes.length) {
      if (ended || at + 5 > bytes.length)
        throw new DomainError("unreadable", "Index snapshot is not framed.");
      const kind = bytes[at] as RecordKind;
      const length = view.getUint32(at + 1, true);
      at += 5;
      if (at + length > bytes.length || !Object.values(recordKinds).includes(kind)) {
        throw new DomainError("unreadable", "Index snapshot is not framed.");
      }
      if (kind === recordKinds.state) ended = true;
      yield { kind, bytes: bytes.subarray(at, at + length) };
      at += length;
    }
  }
  if (!ended) throw new DomainError("unreadable", "Index snapshot ends before its bookkeeping.");
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
