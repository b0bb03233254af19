// What glibc's malloc holds in use across every arena and its own mmaps (mallinfo2's uordblks + hblkhd), read
// through koffi as src/runtime/tuning/malloc-trim.ts binds malloc_trim: the measure of what a connection's page cache
// gives back, which RSS shows only after a trim and beside everything else the process does. null where it
// cannot be read (not glibc, or a glibc before 2.33): the tests that need it skip.

import koffi from "koffi";

let bound: (() => number) | null | undefined;

export function mallocInUse(): number | null {
  if (bound === undefined) {
    try {
      const info = koffi.struct("memoria_test_mallinfo2", {
        arena: "size_t",
        ordblks: "size_t",
        smblks: "size_t",
        hblks: "size_t",
        hblkhd: "size_t",
        usmblks: "size_t",
        fsmblks: "size_t",
        uordblks: "size_t",
        fordblks: "size_t",
        keepcost: "size_t",
      });
      const mallinfo2 = koffi.load("libc.so.6").func("mallinfo2", info, []) as () => {
        uordblks: number | bigint;
        hblkhd: number | bigint;
      };
      bound = () => {
        const m = mallinfo2();
        return Number(m.uordblks) + Number(m.hblkhd);
      };
    } catch {
      bound = null;
    }
  }
  return bound ? bound() : null;
}
