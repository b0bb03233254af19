// The YAML and TOML parsers themselves, bounded for front matter. Only front-matter-parsers.ts imports this
// file, on first use; the packages are imported here statically so the bundler wraps yaml's CommonJS build as
// an ES module (a dynamic import of the package itself came out of the bundle with no `parse`).

import { parse as parseToml } from "smol-toml";
import { parse as parseYaml } from "yaml";
import type { FrontMatterParsers } from "./front-matter-parsers.js";

/**
 * YAML aliases a block may resolve. Front matter has no use for anchors; the yaml package's own default
 * (100) already stops a billion-laughs block, and a lower bound stops it sooner.
 */
const MAX_YAML_ALIASES = 16;
/** TOML tables nested deeper than this are refused by the parser: metadata is two or three levels deep. */
const MAX_TOML_DEPTH = 16;

export const frontMatterSyntax: FrontMatterParsers = {
  yaml: (block) =>
    parseYaml(block, {
      maxAliasCount: MAX_YAML_ALIASES,
      // logLevel silent: the package would otherwise print warnings that quote the block.
      logLevel: "silent",
      prettyErrors: false,
      // A repeated key keeps its last value; checking for repeats costs quadratic time.
      uniqueKeys: false,
    }),
  toml: (block) => parseToml(block, { maxDepth: MAX_TOML_DEPTH }),
};
