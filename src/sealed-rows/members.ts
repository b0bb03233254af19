// What a member row's sealed blob holds: the name the person gave, the address they sign in with, and their
// password's argon2id hash (null for one who signs in another way). The role and times stay readable beside
// it; the address is found by its keyed hash, never read.

import { z } from "zod";
import { sealRow, type TeamKey } from "../seal/team-key.js";
import { openAs } from "./open-as.js";

export const memberContentSchema = z.object({
  name: z.string(),
  email: z.string(),
  password: z.string().nullable(),
  /**
   * How they joined, so how they sign in: a password, a passkey alone, or the organisation's provider. Absent
   * in rows sealed before it was kept (all of them joined with a password).
   */
  via: z.enum(["password", "passkey", "oidc"]).optional(),
});
export type MemberContent = z.infer<typeof memberContentSchema>;

/** The table name bound into each member seal's additional data; changing it makes every member unreadable. */
const MEMBERS_TABLE = "members";

export const sealMember = (key: TeamKey, memberId: string, content: MemberContent) =>
  sealRow(key, MEMBERS_TABLE, memberId, content);

export const openMember = (key: TeamKey, memberId: string, sealed: Uint8Array): Promise<MemberContent> =>
  openAs(memberContentSchema, key, MEMBERS_TABLE, memberId, sealed);
