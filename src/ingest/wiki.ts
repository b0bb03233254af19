// Wiki syntax as Obsidian (and Foam, Dendron, Logseq) write it, read as a reader sees it: `[[Target]]` is
// the word "Target", `[[Target|shown]]` is "shown", `[[Note#Heading]]` is "Note › Heading", an embed
// `![[diagram.png]]` shows another file and adds no words, and a callout's marker line `> [!warning] Freeze`
// is its title, "Freeze" (the type, "Warning", when it has none, as the tools render it).

/**
 * Longest target read as a wiki link. Note names and paths are well under 256 characters (file systems
 * stop there); past this the brackets are text, and no `[[` costs more than this scan.
 */
const maxWikiLink = 512;

// Obsidian's and GitHub's callout marker at the start of a block quote: `[!type]`, `+`/`-` when foldable.
const calloutMarker = /^\[!([A-Za-z][\w-]{0,63})\][+-]?(?:[ \t]+|$)/;

/** The text a wiki link stands for: its shown text, else its target with an anchor as a trail. */
function linkText(target: string, shown: string | null): string {
  if (shown !== null && shown.trim() !== "") return shown.trim();
  const hash = target.indexOf("#");
  if (hash === -1) return target.trim();
  const page = target.slice(0, hash).trim();
  // `#^block-id` names a block by an id nobody reads.
  const anchor =
    target.charAt(hash + 1) === "^"
      ? ""
      : target
          .slice(hash + 1)
          .replace(/#/g, " › ")
          .trim();
  if (page === "") return anchor;
  return anchor === "" ? page : `${page} › ${anchor}`;
}

/**
 * A wiki link whose `[[` starts at `at`: the text it reads as and where it ends, or null when the brackets
 * are no link (empty, unclosed within the bound, spanning a line, holding a bracket, or `[[x]](url)`, which is
 * a markdown link whose text has brackets). A pipe escaped as `\|` (inside a table) separates too.
 */
export function wikiLinkAt(source: string, at: number): { text: string; end: number } | null {
  const limit = Math.min(source.length, at + 2 + maxWikiLink);
  let pipe = -1;
  for (let i = at + 2; i < limit; i++) {
    const c = source.charCodeAt(i);
    if (c === 93 /* ] */) {
      if (i === at + 2 || source.charCodeAt(i + 1) !== 93 || source.charCodeAt(i + 2) === 40) return null;
      if (pipe === -1) return { text: linkText(source.slice(at + 2, i), null), end: i + 2 };
      const escaped = source.charCodeAt(pipe - 1) === 92;
      const target = source.slice(at + 2, escaped ? pipe - 1 : pipe);
      return { text: linkText(target, source.slice(pipe + 1, i)), end: i + 2 };
    }
    if (c === 91 /* [ */ || c === 10) return null;
    if (c === 124 /* | */ && pipe === -1) pipe = i;
  }
  return null;
}

/**
 * The first line of a block quote with its callout marker read: the title, or the type capitalised when
 * there is none; the line unchanged when it opens no callout.
 */
export function calloutLine(line: string): string {
  if (line.charCodeAt(0) !== 91) return line;
  const marker = calloutMarker.exec(line);
  if (!marker) return line;
  const title = line.slice(marker[0].length);
  if (title.trim() !== "") return title;
  const type = (marker[1] ?? "").replace(/[-_]+/g, " ");
  return type.charAt(0).toUpperCase() + type.slice(1).toLowerCase();
}
