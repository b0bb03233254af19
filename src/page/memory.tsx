/** @jsxRuntime automatic @jsxImportSource hono/jsx */
// The working-memory view: what an agent asking with this query, project and budget would receive — the
// rendered block, and how it was cut to the budget.

import type { WorkingMemory } from "../services/memory.js";
import { ErrorNote } from "./error-note.js";
import { Layout } from "./layout.js";

export interface MemoryPageProps {
  csrf: string;
  form: { q: string; project: string; budget: string };
  defaultBudget: number;
  maxBudget: number;
  result: WorkingMemory | null;
  error?: string;
}

export function MemoryPage({ csrf, form, defaultBudget, maxBudget, result, error }: MemoryPageProps) {
  return (
    <Layout title="Working memory" csrf={csrf}>
      <h1>Working memory</h1>
      <p>What an agent receives when it asks memoria for its working memory.</p>
      <form method="get" action="/page/memory">
        <label for="mq">What the agent is working on (optional)</label>
        <input id="mq" name="q" type="text" value={form.q} />
        <label for="project">Project (optional)</label>
        <input id="project" name="project" type="text" value={form.project} />
        <label for="budget">Budget in tokens</label>
        <input
          id="budget"
          name="budget"
          type="number"
          min="1"
          max={String(maxBudget)}
          value={form.budget === "" ? String(defaultBudget) : form.budget}
        />
        <input type="hidden" name="ask" value="1" />
        <button type="submit">Ask</button>
      </form>
      <ErrorNote message={error} />
      {result ? (
        <section aria-label="Working memory block">
          <h2>Accounting</h2>
          <dl class="accounting">
            <dt>Candidates</dt>
            <dd>{result.candidates}</dd>
            <dt>Included</dt>
            <dd>{result.included}</dd>
            <dt>Skipped</dt>
            <dd>{result.skipped}</dd>
            <dt>Tokens</dt>
            <dd>
              {result.estimatedTokens} of {result.budget}
            </dd>
          </dl>
          <h2>The block</h2>
          <pre>{result.text === "" ? "(empty: no entries)" : result.text}</pre>
        </section>
      ) : null}
    </Layout>
  );
}
