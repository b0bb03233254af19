// The command line: `memoria import <folder> --url <memoria url> --key <team key> [--source <name>] [--prune]
// [--dry-run]`,
// `memoria export --url U --key K --out FILE [--encrypt]` and `memoria restore FILE --url U --key K`.
// Anything else is a UsageError, which main answers with its message, the usage and exit code 2. The URL
// and key may come from MEMORIA_URL and MEMORIA_KEY instead, so the key need not sit in the process list.

import { basename, resolve } from "node:path";
import { parseArgs } from "node:util";

export const USAGE_LINE = `Usage: memoria import <folder> --url <memoria url> --key <team key> [--source <name>] [--prune] [--dry-run]
       memoria export --url <memoria url> --key <team key> --out <file> [--encrypt]
       memoria restore <file> --url <memoria url> --key <team key>`;

export const USAGE = `${USAGE_LINE}

Sends every .md, .markdown, .txt, .html, .htm, .pdf and .docx file under <folder> to memoria's documents
API, only those whose content changed since the team last saw them (a PDF or DOCX is sent as it is, and
the server reads its text). Each document's externalId is file:<source>/<relative path>, so folders
imported under different sources never touch each other.

  --url <url>      memoria's base URL, e.g. https://memoria.example.com (or MEMORIA_URL)
  --key <key>      a team key, mem_… (or MEMORIA_KEY): write scope, admin with --prune
  --source <name>  the name this folder's documents are kept under (default: the folder's own name);
                   give the same one on every run of this folder, wherever it is checked out
  --prune          also delete this source's documents whose files are gone (never another source's)
  --dry-run        send and delete nothing; say what a run would do

Documents an import before --source existed stored as file:<relative path> are adopted by the next run
that has a file at that path: replaced in place under this source's id, not duplicated.

export writes the team's documents and entries (GET /v1/export) to <file>; with --encrypt as an age file,
with the passphrase from MEMORIA_EXPORT_PASSPHRASE or asked on the terminal. restore sends a plain or age
export back (POST /v1/import); a wrong passphrase sends nothing.

  --out <file>     where export writes (the file holds the team's text: mode 0600)
  --encrypt        encrypt the export with a passphrase (age)
  -h, --help       show this help

Exit status: 0 when nothing failed, 1 when something did, 2 on bad arguments.`;

export class UsageError extends Error {
  override readonly name = "UsageError";
}

export interface ImportOptions {
  folder: string;
  /** The name the folder's documents are kept under: `file:<source>/<relative path>`. */
  source: string;
  url: URL;
  key: string;
  prune: boolean;
  dryRun: boolean;
}

/**
 * Longest source name, in code points: long enough for any folder name (255 bytes on common file systems),
 * short enough to leave most of an externalId's 512 code points to the relative path.
 */
const MAX_SOURCE_LENGTH = 128;

export interface ExportOptions {
  url: URL;
  key: string;
  out: string;
  encrypt: boolean;
}

export interface RestoreOptions {
  file: string;
  url: URL;
  key: string;
}

export type Command =
  | { kind: "help" }
  | { kind: "import"; options: ImportOptions }
  | { kind: "export"; options: ExportOptions }
  | { kind: "restore"; options: RestoreOptions };

/** The options each command takes besides --url, --key and --help. */
const commandOptions: Record<string, readonly string[]> = {
  import: ["source", "prune", "dry-run"],
  export: ["out", "encrypt"],
  restore: [],
};

