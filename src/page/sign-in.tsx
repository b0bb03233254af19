/** @jsxRuntime automatic @jsxImportSource hono/jsx */
// The sign-in page: a member's address and password, or a team key (for a team's owner before members
// existed, and for anyone a key was handed to). A refusal says only that the sign-in was not accepted, never
// which part was wrong.

import { useContext } from "hono/jsx";
import { PageOidcProvider } from "./access.js";
import { ErrorNote } from "./error-note.js";
import { Layout } from "./layout.js";

/** "Sign in with <provider>", where the instance has one: a link, so it works with JavaScript off. */
function SignInWithProvider() {
  const provider = useContext(PageOidcProvider);
  return provider === null ? null : (
    <p>
      <a href="/page/oidc/start">Sign in with {provider}</a>
    </p>
  );
}

export function SignInPage({ error, notice }: { error?: string; notice?: string }) {
  return (
    <Layout title="Sign in">
      <h1>Sign in</h1>
      {notice ? (
        <p class="notice" role="status">
          {notice}
        </p>
      ) : null}
      <ErrorNote message={error} />
      <form method="post" action="/page/sign-in">
        <label for="email">Email</label>
        <input id="email" name="email" type="email" autocomplete="username" required />
        <label for="password">Password</label>
        <input id="password" name="password" type="password" autocomplete="current-password" required />
        <button type="submit">Sign in</button>
      </form>
      <SignInWithProvider />
      <button type="button" hidden data-passkey="sign-in" data-status="passkey-status">
        Sign in with a passkey
      </button>
      <p id="passkey-status" role="status" class="hint" />
      <h2>With a team key</h2>
      <form method="post" action="/page/sign-in">
        <label for="key">Team key</label>
        <input id="key" name="key" type="password" autocomplete="off" required aria-describedby="key-hint" />
        <p id="key-hint" class="hint">
          It starts with <code>mem_</code>. Your administrator gives it to you.
        </p>
        <button type="submit">Sign in with the key</button>
      </form>
    </Layout>
  );
}
