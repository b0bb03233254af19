// Snippets are built by FTS5 with control characters as match markers, then HTML-escaped, and only then
// are the markers turned into <mark>: so every character of the passage is escaped and only memoria's own
// tags survive. The markers cannot come from a passage because bodies are indexed with them removed.

export const MATCH_OPEN = "\u0002";
export const MATCH_CLOSE = "\u0003";
const markers = new RegExp(`[${MATCH_OPEN}${MATCH_CLOSE}]`, "g");

/** How many tokens a snippet spans: long enough to show a sentence around the match (FTS5 allows 1–64). */
export const SNIPPET_TOKENS = 24;
export const SNIPPET_ELLIPSIS = "…";

export function withoutMarkers(text: string): string {
  // Checked first because a build passes every passage through here and almost none hold a marker.
  return text.includes(MATCH_OPEN) || text.includes(MATCH_CLOSE) ? text.replace(markers, " ") : text;
}

const escapes: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => escapes[c] ?? c);
}

export function renderSnippet(raw: string): string {
  return escapeHtml(raw).replaceAll(MATCH_OPEN, "<mark>").replaceAll(MATCH_CLOSE, "</mark>");
}
