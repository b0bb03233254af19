// What the signed-in key may do, for the page's views: the page shows only the actions its key's scope allows
// (no "Delete" to a read key), so a person is not offered a button that answers "Not with this key". The
// routes still check every action (scopes.ts); this only decides what is drawn. Set once per answer by the
// page's render, read by any view with `useCan`.

import { createContext, useContext } from "hono/jsx";
import { allows, type Scope } from "../scope.js";

/** The signed-in key's scope; null on a page drawn for nobody signed in. */
export const PageScope = createContext<Scope | null>(null);

/** The signed-in key's name, shown beside its scope; null for a key made without one, or nobody signed in. */
export const PageKeyName = createContext<string | null>(null);

/** Who the page is drawn for: the key's name (or "Team key") and its scope; null for nobody signed in. */
export function useSignedIn(): { name: string; scope: Scope } | null {
  const scope = useContext(PageScope);
  const name = useContext(PageKeyName);
  return scope === null ? null : { name: name ?? "Team key", scope };
}

/** Whether the signed-in key may do what needs `needed`. */
export function useCan(needed: Scope): boolean {
  const held = useContext(PageScope);
  return held !== null && allows(held, needed);
}
