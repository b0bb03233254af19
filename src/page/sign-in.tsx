/** @jsxRuntime automatic @jsxImportSource hono/jsx */
// The sign-in page: one "Team key" field. A wrong key is said so here, never which part was wrong.

import { ErrorNote } from "./error-note.js";
import { Layout } from "./layout.js";

export function SignInPage({ error, notice }: { error?: string; notice?: string }) {
  return (
    <Layout title="Sign in">
      <h1>Sign in</h1>
      <p>Sign in with your team's key to search and add to its notes.</p>
      {notice ? (
        <p class="notice" role="status">
          {notice}
        </p>
      ) : null}
      <ErrorNote message={error} />
      <form method="post" action="/page/sign-in">
        <label for="key">Team key</label>
        <input
          id="key"
          name="key"
          type="password"
          autocomplete="current-password"
          required
          aria-describedby="key-hint"
        />
        <p id="key-hint" class="hint">
          It starts with <code>mem_</code>. Your administrator gives it to you.
        </p>
        <button type="submit">Sign in</button>
      </form>
    </Layout>
  );
}
