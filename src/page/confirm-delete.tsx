/** @jsxRuntime automatic @jsxImportSource hono/jsx */
// The confirmation before a document is deleted: its title, what deleting means, and a POST form carrying the
// session's CSRF token. A page of its own rather than a script's confirm(), so it works without JavaScript.

import type { DocumentView } from "../services/documents.js";
import { deleteHref, documentHref } from "./document.js";
import { Layout } from "./layout.js";

export function ConfirmDeletePage({ csrf, document }: { csrf: string; document: DocumentView }) {
  return (
    <Layout title={`Delete ${document.title}?`} csrf={csrf}>
      <h1>Delete this document?</h1>
      <p>
        <strong>{document.title}</strong> and its{" "}
        {document.chunks === 1 ? "passage" : `${document.chunks} passages`} will be deleted for the whole
        team; search stops finding it at once. This cannot be undone.
      </p>
      <form method="post" action={deleteHref(document.id)}>
        <input type="hidden" name="csrf" value={csrf} />
        <button type="submit" class="danger">
          Delete
        </button>
      </form>
      <p>
        <a href={documentHref(document.id)}>Keep it</a>
      </p>
    </Layout>
  );
}
