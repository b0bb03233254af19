// Real text in the index's four columns, for tests that compare memoria's arithmetic with FTS5's: each README
// paragraph under its latest heading, the package as the title and its folder as the path.

import { readFileSync } from "node:fs";

export interface ReadmeRow {
  heading: string;
  body: string;
  title: string;
  path: string;
}

/** The paragraphs of each README in turn, up to `max` rows. */
export function readmeRows(readmes: readonly { name: string; file: string }[], max = Infinity): ReadmeRow[] {
  const rows: ReadmeRow[] = [];
  for (const { name, file } of readmes) {
    let heading = "";
    for (const block of readFileSync(file, "utf8").split(/\n\s*\n/)) {
      const text = block.trim();
      if (text === "") continue;
      if (text.startsWith("#")) {
        heading = text.replace(/^#+\s*/, "").split("\n")[0] ?? "";
        continue;
      }
      rows.push({ heading, body: text, title: name, path: `node_modules › ${name}` });
      if (rows.length >= max) return rows;
    }
  }
  return rows;
}
