// The YAML and TOML parsers front matter is read with, loaded when a document first needs them. They are
// ~280 KB of code (the yaml package ~258 KB) that a start would otherwise compile and evaluate for nothing:
// exec to a ready answer took 12–17 ms longer with them loaded at start (docs/decisions/0106).

export interface FrontMatterParsers {
  /** The block's value as YAML, or a thrown error. Bounded against alias bombs; never prints. */
  yaml(block: string): unknown;
  /** The block's value as TOML, or a thrown error. Bounded in depth. */
  toml(block: string): unknown;
}

/**
 * YAML aliases a block may resolve. Front matter has no use for anchors; the yaml package's own default
 * (100) already stops a billion-laughs block, and a lower bound stops it sooner.
 */
const MAX_YAML_ALIASES = 16;
/** TOML tables nested deeper than this are refused by the parser: metadata is two or three levels deep. */
const MAX_TOML_DEPTH = 16;

let loading: Promise<FrontMatterParsers> | null = null;

/** The parsers, imported on the first call; every later call gets the same ones. */
export function loadFrontMatterParsers(): Promise<FrontMatterParsers> {
  loading ??= Promise.all([import("yaml"), import("smol-toml")]).then(([yaml, toml]) => ({
    yaml: (block) =>
      yaml.parse(block, {
        maxAliasCount: MAX_YAML_ALIASES,
        // logLevel silent: the package would otherwise print warnings that quote the block.
        logLevel: "silent",
        prettyErrors: false,
        // A repeated key keeps its last value; checking for repeats costs quadratic time.
        uniqueKeys: false,
      }),
    toml: (block) => toml.parse(block, { maxDepth: MAX_TOML_DEPTH }),
  }));
  // A failed import is tried again by the next document rather than remembered.
  loading.catch(() => {
    loading = null;
  });
  return loading;
}
