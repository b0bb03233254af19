/** @jsxRuntime automatic @jsxImportSource hono/jsx */
// The frame of every page: the document head (viewport for phones, the same-origin stylesheet and script)
// and, once signed in, the navigation with "Sign out" (a POST form: signing out changes state).

import type { Child } from "hono/jsx";
import { useCan, useSignedIn } from "./access.js";

export const ASSET_PATH = "/page/assets";

export interface LayoutProps {
  title: string;
  /** The session's CSRF token when signed in; the sign-in page has none. */
  csrf?: string;
  children?: Child;
}

export function Layout({ title, csrf, children }: LayoutProps) {
  const canWrite = useCan("write");
  const canAdmin = useCan("admin");
  const who = useSignedIn();
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        {/* Every answer says Referrer-Policy: no-referrer, under which a browser sends `Origin: null` on
            this page's own form posts; same-origin keeps referrers off other sites and lets Origin name us. */}
        <meta name="referrer" content="same-origin" />
        <title>{`${title} · memoria`}</title>
        <link rel="icon" href="/favicon.ico" type="image/svg+xml" />
        <link rel="stylesheet" href={`${ASSET_PATH}/page.css`} />
        <script src={`${ASSET_PATH}/page.js`} defer />
      </head>
      <body>
        <header>
          <a class="brand" href="/">
            memoria
          </a>
          {csrf === undefined ? null : (
            <nav aria-label="Main">
              <a href="/">Search</a>
              <a href="/page/memory">Working memory</a>
              {canWrite ? <a href="/page/notes">Add a note</a> : null}
              {canAdmin ? (
                <a href="/page/export" download>
                  Export
                </a>
              ) : null}
              {canAdmin || who?.member ? <a href="/page/keys">Keys</a> : null}
              {who?.member ? <a href="/page/account">Account</a> : null}
              {who?.member || canAdmin ? <a href="/page/apps">Apps</a> : null}
              {canAdmin ? <a href="/page/members">Members</a> : null}
              {canAdmin ? <a href="/page/audit">Audit trail</a> : null}
              {who ? (
                <span class="who" title={who.title}>
                  {who.name} · {who.label}
                </span>
              ) : null}
              <form method="post" action="/page/sign-out">
                <input type="hidden" name="csrf" value={csrf} />
                <button type="submit">Sign out</button>
              </form>
            </nav>
          )}
        </header>
        <main>{children}</main>
      </body>
    </html>
  );
}
