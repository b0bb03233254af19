// Links in the folder, end to end: followed only when they resolve inside it, and each real file sent once.

import { mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { search } from "../support/app.js";
import { runCli, summaryOf, withServer, writeTree } from "./harness.js";

describe("memoria import and links", () => {
  it("never follows a link out of the folder, and takes a link inside it once", async () => {
    await withServer(async (s) => {
      const outside = join(s.tmp, "outside");
      writeTree(outside, {
        "secret.md": "# Secret\n\nthe platypusword must not leave this folder\n",
        "dir/more.md": "# More\n\nthe narwhalword neither\n",
      });
      writeTree(s.folder, {
        "real.md": "# Real\n\nthe kiwiword\n",
        ".archive/old.md": "# Old\n\nthe oldword\n",
      });
      symlinkSync(join(outside, "secret.md"), join(s.folder, "leak.md"));
      symlinkSync("../outside/dir", join(s.folder, "leakdir"));
      symlinkSync("real.md", join(s.folder, "alias.md"));
      symlinkSync(".", join(s.folder, "loop"));
      symlinkSync(".archive/old.md", join(s.folder, "old.md"));
      mkdirSync(join(s.folder, "sub"));
      symlinkSync("..", join(s.folder, "sub", "up"));

      const run = await s.importCli();
      expect(run.code, run.stderr).toBe(0);
      expect(summaryOf(run.stdout)).toEqual({ sent: 2, unchanged: 0, deleted: 0, failed: 0 });
      expect([...(await s.byExternalId()).keys()].sort()).toEqual([
        "file:notes/old.md",
        "file:notes/real.md",
      ]);

      expect((await search(s.app, s.apiKey, "platypusword")).hits).toEqual([]);
      expect((await search(s.app, s.apiKey, "narwhalword")).hits).toEqual([]);
      expect((await search(s.app, s.apiKey, "kiwiword")).hits).toHaveLength(1);
      expect((await search(s.app, s.apiKey, "oldword")).hits).toHaveLength(1);

      expect(run.stderr).toContain("skipped leak.md (a link to outside the folder; not followed)");
      expect(run.stderr).toContain("skipped leakdir (a link to outside the folder; not followed)");
      expect(run.stderr).toContain("skipped alias.md (the same as real.md)");
      expect(run.stderr).toContain("skipped loop (the same folder as the folder itself)");
      expect(run.stderr).toContain("skipped sub/up (the same folder as the folder itself)");
      expect(run.stdout + run.stderr).not.toContain("platypusword");

      const again = await s.importCli(["--prune"]);
      expect(summaryOf(again.stdout)).toEqual({ sent: 0, unchanged: 2, deleted: 0, failed: 0 });
    });
  });

  it("imports through a folder given as a link, under paths relative to that folder", async () => {
    await withServer(async (s) => {
      writeTree(s.folder, { "team/plan.md": "# Plan\n\nthe quollword\n" });
      const alias = join(s.tmp, "notes-link");
      symlinkSync(s.folder, alias);
      const run = await runCli(["import", alias, "--url", s.url, "--key", s.apiKey]);
      expect(run.code, run.stderr).toBe(0);
      expect((await s.byExternalId()).get("file:notes-link/team/plan.md")).toMatchObject({ path: ["team"] });
    });
  });
});
