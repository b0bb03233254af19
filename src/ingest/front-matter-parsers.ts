// The YAML and TOML parsers front matter is read with, loaded when a document first needs them. They are
// ~280 KB of code (the yaml package ~258 KB) that a start would otherwise compile and evaluate for nothing:
// exec to a ready answer took 12–17 ms longer with them loaded at start (docs/decisions/0106).

export interface FrontMatterParsers {
  /** The block's value as YAML, or a thrown error. Bounded against alias bombs; never prints. */
  yaml(block: string): unknown;
  /** The block's value as TOML, or a thrown error. Bounded in depth. */
  toml(block: string): unknown;
}

let loading: Promise<FrontMatterParsers> | null = null;

/** The parsers (front-matter-syntax.ts), imported on the first call; every later call gets the same ones. */
export function loadFrontMatterParsers(): Promise<FrontMatterParsers> {
  if (!loading) {
    const attempt = import("./front-matter-syntax.js").then((module) => module.frontMatterSyntax);
    loading = attempt;
    // A failed import is tried again by the next document rather than remembered.
    attempt.catch(() => {
      if (loading === attempt) loading = null;
    });
  }
  return loading;
}
