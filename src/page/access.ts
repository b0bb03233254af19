// Who is signed in and what they may do, for the page's views: the page shows only the actions the member's
// role or the key's scope allows (no "Delete" to a reader), so a person is not offered a button that answers
// "Not with this key". The routes still check every action (scopes.ts); this only decides what is drawn. Set
// once per answer by the page's render, read by any view with `useCan` and `useSignedIn`.

import { createContext, useContext } from "hono/jsx";
import { allows, type Scope } from "../scope.js";
import type { SignedInAs } from "./sessions.js";

/** What the signed-in member or key may do; null on a page drawn for nobody signed in. */
export const PageScope = createContext<Scope | null>(null);

/** The instance's OpenID Connect provider by host, for "Sign in with …"; null when it has none. */
export const PageOidcProvider = createContext<string | null>(null);

/** Who is signed in; null for nobody. */
export const PageSignedInAs = createContext<SignedInAs | null>(null);

/**
 * Who the page is drawn for, as the header shows it: a member's name and role, or a key's name (or "Team
 * key") and scope, with a line saying which; null for nobody signed in.
 */
export function useSignedIn(): { name: string; label: string; title: string; member: boolean } | null {
  const scope = useContext(PageScope);
  const as = useContext(PageSignedInAs);
  if (scope === null || as === null) return null;
  if (as.kind === "member")
    return { name: as.name ?? "Member", label: as.role, title: "You, and your role", member: true };
  return {
    name: as.name ?? "Team key",
    label: scope,
    title: "The key you signed in with, and its scope",
    member: false,
  };
}

/** Whether the signed-in member or key may do what needs `needed`. */
export function useCan(needed: Scope): boolean {
  const held = useContext(PageScope);
  return held !== null && allows(held, needed);
}
