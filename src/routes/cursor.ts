// Page cursors are opaque to clients: base64url of the last row's (createdAt, id). Only metadata goes in one.

import { z } from "zod";
import { DomainError } from "../errors.js";
import { fromBase64, fromUtf8, toBase64Url, utf8 } from "../seal/bytes.js";

const cursorSchema = z.object({ createdAt: z.string(), id: z.string() });
export type PageCursor = z.infer<typeof cursorSchema>;

export function encodeCursor(cursor: PageCursor): string {
  return toBase64Url(utf8(JSON.stringify([cursor.createdAt, cursor.id])));
}

export function decodeCursor(text: string): PageCursor {
  try {
    const bytes = fromBase64(text);
    if (!bytes) throw new Error();
    const [createdAt, id] = JSON.parse(fromUtf8(bytes)) as unknown[];
    return cursorSchema.parse({ createdAt, id });
  } catch {
    throw new DomainError("invalid_request", "Invalid request: cursor is not one this API returned.");
  }
}
