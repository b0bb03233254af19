/** @jsxRuntime automatic @jsxImportSource hono/jsx */
// The search page: the box, then the hits grouped by document, and always what the corpus holds, so an empty
// answer reads as "nothing matched among N documents", never as "there is nothing". Before a search it is the
// start page: the team's name, its counts and its recently changed documents.

import type { SearchResult } from "../services/search.js";
import { ErrorNote } from "./error-note.js";
import { Hit } from "./hit.js";
import { groupHits } from "./hit-groups.js";
import { Layout } from "./layout.js";
import { plural } from "./plural.js";
import { TeamOverview, type TeamOverviewProps } from "./team-overview.js";

export interface SearchPageProps {
  csrf: string;
  query: string;
  result: SearchResult | null;
  /** The start page's team and overview, shown when there is no search. */
  team?: { name: string } & TeamOverviewProps;
  notice?: string;
  error?: string;
}

export function SearchPage({ csrf, query, result, team, notice, error }: SearchPageProps) {
  const groups = result ? groupHits(result.hits) : [];
  return (
    <Layout title={query ? `Search: ${query}` : (team?.name ?? "Search")} csrf={csrf}>
      <h1>{team ? team.name : "Search the team's notes"}</h1>
      {notice ? (
        <p class="notice" role="status">
          {notice}
        </p>
      ) : null}
      <search>
        <form method="get" action="/">
          <label for="q">Search</label>
          <input id="q" name="q" type="search" value={query} autofocus aria-describedby="q-hint" />
          <p id="q-hint" class="hint">
            Plain words; press / to come back here.
          </p>
          <button type="submit">Search</button>
        </form>
      </search>
      <ErrorNote message={error} />
      {result ? (
        <section aria-label="Results">
          <p class="corpus" role="status">
            {result.hits.length === 0
              ? `No passage matched "${query}" among `
              : `${plural(groups.length, "document", "documents")} (${plural(result.hits.length, "passage", "passages")}) matched among `}
            {plural(result.corpus.documents, "document", "documents")} (
            {plural(result.corpus.chunks, "passage", "passages")})
            {result.corpus.unreadable > 0
              ? `; ${plural(result.corpus.unreadable, "document", "documents")} could not be opened and were left out`
              : ""}
            .
          </p>
          <ol class="hits">
            {groups.map((group) => (
              <Hit group={group} />
            ))}
          </ol>
        </section>
      ) : team ? (
        <TeamOverview counts={team.counts} recent={team.recent} />
      ) : null}
    </Layout>
  );
}
