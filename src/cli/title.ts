// A document's title for `memoria import`: extracted where the chunker's own readers live
// (src/ingest/title.ts), so a raw upload without ?title= can use the same rule.

export { cleanTitle, headingTitle, MAX_TITLE_CHARS, titleOf } from "../ingest/title.js";
