/** @jsxRuntime automatic @jsxImportSource hono/jsx */
// The team's audit trail on the page (admin): who did what, newest first, a page at a time. Targets are ids,
// as the trail keeps them; a document's links to it (it may since have gone).

import type { AuditAction } from "../audit.js";
import type { AuditEvent } from "../services/audit.js";
import { Layout } from "./layout.js";

const ACTION_WORDS: Record<AuditAction, string> = {
  "document.created": "added document",
  "document.replaced": "replaced document",
  "document.deleted": "deleted document",
  "entry.remembered": "remembered entry",
  "entry.forgotten": "forgot entry",
  export: "exported the team",
  import: "imported into the team",
  "key.made": "made key",
  "key.revoked": "revoked key",
  "member.invited": "invited someone with invite",
  "member.joined": "joined as member",
  "member.role_changed": "changed the role of member",
  "member.removed": "removed member",
  "oauth.approved": "approved the app of approval",
  "oauth.refreshed": "refreshed its sign-in, approval",
  "oauth.replayed": "presented a spent token; signed out the sign-in of approval",
  "oauth.revoked": "disconnected the app of approval",
  "oauth.signed_out": "signed itself out, approval",
  "passkey.added": "added passkey",
  "passkey.removed": "removed passkey",
  "source.set": "set source",
  "source.removed": "removed source",
};

function Who({ actor }: { actor: AuditEvent["actor"] }) {
  if (actor.kind === "admin") return <span>the admin token</span>;
  return actor.name === null ? (
    <span>
      {actor.kind} <code>{actor.id}</code>
    </span>
  ) : (
    <span>
      {actor.name}{" "}
      <small>
        ({actor.kind} {actor.id})
      </small>
    </span>
  );
}

function Target({ target }: { target: AuditEvent["target"] }) {
  if (!target) return null;
  if (target.kind === "document") {
    return (
      <a href={`/page/documents/${encodeURIComponent(target.id)}`}>
        <code>{target.id}</code>
      </a>
    );
  }
  return <code>{target.id}</code>;
}

export function AuditPage(props: {
  csrf: string;
  events: AuditEvent[];
  unreadable: number;
  /** The link to the next, older page; null on the last. */
  older: string | null;
}) {
  return (
    <Layout title="Audit trail" csrf={props.csrf}>
      <h1>Audit trail</h1>
      <p>Who changed what the team holds, or who may reach it; newest first. Never content or titles.</p>
      {props.events.length === 0 ? (
        <p>Nothing has been changed yet.</p>
      ) : (
        <table class="audit">
          <thead>
            <tr>
              <th scope="col">When (UTC)</th>
              <th scope="col">Who</th>
              <th scope="col">What</th>
            </tr>
          </thead>
          <tbody>
            {props.events.map((event) => (
              <tr>
                <td>
                  <time datetime={event.at}>{event.at.replace("T", " ").slice(0, 19)}</time>
                </td>
                <td>
                  <Who actor={event.actor} />
                </td>
                <td>
                  {ACTION_WORDS[event.action]} <Target target={event.target} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {props.unreadable > 0 ? (
        <p role="status">
          {props.unreadable === 1 ? "One event" : `${props.unreadable} events`} on this page did not open and
          are left out.
        </p>
      ) : null}
      {props.older ? (
        <p>
          <a href={props.older}>Older events</a>
        </p>
      ) : null}
    </Layout>
  );
}
