// A vitest reporter that ends the run with what was skipped for want of an input from outside the repository
// (test/support/outside.ts), each note once with how many tests it skipped: vitest's default reporter counts
// skipped tests but never says why, and a newcomer should read what to install to run them.

import type { Reporter, TestModule } from "vitest/node";

export default class SkipNotes implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const notes = new Map<string, number>();
    for (const module of modules) {
      for (const test of module.children.allTests("skipped")) {
        const result = test.result();
        if (result.state === "skipped" && result.note)
          notes.set(result.note, (notes.get(result.note) ?? 0) + 1);
      }
    }
    if (notes.size === 0) return;
    const total = [...notes.values()].reduce((sum, n) => sum + n, 0);
    const lines = [...notes].sort((a, b) => b[1] - a[1]).map(([note, n]) => `  ${n} × ${note}`);
    process.stdout.write(
      `\nSkipped, for what this machine lacks (${total} ${total === 1 ? "test" : "tests"}):\n${lines.join("\n")}\n`,
    );
  }
}
