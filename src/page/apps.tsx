/** @jsxRuntime automatic @jsxImportSource hono/jsx */
// Apps connected through OAuth (MCP clients a member approved): each with who approved it, its scope and when it
// was last used. A member sees and disconnects their own; an owner sees and disconnects the whole team's.

import type { Approval } from "../services/oauth.js";
import { ErrorNote } from "./error-note.js";
import { Layout } from "./layout.js";
import { minute, RowAction } from "./row-action.js";

export function AppsPage(props: {
  csrf: string;
  approvals: (Approval & { memberName: string | null })[];
  everyApp: boolean;
  notice?: string;
  error?: string;
}) {
  return (
    <Layout title="Connected apps" csrf={props.csrf}>
      <h1>Connected apps</h1>
      <p>
        Apps such as Claude or ChatGPT that {props.everyApp ? "members of this team" : "you"} let use this
        team's memory. Disconnecting one signs it out at once.
      </p>
      {props.notice ? (
        <p class="notice" role="status">
          {props.notice}
        </p>
      ) : null}
      <ErrorNote message={props.error} />
      {props.approvals.length === 0 ? (
        <p>No apps are connected.</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th>App</th>
              <th>Sends back to</th>
              {props.everyApp ? <th>Approved by</th> : null}
              <th>Scope</th>
              <th>Approved</th>
              <th>Last sign-in or refresh</th>
              <th>Disconnect</th>
            </tr>
          </thead>
          <tbody>
            {props.approvals.map((approval) => (
              <tr>
                <td>{approval.name ?? "(unreadable)"}</td>
                <td>{approval.redirectHost ?? "—"}</td>
                {props.everyApp ? <td>{approval.memberName ?? "Member"}</td> : null}
                <td>{approval.scope}</td>
                <td>{minute(approval.approvedAt)}</td>
                <td>{minute(approval.lastUsedAt)}</td>
                <td>
                  <RowAction
                    action={`/page/apps/${encodeURIComponent(approval.id)}/revoke`}
                    csrf={props.csrf}
                    label="Disconnect"
                  />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Layout>
  );
}
