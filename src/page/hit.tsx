/** @jsxRuntime automatic @jsxImportSource hono/jsx */
// One document among the search results: its title (a link to the document), its folders ("Handbook ›
// Onboarding"), then its best passages, each a link to that passage in the document view named by the title
// and the passage's heading trail, so a screen reader's list of links says where each one goes.

import { TRAIL_SEPARATOR } from "../index/passages/passage-index.js";
import { documentHref } from "./document.js";
import type { HitGroup } from "./hit-groups.js";
import { Snippet } from "./snippet.js";

/** "Welcome › First week › Laptops"; a second passage under the same trail is told apart by its number. */
function passageName(title: string, heading: string, ordinal: number, repeated: boolean): string {
  const name = heading === "" || heading === title ? title : `${title}${TRAIL_SEPARATOR}${heading}`;
  return repeated ? `${name} (passage ${ordinal + 1})` : name;
}

export function Hit({ group }: { group: HitGroup }) {
  const trails = new Map<string, number>();
  for (const hit of group.passages) trails.set(hit.heading, (trails.get(hit.heading) ?? 0) + 1);
  return (
    <li class="hit">
      <h2>
        <a href={documentHref(group.documentId)}>{group.title}</a>
      </h2>
      {group.path.length > 0 ? <p class="path">{group.path.join(TRAIL_SEPARATOR)}</p> : null}
      <ul class="passages">
        {group.passages.map((hit) => (
          <li>
            <a class="passage-link" href={documentHref(hit.documentId, hit.ordinal)}>
              {passageName(group.title, hit.heading, hit.ordinal, (trails.get(hit.heading) ?? 0) > 1)}
            </a>
            <Snippet html={hit.snippet} />
          </li>
        ))}
      </ul>
      {group.more > 0 ? (
        <p class="more">
          {group.more === 1 ? "1 more passage" : `${group.more} more passages`} of this document matched.
        </p>
      ) : null}
    </li>
  );
}
