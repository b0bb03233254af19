/** @jsxRuntime automatic @jsxImportSource hono/jsx */
// The add-a-note form: a title, optional folders, and the content pasted or as a file. multipart, so one
// form carries either; the CSRF token rides in it like in every other form.

import { ErrorNote } from "./error-note.js";
import { Layout } from "./layout.js";

export interface AddNotePageProps {
  csrf: string;
  values?: { title: string; path: string; content: string };
  error?: string;
}

export function AddNotePage({ csrf, values, error }: AddNotePageProps) {
  return (
    <Layout title="Add a note" csrf={csrf}>
      <h1>Add a note</h1>
      <ErrorNote message={error} />
      <form method="post" action="/page/notes" enctype="multipart/form-data">
        <input type="hidden" name="csrf" value={csrf} />
        <label for="title">Title</label>
        <input
          id="title"
          name="title"
          type="text"
          value={values?.title ?? ""}
          aria-describedby="title-hint"
        />
        <p id="title-hint" class="hint">
          Optional: the note's own title (front matter, its first heading, a PDF's or DOCX's title) is used,
          else the file's name.
        </p>
        <label for="path">Folders (optional)</label>
        <input
          id="path"
          name="path"
          type="text"
          value={values?.path ?? ""}
          placeholder="Handbook / Onboarding"
          aria-describedby="path-hint"
        />
        <p id="path-hint" class="hint">
          Separate folders with /.
        </p>
        <label for="content">Content (markdown)</label>
        <textarea id="content" name="content">
          {values?.content ?? ""}
        </textarea>
        <label for="file">Or a file (.md, .txt, .html, .pdf, .docx)</label>
        <input id="file" name="file" type="file" accept=".md,.markdown,.txt,.text,.html,.htm,.pdf,.docx" />
        <button type="submit">Add the note</button>
      </form>
    </Layout>
  );
}
