/** @jsxRuntime automatic @jsxImportSource hono/jsx */
// A hit's snippet with its <mark>s. The index hands it over HTML-escaped except the marks; rather than
// trusting that and writing it raw, the marks are split out and every piece between them is decoded and
// escaped again by JSX, so a snippet can never carry markup of its own whatever the index did. A mark around a
// stop word ("to", "the") is dropped: its text stays, unmarked (./stop-words.ts says why only here).

import { decodeEntities } from "../ingest/entities.js";
import { isStopWord } from "./stop-words.js";

export function Snippet({ html }: { html: string }) {
  const pieces = html.split(/<(\/?)mark>/);
  // split with one capture group alternates text, "" or "/", text, …: track whether we are inside a mark.
  const out = [];
  let marked = false;
  for (let i = 0; i < pieces.length; i++) {
    const piece = pieces[i] ?? "";
    if (i % 2 === 1) {
      marked = piece === "";
      continue;
    }
    if (piece === "") continue;
    const text = decodeEntities(piece);
    out.push(marked && !isStopWord(text) ? <mark>{text}</mark> : text);
  }
  return <p class="snippet">{out}</p>;
}
