/** @jsxRuntime automatic @jsxImportSource hono/jsx */
// The form that remembers an entry: title, impact, project, type, as the entries API takes them. A refused
// form comes back filled in, with the reason.

import { ErrorNote } from "./error-note.js";

export interface RememberValues {
  title: string;
  impact: string;
  project: string;
  type: string;
}

export const REMEMBER_TYPES = ["decision", "incident", "learning"] as const;

export function RememberForm({
  csrf,
  values,
  error,
}: {
  csrf: string;
  values?: RememberValues;
  error?: string;
}) {
  return (
    <form method="post" action="/page/entries">
      <input type="hidden" name="csrf" value={csrf} />
      <ErrorNote message={error} />
      <label for="entry-title">Entry title</label>
      <input id="entry-title" name="title" type="text" required value={values?.title ?? ""} />
      <label for="entry-impact">Impact (optional)</label>
      <input
        id="entry-impact"
        name="impact"
        type="text"
        value={values?.impact ?? ""}
        aria-describedby="entry-impact-hint"
      />
      <p id="entry-impact-hint" class="hint">
        One sentence of consequence, shown after the title.
      </p>
      <label for="entry-project">Entry project (optional)</label>
      <input id="entry-project" name="project" type="text" value={values?.project ?? ""} />
      <label for="entry-type">Type (optional)</label>
      <input
        id="entry-type"
        name="type"
        type="text"
        list="entry-types"
        value={values?.type ?? ""}
        aria-describedby="entry-type-hint"
      />
      <datalist id="entry-types">
        {REMEMBER_TYPES.map((type) => (
          <option value={type} />
        ))}
      </datalist>
      <p id="entry-type-hint" class="hint">
        Such as decision, incident or learning.
      </p>
      <button type="submit">Remember</button>
    </form>
  );
}