const options = {
  url: { type: "string" },
  key: { type: "string" },
  prune: { type: "boolean" },
  "dry-run": { type: "boolean" },
  source: { type: "string" },
  out: { type: "string" },
  encrypt: { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

function parse(args: string[]) {
  try {
    return parseArgs({ args, options, allowPositionals: true, strict: true, tokens: true });
  } catch (error) {
    // node's messages name the option ("Option '--url <value>' argument missing"); its unknown-option one
    // goes on about positionals, so that one is cut to its point.
    const message = error instanceof Error ? error.message : String(error);
    const code = (error as { code?: unknown }).code;
    const option = message.match(/'([^']+)'/)?.[1];
    if (code === "ERR_PARSE_ARGS_UNKNOWN_OPTION" && option) throw new UsageError(`Unknown option ${option}.`);
    throw new UsageError(message.endsWith(".") ? message : `${message}.`);
  }
}

/**
 * The source a run manages: `--source`, else the folder's own name (`./handbook/` → `handbook`). A `/` would
 * make `file:<source>/<path>` ambiguous, so none is taken; nor a control character, `.` or `..`.
 */
function sourceOf(given: string | undefined, folder: string): string {
  const source = given ?? basename(resolve(folder));
  const refuse = (why: string) =>
    new UsageError(
      given === undefined
        ? `The folder's name, as its source, ${why}; give --source <name>.`
        : `--source ${why}.`,
    );
  if (source === "" || source === "." || source === "..") throw refuse("must be a name");
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused.
  if (/[/\\\u0000-\u001f\u007f]/.test(source)) throw refuse("must not hold a /, a \\ or a control character");
  if ([...source].length > MAX_SOURCE_LENGTH) throw refuse(`must be at most ${MAX_SOURCE_LENGTH} characters`);
  return source;
}

function parseUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError("--url must be an http:// or https:// URL.");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new UsageError("--url must be an http:// or https:// URL.");
  }
  if (url.username || url.password) {
    throw new UsageError("--url must not carry a user name or password; the team key goes in --key.");
  }
  return url;
}

function checkKey(key: string): string {
  if (!/^mem_\S+$/.test(key)) {
    throw new UsageError(
      "--key must be a team key (mem_…), as POST /v1/teams or /v1/teams/{id}/keys returned it.",
    );
  }
  return key;
}

export function parseCommand(argv: string[], env: Record<string, string | undefined> = {}): Command {
  const { values, positionals, tokens } = parse(argv);
  if (values.help) return { kind: "help" };
  const [command, ...rest] = positionals;
  if (command === undefined) throw new UsageError("Name a command: import, export or restore.");
  if (command === "help") return { kind: "help" };
  const own = commandOptions[command];
  if (own === undefined)
    throw new UsageError(`Unknown command "${command}"; the commands are import, export and restore.`);

  const seen = new Set<string>();
  for (const token of tokens) {
    if (token.kind !== "option") continue;
    if (seen.has(token.name)) throw new UsageError(`--${token.name} is given more than once.`);
    if (!["url", "key", "help", ...own].includes(token.name))
      throw new UsageError(`--${token.name} is not an option of ${command}.`);
    seen.add(token.name);
  }

  const credentials = () => {
    const urlText = values.url ?? env.MEMORIA_URL;
    if (urlText === undefined || urlText === "")
      throw new UsageError("--url is required (or set MEMORIA_URL).");
    const key = values.key ?? env.MEMORIA_KEY;
    if (key === undefined || key === "") throw new UsageError("--key is required (or set MEMORIA_KEY).");
    return { urlText, key };
  };

  if (command === "export") {
    // Not quoted back: a team key typed without --key would land in the terminal and in CI logs.
    if (rest.length > 0) throw new UsageError("export takes no argument; name the file with --out <file>.");
    const out = values.out;
    if (out === undefined || out.trim() === "") throw new UsageError("export needs --out <file>.");
    const { urlText, key } = credentials();
    return {
      kind: "export",
      options: { url: parseUrl(urlText), key: checkKey(key), out, encrypt: values.encrypt ?? false },
    };
  }
  if (command === "restore") {
    if (rest.length !== 1 || (rest[0] as string).trim() === "")
      throw new UsageError("restore takes one file: memoria restore <file> ….");
    const { urlText, key } = credentials();
    return {
      kind: "restore",
      options: { file: rest[0] as string, url: parseUrl(urlText), key: checkKey(key) },
    };
  }

  if (rest.length === 0) throw new UsageError("import needs the folder to send: memoria import <folder> ….");
  if (rest.length > 1) {
    // Not quoted back: a team key typed without --key would land in the terminal and in CI logs.
    throw new UsageError(`import takes one folder; also got ${rest.length - 1} more argument(s).`);
  }
  const folder = rest[0] as string;
  if (folder.trim() === "") throw new UsageError("The folder must not be empty.");
  const { urlText, key } = credentials();

  return {
    kind: "import",
    options: {
      folder,
      url: parseUrl(urlText),
      key: checkKey(key),
      source: sourceOf(values.source, folder),
      prune: values.prune ?? false,
      dryRun: values["dry-run"] ?? false,
    },
  };
}
