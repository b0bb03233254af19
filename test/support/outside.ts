// Inputs from outside the repository that some tests read or run: the public collection beside the clone
// (../shared/eval), Debian's documentation packages, and programs a fresh machine may lack (Chromium, pandoc,
// qpdf, curl, python3, sqld's binary, Deno's). A clone on a newcomer's machine has none of the first two and
// maybe none of the programs, and `npm test` must still pass there; CI installs them all, and there every test
// must run. So each input is named here once, with what it is and how to get it, and a test that needs one
// asks through `needs(...)`: with the input present the test runs untouched, and the test's own bounds keep
// it from passing on an empty input; with it absent the test is skipped with a note that names what is
// missing (test/support/skip-notes.ts prints those notes at the end of the run).

import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { delimiter, join } from "node:path";
import { describe, it, type TestFunction } from "vitest";
import { DEBIAN_MANUALS } from "../../bench/debian-docs.js";
import { cranfieldDir } from "../../eval/paths.js";
import { denoUnavailable } from "./processes.js";
import { sqldBinary } from "./sqld.js";

export interface OutsideInput {
  /** What the input is, as a skip note names it. */
  readonly name: string;
  /** Why it is absent and how to get it, or null when it is here. */
  readonly missing: string | null;
}

function input(name: string, missing: string | null): OutsideInput {
  return { name, missing };
}

/** The first executable named `program` on PATH, or null. */
export function onPath(program: string): string | null {
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    if (dir === "") continue;
    const file = join(dir, program);
    try {
      if (statSync(file).isFile()) return file;
    } catch {}
  }
  return null;
}

/** A program from a Debian package, at the path the tests start it by. */
function debianProgram(path: string, pkg: string): OutsideInput {
  return input(path, existsSync(path) ? null : `${path} is absent (apt-get install ${pkg})`);
}

/** A program found on PATH, as a shell block run by a test finds it. */
function programOnPath(program: string, pkg: string): OutsideInput {
  return input(program, onPath(program) ? null : `${program} is not on PATH (apt-get install ${pkg})`);
}

/** A Debian documentation package's folder, present when it holds at least one file named by `files`. */
function debianDocs(pkg: string, dir: string, files: RegExp): OutsideInput {
  let found = false;
  try {
    found = readdirSync(dir).some((name) => files.test(name));
  } catch {}
  return input(pkg, found ? null : `Debian's ${pkg} is not installed: ${dir} (apt-get install ${pkg})`);
}

const installManuals = DEBIAN_MANUALS.filter(({ root }) => !existsSync(join("/usr/share/doc", root))).map(
  ({ pkg }) => pkg,
);

const cranfield = cranfieldDir();
/** The collection's own scoring script, beside the collection. */
export const NDCG_SCRIPT = join(cranfield, "..", "ndcg.py");

let deno: OutsideInput | undefined;

/** Where Linux distributions keep their CA bundle, as rustls's native-certs loader probes for it. */
const CA_BUNDLES = [
  "/etc/ssl/certs/ca-certificates.crt",
  "/etc/pki/tls/certs/ca-bundle.crt",
  "/etc/ssl/ca-bundle.pem",
  "/etc/pki/tls/cacert.pem",
  "/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem",
  "/etc/ssl/cert.pem",
];

