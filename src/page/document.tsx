/** @jsxRuntime automatic @jsxImportSource hono/jsx */
// The document view: title (once), folders, dates, the content with an anchor per passage, and Delete, which
// leads to a confirmation page rather than deleting at once (a link, so it works without JavaScript).

import { TRAIL_SEPARATOR } from "../index/passages/passage-index.js";
import type { DocumentView } from "../services/documents.js";
import { useCan } from "./access.js";
import { DocumentBody } from "./document-body.js";
import { Layout } from "./layout.js";

export interface DocumentPageProps {
  csrf: string;
  document: DocumentView & { content: string };
  notice?: string;
}

/** Where a document's page is, and where asking to delete it is. */
export function documentHref(id: string, ordinal?: number): string {
  return `/page/documents/${encodeURIComponent(id)}${ordinal === undefined ? "" : `#p${ordinal}`}`;
}

export function deleteHref(id: string): string {
  return `/page/documents/${encodeURIComponent(id)}/delete`;
}

export function DocumentPage({ csrf, document, notice }: DocumentPageProps) {
  const canDelete = useCan("admin");
  return (
    <Layout title={document.title} csrf={csrf}>
      {notice ? (
        <p class="notice" role="status">
          {notice}
        </p>
      ) : null}
      <article>
        <h1>{document.title}</h1>
        {document.path.length > 0 ? <p class="path">{document.path.join(TRAIL_SEPARATOR)}</p> : null}
        <p class="dates">
          Created <time datetime={document.createdAt}>{document.createdAt.slice(0, 10)}</time>, updated{" "}
          <time datetime={document.updatedAt}>{document.updatedAt.slice(0, 10)}</time> · version{" "}
          {document.version}
        </p>
        <DocumentBody title={document.title} content={document.content} format={document.format} />
      </article>
      {canDelete ? (
        <p class="actions">
          <a class="danger" href={deleteHref(document.id)}>
            Delete this document
          </a>
        </p>
      ) : null}
    </Layout>
  );
}
