// The working-memory constants. Each is exported and pinned by a golden test (test/memory/golden.test.ts), so
// changing one is a visible change to every agent's prompt, never a silent one.

/**
 * Reciprocal-rank fusion's K. 60 is the value the RRF literature settled on: large enough that the first few
 * ranks of one list do not swamp agreement between lists (1/61 vs 1/62 is a 1.6% step), small enough that
 * rank still matters down a 200-entry list.
 */
export const FUSION_K = 60;

/**
 * The three lists weigh the same. No list is trusted more than another until a measurement says so: the
 * recency list alone must still rank the pool when there is no query and no project, and an entry on two
 * lists must beat an entry on one.
 */
export const WEIGHT_RECENCY = 1.0;
export const WEIGHT_MATCH = 1.0;
export const WEIGHT_PROJECT = 1.0;

/**
 * Entries per read, and so at most 600 candidates for three reads. Far more than any budget can include
 * (200 one-line entries are ~10,000 tokens), so the cap never hides an entry a budget could hold, and it
 * bounds the work of a request whatever the team's size.
 */
export const POOL_LIMIT = 200;

/** The budget when the caller names none: a block that fits beside a task in any current model's prompt. */
export const DEFAULT_BUDGET = 2000;

/** The largest budget accepted: 100,000 tokens is beyond every pool (600 lines of ~50 tokens is ~30,000). */
export const MAX_BUDGET = 100_000;

/**
 * The token estimate's divisor, over UTF-8 bytes rather than characters: about 4 bytes of English make a
 * token, and counting bytes over-estimates the cost of other scripts instead of under-estimating it, so a
 * block never overflows the budget it was cut to.
 */
export const BYTES_PER_TOKEN = 4;
