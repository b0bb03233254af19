// What a person may do in a team. Three roles, each the powers of a scope (src/scope.ts): an `owner` has
// `admin` (keys, members, sources, deleting, export), a `member` has `write` (adding, replacing,
// remembering), a `reader` has `read`. A person's page actions are checked by the scope of their role with the
// same tables a key's are, so a role grants nothing a key of that scope could not do.

import type { Scope } from "./scope.js";

export const roles = ["owner", "member", "reader"] as const;
export type Role = (typeof roles)[number];

export function isRole(value: unknown): value is Role {
  return typeof value === "string" && (roles as readonly string[]).includes(value);
}

const SCOPE_OF_ROLE: Readonly<Record<Role, Scope>> = { owner: "admin", member: "write", reader: "read" };

export function scopeOfRole(role: Role): Scope {
  return SCOPE_OF_ROLE[role];
}
