// The folder walk: which files an import sends, and links followed only inside the folder, once each.

import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, renameSync, symlinkSync, writeFileSync } from "node:fs";
import { join, sep } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { isInside, readFound, walkFolder } from "../../src/cli/walk.js";
import { tempDir } from "../support/app.js";
import { writeTree } from "./harness.js";

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

function fresh(): { root: string; outside: string; base: string } {
  const tmp = tempDir();
  cleanups.push(tmp.cleanup);
  const root = join(tmp.dir, "notes");
  const outside = join(tmp.dir, "outside");
  mkdirSync(root);
  mkdirSync(outside);
  return { root, outside, base: tmp.dir };
}

const paths = (files: { relativePath: string }[]) => files.map((f) => f.relativePath);

describe("walkFolder", () => {
  it("finds the document extensions (.htm included) in any case, sorted, with their formats, and skips dot-names", async () => {
    const { root } = fresh();
    writeTree(root, {
      "b.md": "",
      "a/z.MARKDOWN": "",
      "a/y.txt": "",
      "a/deeper/x.html": "",
      "c.htm": "",
      "d.pdf": "",
      "f.DOCX": "",
      "g.doc": "",
      "e.md.bak": "",
      ".hidden.md": "",
      ".git/HEAD.md": "",
      "a/.obsidian/workspace.md": "",
      "README.MD": "",
    });
    const walked = await walkFolder(root);
    expect(walked.files.map((f) => [f.relativePath, f.format])).toEqual([
      ["README.MD", "markdown"],
      ["a/deeper/x.html", "html"],
      ["a/y.txt", "text"],
      ["a/z.MARKDOWN", "markdown"],
      ["b.md", "markdown"],
      ["c.htm", "html"],
      ["d.pdf", "pdf"],
      ["f.DOCX", "docx"],
    ]);
    expect(walked.skipped).toEqual([]);
    expect(walked.unreadable).toEqual([]);
  });

  it("ignores a pipe named like a document", async () => {
    const { root } = fresh();
    mkfifoSafe(join(root, "pipe.md"));
    writeTree(root, { "ok.md": "" });
    expect(paths((await walkFolder(root)).files)).toEqual(["ok.md"]);
  });

  it("does not follow links to files or folders outside the folder, relative or absolute", async () => {
    const { root, outside } = fresh();
    writeTree(outside, { "secret.md": "", "dir/inner.md": "" });
    writeTree(root, { "mine.md": "" });
    symlinkSync(join(outside, "secret.md"), join(root, "abs.md"));
    symlinkSync("../outside/secret.md", join(root, "rel.md"));
    symlinkSync("../outside/dir", join(root, "dir"));
    symlinkSync("/", join(root, "slash"));
    const walked = await walkFolder(root);
    expect(paths(walked.files)).toEqual(["mine.md"]);
    expect(walked.skipped).toEqual([
      { relativePath: "abs.md", reason: "outside" },
      { relativePath: "dir", reason: "outside" },
      { relativePath: "rel.md", reason: "outside" },
      { relativePath: "slash", reason: "outside" },
    ]);
    for (const file of walked.files) expect(isInside(walked.root, file.realPath)).toBe(true);
  });

  it("does not leave through a link inside a linked folder, nor through a chain of links", async () => {
    const { root, outside, base } = fresh();
    writeTree(outside, { "secret.md": "" });
    writeTree(root, { ".vault/note.md": "" });
    symlinkSync("../../outside/secret.md", join(root, ".vault/escape.md"));
    symlinkSync(".vault", join(root, "vault"));
    // A link inside the folder to a link that leaves it.
    symlinkSync(join(base, "hop.md"), join(root, "hop.md"));
    symlinkSync(join(outside, "secret.md"), join(base, "hop.md"));
    const walked = await walkFolder(root);
    expect(paths(walked.files)).toEqual(["vault/note.md"]);
    expect(walked.skipped).toEqual([
      { relativePath: "hop.md", reason: "outside" },
      { relativePath: "vault/escape.md", reason: "outside" },
    ]);
  });

  it("takes each real file once: under its own path, and a link to it is a duplicate", async () => {
    const { root } = fresh();
    writeTree(root, { "z/real.md": "", "docs/guide.md": "" });
    symlinkSync("../z/real.md", join(root, "docs/alias.md"));
    symlinkSync("docs", join(root, "a-docs"));
    const walked = await walkFolder(root);
    expect(paths(walked.files)).toEqual(["docs/guide.md", "z/real.md"]);
    expect(walked.skipped).toEqual([
      { relativePath: "a-docs", reason: "duplicate", sameAs: "docs" },
      { relativePath: "docs/alias.md", reason: "duplicate", sameAs: "z/real.md" },
    ]);
  });

  it("follows a link inside the folder to what the walk does not reach by itself", async () => {
    const { root } = fresh();
    writeTree(root, { ".archive/2024/old.md": "", ".archive/2024/older.md": "", ".templates/t.md": "" });
    symlinkSync(".archive/2024", join(root, "archive"));
    symlinkSync(".templates/t.md", join(root, "template.md"));
    symlinkSync("old.md", join(root, ".archive/2024/again.md"));
    const walked = await walkFolder(root);
    expect(paths(walked.files)).toEqual(["archive/old.md", "archive/older.md", "template.md"]);
    expect(walked.skipped).toEqual([
      { relativePath: "archive/again.md", reason: "duplicate", sameAs: "archive/old.md" },
    ]);
  });

  it("ends on loops: links to the folder itself, to an ancestor, and to each other", async () => {
    const { root } = fresh();
    writeTree(root, { "a/b/c.md": "", "top.md": "" });
    symlinkSync(".", join(root, "self"));
    symlinkSync("../..", join(root, "a/b/up"));
    symlinkSync("../b", join(root, "a/b/sideways"));
    symlinkSync("ping.md", join(root, "pong.md"));
    symlinkSync("pong.md", join(root, "ping.md"));
    const walked = await walkFolder(root);
    expect(paths(walked.files)).toEqual(["a/b/c.md", "top.md"]);
    expect(walked.skipped).toEqual([
      { relativePath: "a/b/sideways", reason: "duplicate", sameAs: "a/b" },
      { relativePath: "a/b/up", reason: "duplicate", sameAs: "" },
      // Links that lead to each other resolve to nothing (ELOOP).
      { relativePath: "ping.md", reason: "broken" },
      { relativePath: "pong.md", reason: "broken" },
      { relativePath: "self", reason: "duplicate", sameAs: "" },
    ]);
  });

  it("reports a dangling link only when it is named like a document", async () => {
    const { root } = fresh();
    symlinkSync("nowhere.md", join(root, "gone.md"));
    symlinkSync("nowhere.png", join(root, "gone.png"));
    const walked = await walkFolder(root);
    expect(walked.files).toEqual([]);
    expect(walked.skipped).toEqual([{ relativePath: "gone.md", reason: "broken" }]);
  });

  it("walks a folder given through a link, with paths relative to it", async () => {
    const { root, base } = fresh();
    writeTree(root, { "x/y.md": "" });
    symlinkSync(root, join(base, "alias"));
    const walked = await walkFolder(join(base, "alias"));
    expect(paths(walked.files)).toEqual(["x/y.md"]);
    expect(walked.files[0]?.realPath).toBe(join(walked.root, "x", "y.md"));
  });

  it.skipIf(process.getuid?.() === 0)("records a folder it cannot list and goes on", async () => {
    const { root } = fresh();
    writeTree(root, { "locked/in.md": "", "open.md": "" });
    chmodSync(join(root, "locked"), 0o000);
    cleanups.unshift(() => chmodSync(join(root, "locked"), 0o755));
    const walked = await walkFolder(root);
    expect(paths(walked.files)).toEqual(["open.md"]);
    expect(walked.unreadable).toEqual([{ relativePath: "locked", error: "EACCES" }]);
  });
});

