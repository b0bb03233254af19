/** @jsxRuntime automatic @jsxImportSource hono/jsx */
// The team's members (owners): who they are, their role, a role to change or a member to remove, and an invite
// to make. A new invite's link is shown once, on the page that made it: memoria keeps only its hash.

import { type Role, roles } from "../role.js";
import type { Member } from "../services/members.js";
import { ErrorNote } from "./error-note.js";
import { Layout } from "./layout.js";
import { RowAction } from "./row-action.js";

function RoleChoice({ id, selected, label }: { id?: string; selected?: Role; label?: string }) {
  return (
    <select name="role" id={id} aria-label={label}>
      {roles.map((role) => (
        <option value={role} selected={role === selected}>
          {role}
        </option>
      ))}
    </select>
  );
}

export function MembersPage(props: {
  csrf: string;
  members: Member[];
  /** The member viewing, so their own row says so. */
  self: string | null;
  invite?: { url: string; role: Role; expiresAt: string };
  notice?: string;
  error?: string;
}) {
  return (
    <Layout title="Members" csrf={props.csrf}>
      <h1>Members</h1>
      {props.notice ? (
        <p class="notice" role="status">
          {props.notice}
        </p>
      ) : null}
      <ErrorNote message={props.error} />
      {props.invite ? (
        <section aria-label="New invite">
          <p>
            Send this link to the person you invite as <strong>{props.invite.role}</strong>. It works once,
            until {props.invite.expiresAt.slice(0, 16).replace("T", " ")} UTC, and is not shown again.
          </p>
          <input class="invite-link" readonly value={props.invite.url} aria-label="Invite link" />
        </section>
      ) : null}
      <form method="post" action="/page/invites">
        <input type="hidden" name="csrf" value={props.csrf} />
        <label for="invite-role">Invite someone as</label>
        <RoleChoice id="invite-role" selected="member" />
        <button type="submit">Make an invite link</button>
      </form>
      {props.members.length === 0 ? (
        <p>Nobody has joined yet: make an invite link for the first person.</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th>Name</th>
              <th>Role</th>
              <th>Last seen</th>
              <th>Remove</th>
            </tr>
          </thead>
          <tbody>
            {props.members.map((member) => (
              <tr>
                <td>
                  {member.name ?? <em>unreadable</em>}
                  {member.id === props.self ? " (you)" : ""}
                </td>
                <td>
                  <form method="post" action={`/page/members/${encodeURIComponent(member.id)}/role`}>
                    <input type="hidden" name="csrf" value={props.csrf} />
                    <RoleChoice selected={member.role} label="Role" />
                    <button type="submit">Change</button>
                  </form>
                </td>
                <td>{member.lastSeenAt ? member.lastSeenAt.slice(0, 16).replace("T", " ") : "never"}</td>
                <td>
                  <RowAction
                    action={`/page/members/${encodeURIComponent(member.id)}/remove`}
                    csrf={props.csrf}
                    label="Remove"
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
