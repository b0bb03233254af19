// What a key row's sealed blob holds: the name a person gave the key ("CI agent", "Ana's laptop"). The key's
// scope and times stay readable beside it; its secret is never stored, only its hash.

import { z } from "zod";
import { sealRow, type TeamKey } from "../seal/team-key.js";
import { openAs } from "./open-as.js";

export const keyContentSchema = z.object({ name: z.string() });
export type KeyContent = z.infer<typeof keyContentSchema>;

/** The table name bound into each key seal's additional data; changing it makes every key name unreadable. */
const KEYS_TABLE = "api_keys";

export const sealKey = (key: TeamKey, keyId: string, content: KeyContent) =>
  sealRow(key, KEYS_TABLE, keyId, content);

export const openKey = (key: TeamKey, keyId: string, sealed: Uint8Array): Promise<KeyContent> =>
  openAs(keyContentSchema, key, KEYS_TABLE, keyId, sealed);
