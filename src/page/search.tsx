/** @jsxRuntime automatic @jsxImportSource hono/jsx */
// The search page: the box, then the hits, and always what the corpus holds, so an empty answer reads as
// "nothing matched among N documents", never as "there is nothing".

import type { SearchResult } from "../services/search.js";
import { ErrorNote } from "./error-note.js";
import { Hit } from "./hit.js";
import { Layout } from "./layout.js";

export interface SearchPageProps {
  csrf: string;
  query: string;
  result: SearchResult | null;
  error?: string;
}

function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

export function SearchPage({ csrf, query, result, error }: SearchPageProps) {
  return (
    <Layout title={query ? `Search: ${query}` : "Search"} csrf={csrf}>
      <h1>Search the team's notes</h1>
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
              : `${plural(result.hits.length, "hit", "hits")} among `}
            {plural(result.corpus.documents, "document", "documents")} (
            {plural(result.corpus.chunks, "passage", "passages")})
            {result.corpus.unreadable > 0
              ? `; ${plural(result.corpus.unreadable, "document", "documents")} could not be opened and were left out`
              : ""}
            .
          </p>
          <ol class="hits">
            {result.hits.map((hit) => (
              <Hit hit={hit} />
            ))}
          </ol>
        </section>
      ) : null}
    </Layout>
  );
}
