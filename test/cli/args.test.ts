// The command line: parsing, and bad arguments answered with a clear message and exit 2.

import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseCommand, UsageError } from "../../src/cli/args.js";
import { tempDir } from "../support/app.js";
import { runCli } from "./harness.js";

const KEY = "mem_t123_secretsecret";

describe("parseCommand", () => {
  it("reads the import command in either option form", () => {
    expect(
      parseCommand(["import", "./notes", "--url", "http://localhost:8787", "--key", KEY, "--prune"]),
    ).toEqual({
      kind: "import",
      options: {
        folder: "./notes",
        url: new URL("http://localhost:8787"),
        key: KEY,
        source: "notes",
        prune: true,
        dryRun: false,
      },
    });
    const eq = parseCommand(["import", "--dry-run", "--url=https://m.example.com/base", `--key=${KEY}`, "n"]);
    expect(eq).toMatchObject({ kind: "import", options: { folder: "n", dryRun: true, prune: false } });
  });

  it("names the source after the folder, trailing slash or not, unless --source names it", () => {
    const args = ["--url", "http://localhost:8787", "--key", KEY];
    const sourceOf = (argv: string[]) => {
      const command = parseCommand(["import", ...argv, ...args]);
      return command.kind === "import" ? command.options.source : null;
    };
    expect(sourceOf(["./docs/handbook/"])).toBe("handbook");
    expect(sourceOf(["handbook", "--source", "team-handbook"])).toBe("team-handbook");
    expect(() => sourceOf(["handbook", "--source", ".."])).toThrow(UsageError);
    expect(() => sourceOf(["handbook", "--source", "a\nb"])).toThrow(/control character/);
    expect(() => sourceOf(["handbook", "--source", "x".repeat(129)])).toThrow(/at most 128/);
  });

  it("documents --source in --help", async () => {
    const run = await runCli(["import", "--help"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("--source <name>");
    expect(run.stdout).toContain("file:<source>/<relative path>");
  });

  it("takes the URL and key from MEMORIA_URL and MEMORIA_KEY when the options are absent", () => {
    const env = { MEMORIA_URL: "http://127.0.0.1:1", MEMORIA_KEY: KEY };
    expect(parseCommand(["import", "n"], env)).toMatchObject({ options: { key: KEY } });
    // An option wins over the environment.
    const other = "mem_t9_other";
    expect(parseCommand(["import", "n", "--key", other], env)).toMatchObject({ options: { key: other } });
  });

  it("answers help", () => {
    expect(parseCommand(["--help"])).toEqual({ kind: "help" });
    expect(parseCommand(["import", "-h"])).toEqual({ kind: "help" });
    expect(parseCommand(["help"])).toEqual({ kind: "help" });
  });

  const bad: [string, string[], RegExp][] = [
    ["no command", [], /Name a command/],
    ["an unknown command", ["upload", "n"], /Unknown command "upload"/],
    ["no folder", ["import", "--url", "http://x", "--key", KEY], /needs the folder/],
    [
      "two folders",
      ["import", "a", "b", "--url", "http://x", "--key", KEY],
      /one folder; also got 1 more argument/,
    ],
    // A key typed without --key is an extra argument: the message must not print it.
    [
      "a key without --key",
      ["import", "a", KEY, "--url", "http://x"],
      /^(?![\s\S]*mem_)[\s\S]*also got 1 more/,
    ],
    ["no URL", ["import", "n", "--key", KEY], /--url is required/],
    ["no key", ["import", "n", "--url", "http://x"], /--key is required/],
    ["a URL that is not one", ["import", "n", "--url", "localhost:8787x", "--key", KEY], /--url must be/],
    ["a URL of another scheme", ["import", "n", "--url", "ftp://x", "--key", KEY], /http:\/\/ or https:\/\//],
    [
      "a URL with a password",
      ["import", "n", "--url", "http://u:p@x", "--key", KEY],
      /user name or password/,
    ],
    [
      "a key that is not a team key",
      ["import", "n", "--url", "http://x", "--key", "abc"],
      /team key \(mem_…\)/,
    ],
    [
      "an unknown option",
      ["import", "n", "--url", "http://x", "--key", KEY, "--force"],
      /Unknown option --force/,
    ],
    ["an option without its value", ["import", "n", "--key", KEY, "--url"], /--url/],
    ["a value for a flag", ["import", "n", "--url", "http://x", "--key", KEY, "--prune=yes"], /--prune/],
    [
      "an option twice",
      ["import", "n", "--url", "http://x", "--url", "http://y", "--key", KEY],
      /--url is given more than once/,
    ],
  ];
  for (const [what, argv, message] of bad) {
    it(`refuses ${what}`, () => {
      expect(() => parseCommand(argv)).toThrow(UsageError);
      expect(() => parseCommand(argv)).toThrow(message);
    });
  }
});

describe("the memoria command with bad arguments", () => {
  it("exits 2 with the reason and the usage, and does nothing", async () => {
    const tmp = tempDir();
    try {
      const file = join(tmp.dir, "a.md");
      writeFileSync(file, "# A");
      // Port 9 (discard) on loopback: were anything sent, the run would fail with 1, not 2.
      const url = "http://127.0.0.1:9";
      const cases: [string[], string][] = [
        [[], "Name a command"],
        [["import"], "import needs the folder to send"],
        [["import", tmp.dir, "--key", KEY], "--url is required"],
        [["import", tmp.dir, "--url", "nope", "--key", KEY], "--url must be an http:// or https:// URL."],
        [["import", tmp.dir, "--url", url, "--key", KEY, "--bogus"], "Unknown option --bogus"],
        [
          ["import", join(tmp.dir, "missing"), "--url", url, "--key", KEY],
          `No folder at ${join(tmp.dir, "missing")}.`,
        ],
        [["import", file, "--url", url, "--key", KEY], `${file} is not a folder.`],
      ];
      const runs = await Promise.all(cases.map(([argv]) => runCli(argv)));
      runs.forEach((run, i) => {
        const [argv, message] = cases[i] as [string[], string];
        expect(run.code, argv.join(" ")).toBe(2);
        expect(run.stderr).toContain(`memoria: ${message}`);
        expect(run.stderr).toContain("Usage: memoria import <folder> --url <memoria url> --key <team key>");
        expect(run.stdout).toBe("");
      });
    } finally {
      tmp.cleanup();
    }
  });

  it("prints the usage on --help and exits 0", async () => {
    const run = await runCli(["--help"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("Usage: memoria import <folder>");
    expect(run.stdout).toContain("--prune");
    expect(run.stdout).toContain("--dry-run");
  });
});
