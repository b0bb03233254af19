// What an idempotency key's sealed answer holds, as a schema: the status, the content type and the body of
// the first request's answer (team content: a document's title is in it). Bound to the key's blind index,
// so an answer copied onto another key's row fails to open.

import { z } from "zod";
import { toHex } from "../seal/bytes.js";
import { sealRow, type TeamKey } from "../seal/team-key.js";
import { openAs } from "./open-as.js";

export const storedAnswerSchema = z.object({
  status: z.number().int(),
  contentType: z.string().nullable(),
  body: z.string(),
});
export type StoredAnswer = z.infer<typeof storedAnswerSchema>;

/** The table name bound into each answer seal's additional data; changing it makes stored answers unreadable. */
const IDEMPOTENCY_TABLE = "idempotency_keys";

export const sealAnswer = (key: TeamKey, keyRef: Uint8Array, answer: StoredAnswer) =>
  sealRow(key, IDEMPOTENCY_TABLE, toHex(keyRef), answer);

export async function openAnswer(
  key: TeamKey,
  keyRef: Uint8Array,
  sealed: Uint8Array,
): Promise<StoredAnswer> {
  return openAs(storedAnswerSchema, key, IDEMPOTENCY_TABLE, toHex(keyRef), sealed);
}
