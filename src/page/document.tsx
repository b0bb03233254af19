/** @jsxRuntime automatic @jsxImportSource hono/jsx */
// The document view: title, folders, dates, then the content.

import { TRAIL_SEPARATOR } from "../index/passage-index.js";
import type { DocumentView } from "../services/documents.js";
import { DocumentBody } from "./document-body.js";
import { Layout } from "./layout.js";

export interface DocumentPageProps {
  csrf: string;
  document: DocumentView & { content: string };
  notice?: string;
}

export function DocumentPage({ csrf, document, notice }: DocumentPageProps) {
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
        <DocumentBody content={document.content} format={document.format} />
      </article>
    </Layout>
  );
}
