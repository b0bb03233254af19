// Progress and summary as a person sees them: a bar on a terminal, lines elsewhere, the summary on stdout,
// and never a word of a file's content. The command runs in this process against the app's own fetch.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.js";
import { BarProgress, LineProgress } from "../../src/cli/progress.js";
import { summaryLine } from "../../src/cli/summary.js";
import { buildTestApp, makeTeam } from "../support/app.js";
import { writeTree } from "./harness.js";

function sink(isTTY: boolean, columns = 100) {
  const out = { text: "", isTTY, columns, write: (t: string) => (out.text += t) };
  return out;
}

describe("the import's output", () => {
  it("draws a bar on a terminal, prints failures above it, clears it, and prints no content", async () => {
    const app = await buildTestApp();
    const tmp = mkdtempSync(join(tmpdir(), "memoria-cli-"));
    try {
      const { apiKey } = await makeTeam(app);
      writeTree(tmp, { "one.md": "# Secret title\n\nsalamanderword", "two/three.txt": "axolotlword" });
      const stdout = sink(false);
      const stderr = sink(true);
      const code = await main(["import", tmp, "--url", "http://memoria.test", "--key", apiKey], {
        stdout,
        stderr,
        env: {},
        fetch: (input, init) => Promise.resolve(app.memoria.app.request(input as string, init)),
      });
      expect(code).toBe(0);
      expect(stdout.text).toBe("sent 2, unchanged 0, deleted 0, failed 0\n");
      expect(stderr.text).toContain("\r\x1b[K[");
      expect(stderr.text).toContain("] 2/2");
      expect(stderr.text.endsWith("\r\x1b[K")).toBe(true);
      for (const word of ["salamanderword", "axolotlword", "Secret title"]) {
        expect(stdout.text + stderr.text).not.toContain(word);
      }
    } finally {
      app.close();
      rmSync(tmp, { recursive: true, force: true });
    }
  });

  it("keeps a failure on screen above the bar", () => {
    const err = sink(true);
    const bar = new BarProgress(err);
    bar.start(2);
    bar.step({ outcome: "failed", what: "a.md", detail: "500 internal: Internal error." });
    bar.step({ outcome: "sent", what: "b.md", detail: "new" });
    bar.finish();
    expect(err.text).toContain("\r\x1b[Kfailed a.md (500 internal: Internal error.)\n");
    expect(err.text).toContain("2/2 b.md");
  });

  it("shortens a long path to fit a narrow terminal", () => {
    const err = sink(true, 50);
    const bar = new BarProgress(err);
    bar.start(1);
    bar.step({ outcome: "sent", what: `${"very-long-folder/".repeat(5)}note.md` });
    const last = err.text.split("\r\x1b[K").at(-1) ?? "";
    expect([...last].length).toBeLessThan(50);
    expect(last).toContain("…");
    expect(last.endsWith("note.md")).toBe(true);
  });

  it("prints a numbered line per step elsewhere", () => {
    const err = sink(false);
    const lines = new LineProgress(err);
    lines.note("skipped x.md (a link to outside the folder; not followed)");
    lines.start(2);
    lines.step({ outcome: "unchanged", what: "a.md" });
    lines.step({ outcome: "deleted", what: "b.md", detail: "file gone" });
    expect(err.text).toBe(
      "skipped x.md (a link to outside the folder; not followed)\n[1/2] unchanged a.md\n[2/2] deleted b.md (file gone)\n",
    );
  });

  it("sums up in docs/api.md's order, and says so when nothing was changed", () => {
    const counts = { sent: 1, unchanged: 2, deleted: 3, failed: 4 };
    expect(summaryLine(counts, false)).toBe("sent 1, unchanged 2, deleted 3, failed 4");
    expect(summaryLine(counts, true)).toBe(
      "dry run, nothing changed: would send 1, unchanged 2, would delete 3, failed 4",
    );
  });
});
