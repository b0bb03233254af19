// `memoria export` and `memoria restore`: a team's export written to a file (plain NDJSON, or an age file
// under a passphrase) and sent back. Both stream: neither the export nor the file is ever held whole. The
// file holds the team's text in the clear unless encrypted, so it is written 0600, and only once the
// export's end line arrived (an export cut short leaves no file). A restore of an age file checks the
// passphrase on the file's header before a byte is sent.

import { createReadStream, createWriteStream } from "node:fs";
import { open, rename, rm } from "node:fs/promises";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ReadableStream as NodeReadableStream } from "node:stream/web";
import { Decrypter, Encrypter } from "age-encryption";
import type { ExportOptions, RestoreOptions } from "./args.js";
import type { ProgressStream } from "./progress.js";

export interface BackupIO {
  stdout: { write(text: string): unknown };
  stderr: ProgressStream;
  env: Record<string, string | undefined>;
  /** Asks for a passphrase on the terminal; null when there is no terminal to ask on. */
  askPassphrase?: (prompt: string) => Promise<string | null>;
  fetch?: typeof fetch;
}

/** What the user is told when a command fails: exit 1 with this sentence. */
export class BackupError extends Error {
  override readonly name = "BackupError";
}

/** The first bytes of every binary age file (age-encryption.org/v1, the format's own header line). */
const AGE_MAGIC = "age-encryption.org/v1\n";
/** Lines between two progress lines: a line a few hundred ms apart on a large team, not a flood. */
const PROGRESS_EVERY = 1000;
const PASSPHRASE_VARIABLE = "MEMORIA_EXPORT_PASSPHRASE";
/**
 * The scrypt work factor (log2 N) of an encrypted export: age's default, 18, unless
 * MEMORIA_EXPORT_WORK_FACTOR says otherwise. The library's scrypt is JavaScript: at 18 it took 10 s to
 * encrypt and 7 s to decrypt on this project's busy 2-core machine, which tests cannot pay per case; they
 * set a low factor, which only a file's own header decides at restore. Lower means a weak passphrase falls
 * to guessing sooner, so the bounds keep it from the absurd.
 */
const WORK_FACTOR_VARIABLE = "MEMORIA_EXPORT_WORK_FACTOR";
const DEFAULT_WORK_FACTOR = 18;
const MIN_WORK_FACTOR = 10;
const MAX_WORK_FACTOR = 22;

function workFactor(io: BackupIO): number {
  const text = io.env[WORK_FACTOR_VARIABLE];
  if (text === undefined || text === "") return DEFAULT_WORK_FACTOR;
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < MIN_WORK_FACTOR || value > MAX_WORK_FACTOR)
    throw new BackupError(
      `${WORK_FACTOR_VARIABLE} must be a whole number from ${MIN_WORK_FACTOR} to ${MAX_WORK_FACTOR}.`,
    );
  return value;
}

function endpoint(base: URL, path: string): URL {
  const url = new URL(base.href);
  if (!url.pathname.endsWith("/")) url.pathname += "/";
  return new URL(path, url);
}

/** The server's error envelope as a sentence (its code and message never quote content). */
async function refusal(res: Response): Promise<string> {
  const text = await res.text().catch(() => "");
  try {
    const { error } = JSON.parse(text) as { error: { code: string; message: string } };
    return `${res.status} ${error.code}: ${error.message}`;
  } catch {
    return `${res.status} (the server's answer was not memoria's error envelope)`;
  }
}

async function passphrase(io: BackupIO, confirm: boolean): Promise<string> {
  const given = io.env[PASSPHRASE_VARIABLE];
  if (given !== undefined && given !== "") return given;
  const ask = io.askPassphrase;
  const first = ask ? await ask("Passphrase: ") : null;
  if (first === null)
    throw new BackupError(`no passphrase: set ${PASSPHRASE_VARIABLE}, or run it on a terminal to be asked.`);
  if (first === "") throw new BackupError("the passphrase must not be empty.");
  if (confirm && (await ask?.("Passphrase again: ")) !== first)
    throw new BackupError("the two passphrases differ.");
  return first;
}