describe("readFound", () => {
  it("refuses to read through a folder swapped for a link to the outside since the walk", async () => {
    const tmp = tempDir();
    try {
      const root = join(tmp.dir, "notes");
      const outside = join(tmp.dir, "private");
      mkdirSync(join(root, "sub"), { recursive: true });
      mkdirSync(outside);
      writeFileSync(join(root, "sub", "a.md"), "# inside\n");
      writeFileSync(join(outside, "a.md"), "# outside secret\n");
      const walked = await walkFolder(root);
      const found = walked.files[0];
      if (!found) throw new Error("nothing found");
      expect(await readFound(found)).toBe("# inside\n");
      renameSync(join(root, "sub"), join(tmp.dir, "moved"));
      symlinkSync(outside, join(root, "sub"));
      await expect(readFound(found)).rejects.toThrow(/changed since the walk/);
    } finally {
      tmp.cleanup();
    }
  });
});

describe("isInside", () => {
  it("is true for the root and below, false for siblings sharing a prefix and for parents", () => {
    const root = `${sep}a${sep}notes`;
    expect(isInside(root, root)).toBe(true);
    expect(isInside(root, `${root}${sep}x.md`)).toBe(true);
    expect(isInside(root, `${root}${sep}..x.md`)).toBe(true);
    expect(isInside(root, `${sep}a${sep}notes-2${sep}x.md`)).toBe(false);
    expect(isInside(root, `${sep}a`)).toBe(false);
    expect(isInside(root, `${sep}b${sep}notes`)).toBe(false);
  });
});

function mkfifoSafe(path: string): void {
  execFileSync("mkfifo", [path]);
}
