/** @jsxRuntime automatic @jsxImportSource hono/jsx */
// The page an invite link opens: the team and the role it offers, and the form that makes the person a
// member with a name, an address and a password. Nothing typed is shown back but the name and address.

import { useContext } from "hono/jsx";
import type { Role } from "../role.js";
import { PageOidcProvider } from "./access.js";
import { ErrorNote } from "./error-note.js";
import { Layout } from "./layout.js";

/** A password shorter than this is refused: 12 characters keep an offline guess of the hash far off. */
export const MIN_PASSWORD_CHARS = 12;
/** And longer than this: a bound on what one sign-in hashes, far past any pass phrase. */
export const MAX_PASSWORD_CHARS = 256;

export interface JoinValues {
  name: string;
  email: string;
}

/** A form, not a link: joining spends the invite, so it must start from this page (its Origin is checked). */
function JoinWithProvider({ code }: { code: string }) {
  const provider = useContext(PageOidcProvider);
  return provider === null ? null : (
    <form method="post" action="/page/oidc/start">
      <input type="hidden" name="invite" value={code} />
      <button type="submit">Join with your {provider} account</button>
    </form>
  );
}

export function JoinPage(props: {
  teamName: string;
  role: Role;
  expiresAt: string;
  action: string;
  /** The invite's code, for joining through the instance's OpenID Connect provider instead. */
  code: string;
  values?: JoinValues;
  error?: string;
}) {
  return (
    <Layout title="Join the team">
      <h1>Join {props.teamName}</h1>
      <p>
        You are invited as <strong>{props.role}</strong>. This link works once, until{" "}
        <time datetime={props.expiresAt}>{props.expiresAt.slice(0, 16).replace("T", " ")} UTC</time>.
      </p>
      <ErrorNote message={props.error} />
      <form method="post" action={props.action}>
        <label for="name">Your name</label>
        <input id="name" name="name" required maxlength={200} value={props.values?.name ?? ""} />
        <label for="email">Email</label>
        <input
          id="email"
          name="email"
          type="email"
          autocomplete="username"
          required
          value={props.values?.email ?? ""}
        />
        <label for="password">Password</label>
        <input
          id="password"
          name="password"
          type="password"
          autocomplete="new-password"
          required
          minlength={MIN_PASSWORD_CHARS}
          maxlength={MAX_PASSWORD_CHARS}
          aria-describedby="password-hint"
        />
        <p id="password-hint" class="hint">
          At least {MIN_PASSWORD_CHARS} characters. memoria keeps only a slow hash of it, sealed.
        </p>
        <button type="submit">Join</button>
      </form>
      <button type="button" hidden data-passkey="join" data-invite={props.code} data-status="passkey-status">
        Join with a passkey instead
      </button>
      <p id="passkey-status" role="status" class="hint" />
      <JoinWithProvider code={props.code} />
    </Layout>
  );
}
