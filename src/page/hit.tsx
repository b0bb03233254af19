/** @jsxRuntime automatic @jsxImportSource hono/jsx */
// One search hit: title (a link to the document), its folders ("Handbook › Onboarding"), the heading
// trail, and the snippet.

import type { PassageHit } from "../index/passage-index.js";
import { TRAIL_SEPARATOR } from "../index/passage-index.js";
import { Snippet } from "./snippet.js";

export function Hit({ hit }: { hit: PassageHit }) {
  return (
    <li class="hit">
      <h2>
        <a href={`/page/documents/${encodeURIComponent(hit.documentId)}`}>{hit.title}</a>
      </h2>
      {hit.path.length > 0 ? <p class="path">{hit.path.join(TRAIL_SEPARATOR)}</p> : null}
      {hit.heading !== "" && hit.heading !== hit.title ? <p class="trail">{hit.heading}</p> : null}
      <Snippet html={hit.snippet} />
    </li>
  );
}
