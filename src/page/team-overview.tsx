/** @jsxRuntime automatic @jsxImportSource hono/jsx */
// The start page's account of the team before any search: how much it holds and what changed last, so a
// person sees at once that they are in the right team and that its notes are there.

import { TRAIL_SEPARATOR } from "../index/passages/passage-index.js";
import type { DocumentView } from "../services/documents.js";
import { useCan } from "./access.js";
import { documentHref } from "./document.js";
import { plural } from "./plural.js";

export interface TeamOverviewProps {
  counts: { documents: number; chunks: number; entries: number };
  recent: DocumentView[];
}

export function TeamOverview({ counts, recent }: TeamOverviewProps) {
  const canWrite = useCan("write");
  return (
    <section aria-labelledby="overview-heading" class="overview">
      <h2 id="overview-heading">What the team holds</h2>
      <p class="counts">
        {plural(counts.documents, "document", "documents")} ({plural(counts.chunks, "passage", "passages")}) ·{" "}
        <a href="/page/memory">{plural(counts.entries, "memory entry", "memory entries")}</a>
      </p>
      {recent.length === 0 ? (
        canWrite ? (
          <p>
            No documents yet: <a href="/page/notes">add a note</a>.
          </p>
        ) : (
          <p>No documents yet.</p>
        )
      ) : (
        <>
          <h3>Recently changed</h3>
          <ul class="recent">
            {recent.map((document) => (
              <li>
                <a href={documentHref(document.id)}>{document.title}</a>
                {document.path.length > 0 ? (
                  <span class="path"> · {document.path.join(TRAIL_SEPARATOR)}</span>
                ) : null}{" "}
                <time class="dates" datetime={document.updatedAt}>
                  {document.updatedAt.slice(0, 10)}
                </time>
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}
