/** @jsxRuntime automatic @jsxImportSource hono/jsx */
// The consent page of memoria's authorization server: which app asks (its name and where it sends the person
// back), for which team, with which scope; the signed-in member approves at most their role's scope, or says no.
// The request's parameters ride along as hidden fields and are checked again when the form comes back.

import type { OAuthScope } from "../oauth-scope.js";
import { Layout } from "./layout.js";

/** What each scope lets the app do, in a member's words. */
const SCOPE_WORDS: Readonly<Record<OAuthScope, string>> = {
  read: "search the team's notes and read its working memory",
  write: "search and read, and also add notes and remember entries",
};

export function ConsentPage(props: {
  csrf: string;
  clientName: string;
  redirectHost: string;
  /** The host of a metadata document's URL, which vouches for the app; null for an app that registered itself. */
  vouchedBy: string | null;
  teamName: string;
  asked: OAuthScope;
  /** The scopes the member may approve, largest first. */
  offered: readonly OAuthScope[];
  params: Record<string, string>;
}) {
  const reduced = !props.offered.includes(props.asked);
  return (
    <Layout title="Connect an app" csrf={props.csrf}>
      <h1>
        Let {props.clientName} use {props.teamName}?
      </h1>
      <p>
        <strong>{props.clientName}</strong> asks to act for you in the team <strong>{props.teamName}</strong>,
        with the <strong>{props.asked}</strong> scope: {SCOPE_WORDS[props.asked]}. It never gets to delete,
        forget or export.
      </p>
      <p>
        {props.vouchedBy === null ? (
          <>The app registered itself with this memoria: its name is its own claim, not checked by anyone.</>
        ) : (
          <>
            The app is described by <strong>{props.vouchedBy}</strong>.
          </>
        )}{" "}
        If you approve, you go back to <strong>{props.redirectHost}</strong>. Only approve an app you were
        setting up just now.
      </p>
      {reduced ? (
        <p class="notice" role="status">
          Your role allows the read scope only, so that is what the app can have.
        </p>
      ) : null}
      <form method="post" action="/page/oauth/consent">
        <input type="hidden" name="csrf" value={props.csrf} />
        {Object.entries(props.params).map(([name, value]) => (
          <input type="hidden" name={name} value={value} />
        ))}
        <label for="grant-scope">Scope to give</label>
        <select id="grant-scope" name="grant_scope">
          {props.offered.map((scope) => (
            <option value={scope} selected={scope === props.offered[0]}>
              {scope}: {SCOPE_WORDS[scope]}
            </option>
          ))}
        </select>
        <button type="submit" name="decision" value="approve">
          Approve
        </button>
        <button type="submit" name="decision" value="deny">
          Deny
        </button>
      </form>
    </Layout>
  );
}

/**
 * The first answer to a browser sent here by another site: it carries no session cookie (they are SameSite
 * Strict), so this page moves on to the consent page from this site, where it does.
 */
export function ContinuePage({ to }: { to: string }) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta http-equiv="refresh" content={`0;url=${to}`} />
        <meta name="referrer" content="no-referrer" />
        <title>Continue · memoria</title>
      </head>
      <body>
        <p>
          <a href={to}>Continue to memoria</a>
        </p>
      </body>
    </html>
  );
}