/**
 * Counts the export's lines as they pass, for progress, and keeps the last one to check the end line. Bytes
 * pass through untouched.
 */
class LineCounter {
  lines = 0;
  documents = 0;
  entries = 0;
  #tail = "";
  readonly #decoder = new TextDecoder();

  constructor(
    private readonly onProgress: (counter: LineCounter) => void,
    private readonly onLine?: (line: string) => void,
  ) {}

  transform(): TransformStream<Uint8Array, Uint8Array> {
    return new TransformStream({
      transform: (chunk, controller) => {
        this.#take(this.#decoder.decode(chunk, { stream: true }));
        controller.enqueue(chunk);
      },
      flush: () => {
        this.#take(this.#decoder.decode());
        if (this.#tail !== "") this.#line(this.#tail);
      },
    });
  }

  /** The last complete line seen. */
  last = "";

  #take(text: string): void {
    const parts = (this.#tail + text).split("\n");
    this.#tail = parts.pop() ?? "";
    for (const line of parts) if (line !== "") this.#line(line);
  }

  #line(line: string): void {
    this.lines++;
    this.last = line;
    // A line's kind is its first key, written first by the export: no need to parse a whole document.
    if (line.startsWith('{"document"')) this.documents++;
    else if (line.startsWith('{"entry"')) this.entries++;
    this.onLine?.(line);
    if (this.lines % PROGRESS_EVERY === 0) this.onProgress(this);
  }
}

const progressLine = (verb: string, c: LineCounter) =>
  `${verb} ${c.documents} documents, ${c.entries} entries (${c.lines} lines)\n`;

export async function runExport(options: ExportOptions, io: BackupIO): Promise<number> {
  if (options.encrypt) workFactor(io);
  const secret = options.encrypt ? await passphrase(io, true) : null;
  const res = await (io.fetch ?? fetch)(endpoint(options.url, "v1/export"), {
    headers: { authorization: `Bearer ${options.key}`, accept: "application/x-ndjson" },
  });
  if (res.status !== 200 || res.body === null)
    throw new BackupError(`the server refused: ${await refusal(res)}`);

  const counter = new LineCounter((c) => io.stderr.write(progressLine("exported", c)));
  let stream = (res.body as ReadableStream<Uint8Array>).pipeThrough(counter.transform());
  if (secret !== null) {
    const encrypter = new Encrypter();
    encrypter.setPassphrase(secret);
    encrypter.setScryptWorkFactor(workFactor(io));
    stream = await encrypter.encrypt(stream);
  }
  const partial = `${options.out}.partial`;
  try {
    await pipeline(
      Readable.fromWeb(stream as NodeReadableStream<Uint8Array>),
      createWriteStream(partial, { mode: 0o600 }),
    );
  } catch (error) {
    await rm(partial, { force: true });
    throw new BackupError(
      `the export stopped part way (${describe(error)}); ${options.out} was not written.`,
    );
  }
  const end = endOf(counter.last);
  if (!end || end.documents !== counter.documents || end.entries !== counter.entries) {
    await rm(partial, { force: true });
    throw new BackupError(`the export ended without its end line; ${options.out} was not written.`);
  }
  await rename(partial, options.out);
  io.stdout.write(
    `exported ${end.documents} documents and ${end.entries} entries to ${options.out}` +
      `${secret !== null ? " (age, passphrase-encrypted)" : ""}\n`,
  );
  return 0;
}

function endOf(line: string): { documents: number; entries: number } | null {
  try {
    const parsed = JSON.parse(line) as { end?: { documents?: unknown; entries?: unknown } };
    const { documents, entries } = parsed.end ?? {};
    return typeof documents === "number" && typeof entries === "number" ? { documents, entries } : null;
  } catch {
    return null;
  }
}

