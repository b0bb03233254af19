/** @jsxRuntime automatic @jsxImportSource hono/jsx */
// The working-memory view: what an agent asking with this query, project and budget would receive — the
// rendered block, and how it was cut to the budget, naming the entries left out — then the team's recent
// entries, each with Forget, and a form to remember a new one.

import type { EntryView } from "../services/entries.js";
import type { SkippedEntry, WorkingMemory } from "../services/memory.js";
import { useCan } from "./access.js";
import { ErrorNote } from "./error-note.js";
import { Layout } from "./layout.js";
import { RememberForm, type RememberValues } from "./remember-form.js";

export interface MemoryPageProps {
  csrf: string;
  form: { q: string; project: string; budget: string };
  defaultBudget: number;
  maxBudget: number;
  result: { memory: WorkingMemory; skippedEntries: SkippedEntry[] } | null;
  recent: EntryView[];
  remember?: { values: RememberValues; error?: string };
  notice?: string;
  error?: string;
}

export function forgetHref(id: string): string {
  return `/page/entries/${encodeURIComponent(id)}/forget`;
}

function RecentEntries({ csrf, entries }: { csrf: string; entries: EntryView[] }) {
  const canForget = useCan("admin");
  const canRemember = useCan("write");
  if (entries.length === 0)
    return <p>{canRemember ? "No entries yet: remember the first one below." : "No entries yet."}</p>;
  return (
    <ul class="entries">
      {entries.map((entry) => (
        <li class="entry">
          <p class="entry-title">
            <strong>{entry.title}</strong>
            {entry.impact ? ` — ${entry.impact}` : ""}
          </p>
          <p class="dates">
            <time datetime={entry.createdAt}>{entry.createdAt.slice(0, 10)}</time> ·{" "}
            {entry.project ?? "no project"} · {entry.type ?? "no type"} · <code>{entry.id}</code>
          </p>
          {canForget ? (
            <form method="post" action={forgetHref(entry.id)}>
              <input type="hidden" name="csrf" value={csrf} />
              <button type="submit" class="secondary" aria-label={`Forget ${entry.title}`}>
                Forget
              </button>
            </form>
          ) : null}
        </li>
      ))}
    </ul>
  );
}

export function MemoryPage(props: MemoryPageProps) {
  const { csrf, form, defaultBudget, maxBudget, result, error } = props;
  const canRemember = useCan("write");
  return (
    <Layout title="Working memory" csrf={csrf}>
      <h1>Working memory</h1>
      {props.notice ? (
        <p class="notice" role="status">
          {props.notice}
        </p>
      ) : null}
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
            <dd>{result.memory.candidates}</dd>
            <dt>Included</dt>
            <dd>{result.memory.included}</dd>
            <dt>Skipped</dt>
            <dd>{result.memory.skipped}</dd>
            <dt>Tokens</dt>
            <dd>
              {result.memory.estimatedTokens} of {result.memory.budget}
            </dd>
          </dl>
          {result.skippedEntries.length > 0 ? (
            <>
              <h3>Skipped: over the budget</h3>
              <ul class="skipped">
                {result.skippedEntries.map((entry) => (
                  <li>
                    {entry.title}{" "}
                    <span class="dates">
                      rank {entry.rank} · <code>{entry.id}</code>
                    </span>
                  </li>
                ))}
              </ul>
            </>
          ) : null}
          <h2>The block</h2>
          <pre>
            <code>{result.memory.text === "" ? "(empty: no entries)" : result.memory.text}</code>
          </pre>
        </section>
      ) : null}
      <section aria-labelledby="recent-heading">
        <h2 id="recent-heading">Recent entries</h2>
        <RecentEntries csrf={csrf} entries={props.recent} />
      </section>
      {canRemember ? (
        <section aria-labelledby="remember-heading">
          <h2 id="remember-heading">Remember an entry</h2>
          <RememberForm csrf={csrf} values={props.remember?.values} error={props.remember?.error} />
        </section>
      ) : null}
    </Layout>
  );
}
