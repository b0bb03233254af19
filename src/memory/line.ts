// One entry as one line of the working-memory block, and what the line costs in tokens.

import { utf8Length } from "../text/length.js";
import { BYTES_PER_TOKEN } from "./constants.js";
import type { MemoryEntry } from "./entry.js";

/** ceil(UTF-8 bytes / 4): an estimate that errs towards too many tokens, never too few. */
export function estimateTokens(text: string): number {
  return Math.ceil(utf8Length(text) / BYTES_PER_TOKEN);
}

// memoria writes createdAt with toISOString(); its first ten characters are the UTC day already. Parsing is
// kept for any other form (an offset other than Z), where the UTC day may differ from the written one.
const UTC_ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

function utcDay(createdAt: string): string {
  return UTC_ISO.test(createdAt) ? createdAt.slice(0, 10) : new Date(createdAt).toISOString().slice(0, 10);
}

/**
 * The fewest tokens the entry's line can cost, from its fixed parts alone: "- " (2 bytes), id, " " (1), the
 * day (10), " [" (2), project, "/" (1), type and "] " (2). A budget fill skips an entry whose floor is already
 * over what is left without rendering its line; the floor never exceeds the true cost (a UTF-16 unit is at
 * least one UTF-8 byte), so nothing that fits is skipped.
 */
export function minimumTokens(entry: MemoryEntry): number {
  const fixed = 18 + entry.id.length + (entry.project ?? "-").length + (entry.type ?? "-").length;
  return Math.ceil(fixed / BYTES_PER_TOKEN);
}

// Line breaks of any kind, with the spaces around them. A title or impact typed over two lines must not
// break the one-entry-per-line block an agent reads (a second line would look like a line of its own).
const LINE_BREAKS = /\s*[\n\r\u0085\u2028\u2029]\s*/g;

const oneLine = (text: string) => text.replace(LINE_BREAKS, " ").trim();

/**
 * `- <id> <YYYY-MM-DD> [<project>/<type>] <title> — <impact>`: "-" for a missing project or type, and the
 * impact clause only when there is an impact, so no line ends in a dangling dash. The date is createdAt's UTC
 * calendar day.
 */
export function renderLine(entry: MemoryEntry): string {
  const day = utcDay(entry.createdAt);
  const head = `- ${entry.id} ${day} [${entry.project ?? "-"}/${entry.type ?? "-"}] ${oneLine(entry.title)}`;
  const impact = entry.impact === null ? "" : oneLine(entry.impact);
  return impact === "" ? head : `${head} — ${impact}`;
}
