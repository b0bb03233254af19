// The rendered working-memory block: the included lines, one per entry, in rank order.

import type { SliceResult } from "./slice.js";

export function renderBlock(result: SliceResult): string {
  return result.items.map((item) => item.line).join("\n");
}
