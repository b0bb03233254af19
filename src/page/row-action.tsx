/** @jsxRuntime automatic @jsxImportSource hono/jsx */
// The one-button form a list row acts with (Remove, Revoke, Disconnect): a POST to the row's action, with the
// session's CSRF token, so each list draws the same form the routes check.

export function RowAction({ action, csrf, label }: { action: string; csrf: string; label: string }) {
  return (
    <form method="post" action={action}>
      <input type="hidden" name="csrf" value={csrf} />
      <button type="submit">{label}</button>
    </form>
  );
}

/** A stored time as a list shows it, to the minute: "2026-12-07 06:11 UTC"; "never" for none. */
export function minute(iso: string | null): string {
  return iso ? `${iso.slice(0, 16).replace("T", " ")} UTC` : "never";
}