function describe(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === "string") return code;
  return error instanceof Error ? error.message : String(error);
}

async function startsWithAge(file: string): Promise<boolean> {
  const handle = await open(file, "r").catch((error: unknown) => {
    throw new BackupError(`cannot open ${file}: ${describe(error)}.`);
  });
  try {
    const head = Buffer.alloc(AGE_MAGIC.length);
    const { bytesRead } = await handle.read(head, 0, head.length, 0);
    return head.subarray(0, bytesRead).toString("latin1") === AGE_MAGIC;
  } finally {
    await handle.close();
  }
}

/** The file's lines as a stream: decrypted first when it is an age file (the passphrase checked here). */
async function plainStream(file: string, io: BackupIO): Promise<ReadableStream<Uint8Array>> {
  const encrypted = await startsWithAge(file);
  const bytes = Readable.toWeb(createReadStream(file)) as ReadableStream<Uint8Array>;
  if (!encrypted) return bytes;
  const decrypter = new Decrypter();
  decrypter.addPassphrase(await passphrase(io, false));
  try {
    // The header (and so the passphrase) is checked before this resolves: nothing is read past it yet.
    return await decrypter.decrypt(bytes);
  } catch (error) {
    await bytes.cancel().catch(() => {});
    const message = error instanceof Error ? error.message : "";
    if (/no identity matched|incorrect passphrase|passphrase/i.test(message))
      throw new BackupError("wrong passphrase; nothing was sent.");
    throw new BackupError(`${file} is not a readable age file (${message}); nothing was sent.`);
  }
}

interface ImportAnswer {
  documents: { created: number; updated: number; unchanged: number; renamed: number };
  entries: { created: number; unchanged: number; renamed: number };
}

export async function runRestore(options: RestoreOptions, io: BackupIO): Promise<number> {
  const plain = await plainStream(options.file, io);
  const counter = new LineCounter((c) => io.stderr.write(progressLine("sent", c)));
  const body = plain.pipeThrough(counter.transform());
  let res: Response;
  try {
    res = await (io.fetch ?? fetch)(endpoint(options.url, "v1/import"), {
      method: "POST",
      headers: { authorization: `Bearer ${options.key}`, "content-type": "application/x-ndjson" },
      body,
      duplex: "half",
    } as RequestInit);
  } catch (error) {
    throw new BackupError(`the restore could not be sent (${describe(error)}).`);
  }
  if (res.status !== 200) throw new BackupError(`the server refused: ${await refusal(res)}`);
  const answer = (await res.json()) as ImportAnswer;
  const d = answer.documents;
  const e = answer.entries;
  io.stdout.write(
    `restored documents: created ${d.created}, updated ${d.updated}, unchanged ${d.unchanged}, renamed ${d.renamed}; ` +
      `entries: created ${e.created}, unchanged ${e.unchanged}, renamed ${e.renamed}\n`,
  );
  return 0;
}

/** Reads a line from the terminal without echoing it; null when stdin is not a terminal. */
export function terminalPassphrase(
  input: NodeJS.ReadStream,
  output: { write(text: string): unknown },
): (prompt: string) => Promise<string | null> {
  return (prompt) => {
    if (!input.isTTY) return Promise.resolve(null);
    output.write(prompt);
    return new Promise((resolve) => {
      let typed = "";
      input.setRawMode(true);
      input.resume();
      const done = (value: string | null) => {
        input.setRawMode(false);
        input.pause();
        input.off("data", onData);
        output.write("\n");
        resolve(value);
      };
      const onData = (data: Buffer) => {
        for (const char of data.toString("utf8")) {
          if (char === "\r" || char === "\n") return done(typed);
          if (char === "\u0003" || char === "\u0004") return done(null);
          if (char === "\u007f" || char === "\b") typed = [...typed].slice(0, -1).join("");
          else typed += char;
        }
      };
      input.on("data", onData);
    });
  };
}
