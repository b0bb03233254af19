/** @jsxRuntime automatic @jsxImportSource hono/jsx */
// Keys on the page: a member makes keys for their own agents, up to their role's scope, and revokes them; an
// owner sees and revokes every key of the team. A new key's secret is shown once, on the page that made it.

import { type Scope, scopes } from "../scope.js";
import type { TeamKeyInfo } from "../services/teams.js";
import { ErrorNote } from "./error-note.js";
import { Layout } from "./layout.js";
import { RowAction } from "./row-action.js";

/** How long a key made on the page lasts, as offered: a key for a trial, a quarter, a year, or no end. */
export const KEY_LIFETIMES_DAYS = [30, 90, 365] as const;

const day = (iso: string | null) => (iso ? iso.slice(0, 10) : "—");

export function KeysPage(props: {
  csrf: string;
  keys: TeamKeyInfo[];
  /** The largest scope the person may give a key. */
  maxScope: Scope;
  /** Whether the list is the whole team's (an owner's) or the person's own. */
  everyKey: boolean;
  made?: { name: string; apiKey: string; scope: Scope };
  notice?: string;
  error?: string;
}) {
  const offered = scopes.slice(0, scopes.indexOf(props.maxScope) + 1);
  return (
    <Layout title="Keys" csrf={props.csrf}>
      <h1>Keys</h1>
      {props.notice ? (
        <p class="notice" role="status">
          {props.notice}
        </p>
      ) : null}
      <ErrorNote message={props.error} />
      {props.made ? (
        <section aria-label="New key">
          <p>
            The <strong>{props.made.scope}</strong> key "{props.made.name}" is below. Copy it now: it is not
            shown again.
          </p>
          <input class="invite-link" readonly value={props.made.apiKey} aria-label="New key" />
        </section>
      ) : null}
      <form method="post" action="/page/keys">
        <input type="hidden" name="csrf" value={props.csrf} />
        <label for="key-name">What the key is for</label>
        <input id="key-name" name="name" type="text" required maxlength={200} />
        <label for="key-scope">Scope</label>
        <select id="key-scope" name="scope">
          {offered.map((scope) => (
            <option value={scope} selected={scope === "read"}>
              {scope}
            </option>
          ))}
        </select>
        <label for="key-days">Lasts</label>
        <select id="key-days" name="days">
          {KEY_LIFETIMES_DAYS.map((days) => (
            <option value={String(days)} selected={days === 90}>
              {days} days
            </option>
          ))}
          <option value="">until revoked</option>
        </select>
        <button type="submit">Make a key</button>
      </form>
      <h2>{props.everyKey ? "The team's keys" : "Your keys"}</h2>
      {props.keys.length === 0 ? (
        <p>No keys yet.</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th>Name</th>
              <th>Scope</th>
              <th>Made</th>
              <th>Expires</th>
              <th>Last used</th>
              <th>Revoke</th>
            </tr>
          </thead>
          <tbody>
            {props.keys.map((key) => (
              <tr>
                <td>{key.name ?? <em>no name</em>}</td>
                <td>{key.scope}</td>
                <td>{day(key.createdAt)}</td>
                <td>{key.expiresAt ? day(key.expiresAt) : "never"}</td>
                <td>{day(key.lastUsedAt)}</td>
                <td>
                  {key.revokedAt ? (
                    `revoked ${day(key.revokedAt)}`
                  ) : (
                    <RowAction
                      action={`/page/keys/${encodeURIComponent(key.keyId)}/revoke`}
                      csrf={props.csrf}
                      label="Revoke"
                    />
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Layout>
  );
}
