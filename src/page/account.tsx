/** @jsxRuntime automatic @jsxImportSource hono/jsx */
// A member's own account: who they are, their role, and their passkeys — added with a button (the browser's
// passkey prompt, so it needs JavaScript) and removed with a form.

import type { PasskeyInfo } from "../services/passkeys.js";
import { ErrorNote } from "./error-note.js";
import { Layout } from "./layout.js";
import { minute, RowAction } from "./row-action.js";

export function AccountPage(props: {
  csrf: string;
  name: string | null;
  role: string;
  passkeys: PasskeyInfo[];
  notice?: string;
  error?: string;
}) {
  return (
    <Layout title="Your account" csrf={props.csrf}>
      <h1>{props.name ?? "Your account"}</h1>
      <p>
        Your role in this team: <strong>{props.role}</strong>.
      </p>
      {props.notice ? (
        <p class="notice" role="status">
          {props.notice}
        </p>
      ) : null}
      <ErrorNote message={props.error} />
      <h2>Passkeys</h2>
      <p>
        A passkey signs you in with your device's lock (a fingerprint, a face, a PIN) instead of a password.
      </p>
      {props.passkeys.length === 0 ? (
        <p>No passkeys yet.</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th>Added</th>
              <th>Last used</th>
              <th>Remove</th>
            </tr>
          </thead>
          <tbody>
            {props.passkeys.map((passkey) => (
              <tr>
                <td>{minute(passkey.createdAt)}</td>
                <td>{minute(passkey.lastUsedAt)}</td>
                <td>
                  <RowAction
                    action={`/page/passkeys/${encodeURIComponent(passkey.id)}/remove`}
                    csrf={props.csrf}
                    label="Remove"
                  />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <button type="button" hidden data-passkey="add" data-csrf={props.csrf} data-status="passkey-status">
        Add a passkey
      </button>
      <p id="passkey-status" role="status" class="hint" />
    </Layout>
  );
}