export const outside = {
  /** Cranfield 1400, read from ../shared/eval/cranfield beside the clone, or from MEMORIA_EVAL_DIR. */
  cranfield: input(
    "Cranfield",
    ["corpus.jsonl", "queries.jsonl", "qrels.tsv"].every((file) => existsSync(join(cranfield, file)))
      ? null
      : `the Cranfield collection is not at ${cranfield} (a copy of shared/eval beside the clone, or MEMORIA_EVAL_DIR)`,
  ),
  /** The collection's own scoring script, beside Cranfield. */
  ndcgScript: input(
    "ndcg.py",
    existsSync(NDCG_SCRIPT)
      ? null
      : `the collection's ndcg.py is not at ${NDCG_SCRIPT} (shared/eval beside the clone)`,
  ),
  /** Git's manuals as text, the tests' largest plain-text corpus. */
  gitManuals: debianDocs("git-doc", "/usr/share/doc/git-doc", /\.txt$/),
  /** Django's manual as Sphinx writes it. */
  djangoManual: debianDocs("python-django-doc", "/usr/share/doc/python-django-doc/html", /\.html$/),
  /** SDL's manual as Doxygen writes it. */
  sdlManual: debianDocs("libsdl2-doc", "/usr/share/doc/libsdl2-doc/html", /\.html$/),
  /** Every manual the bench's Debian corpus reads (bench/debian-docs.ts). */
  debianManuals: input(
    "Debian's manuals",
    installManuals.length === 0
      ? null
      : `Debian's documentation packages are not installed (apt-get install ${installManuals.join(" ")})`,
  ),
  chromium: debianProgram("/usr/bin/chromium", "chromium"),
  /** Makes the certificates of the tests' own HTTPS servers (support/tls.ts). */
  openssl: debianProgram("/usr/bin/openssl", "openssl"),
  pandoc: debianProgram("/usr/bin/pandoc", "pandoc"),
  qpdf: debianProgram("/usr/bin/qpdf", "qpdf"),
  curl: programOnPath("curl", "curl"),
  python3: programOnPath("python3", "python3"),
  /** libSQL's server, from the `sqld` dev dependency's platform package (Linux x64 only). */
  sqld: input(
    "sqld",
    sqldBinary() ? null : "sqld's binary is absent (the sqld dev dependency ships it for Linux x64 only)",
  ),
  /**
   * The system's CA certificates (Debian's ca-certificates), which libSQL's native client loads whenever it
   * connects to a server, an embedded replica's primary included: the bundle files it probes for.
   */
  caCertificates: input(
    "CA certificates",
    [process.env.SSL_CERT_FILE, ...CA_BUNDLES].some((file) => file !== undefined && existsSync(file))
      ? null
      : "the system has no CA certificates, which libSQL's native client loads (apt-get install ca-certificates)",
  ),
  /** Linux's /proc, read for a process's memory and open files. */
  procfs: input("/proc", existsSync("/proc/self/stat") ? null : "/proc is not mounted"),
  /** Deno, from the `deno` dev dependency; asked once, when a test first needs it (it starts the binary). */
  get deno(): OutsideInput {
    deno ??= input("deno", denoUnavailable());
    return deno;
  },
} as const;

/**
 * Whatever HTML documentation this machine's Debian packages installed under /usr/share/doc, which a test
 * finds by walking the folder itself: `found` says whether it found any.
 */
export function debianHtml(found: boolean): OutsideInput {
  return input(
    "HTML under /usr/share/doc",
    found
      ? null
      : "no HTML documentation under /usr/share/doc (any Debian -doc package: apt-get install git-doc)",
  );
}

/** A Debian package whose files a test lists itself (dpkg-query -L): `found` says whether it found them. */
export function debianPackage(pkg: string, found: boolean): OutsideInput {
  return input(pkg, found ? null : `Debian's ${pkg} is not installed (apt-get install ${pkg})`);
}

/** What of `inputs` is missing, as one note, or null when all are here. */
export function missingOf(inputs: readonly OutsideInput[]): string | null {
  const notes = inputs.flatMap((each) => (each.missing === null ? [] : [each.missing]));
  return notes.length === 0 ? null : `needs what is missing: ${notes.join("; ")}`;
}

export interface Needing {
  /** The note the skipped tests carry, or null when everything needed is here. */
  readonly missing: string | null;
  /** `it`, skipped with the note when an input is missing. */
  it(name: string, fn: TestFunction, timeout?: number): void;
  /**
   * `describe`, whose body is not even run when an input is missing (bodies read their inputs): one skipped
   * test stands for it, carrying the note.
   */
  describe(name: string, fn: () => void): void;
}

/** Tests that need `inputs`. */
export function needs(...inputs: readonly OutsideInput[]): Needing {
  const missing = missingOf(inputs);
  if (missing === null) return { missing, it: (name, fn, timeout) => it(name, fn, timeout), describe };
  return {
    missing,
    it: (name) => it(name, (ctx) => ctx.skip(missing)),
    describe: (name) => describe(name, () => it("runs where its inputs are", (ctx) => ctx.skip(missing))),
  };
}

/** Git's manuals as text (git-doc), sorted by name, `limit` of them at most: `outside.gitManuals` says whether they are here. */
export function gitManualTexts(limit = Infinity): { name: string; content: string }[] {
  const dir = "/usr/share/doc/git-doc";
  return readdirSync(dir)
    .filter((name) => name.endsWith(".txt"))
    .sort()
    .slice(0, limit)
    .map((name) => ({ name, content: readFileSync(join(dir, name), "utf8") }));
}
