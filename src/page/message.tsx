/** @jsxRuntime automatic @jsxImportSource hono/jsx */
// A page that only says something: a document that is not there, a form that was refused.

import { ErrorNote } from "./error-note.js";
import { Layout } from "./layout.js";

export function MessagePage({ title, message, csrf }: { title: string; message: string; csrf?: string }) {
  return (
    <Layout title={title} csrf={csrf}>
      <h1>{title}</h1>
      <ErrorNote message={message} />
      <p>
        <a href="/">Back to the start</a>
      </p>
    </Layout>
  );
}
