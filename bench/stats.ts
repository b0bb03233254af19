// Percentiles of timed runs, shared by the bench's measuring processes.

/** The value at or just above the p-th percentile of already sorted times (nearest rank). */
export function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

/** p50 and p99 of unsorted times. */
export function latency(times: readonly number[]): { p50: number; p99: number } {
  const sorted = [...times].sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99) };
}

/**
 * Resident memory once garbage is collected, in MiB. The bench starts its measuring processes with
 * --expose-gc so that every engine is measured holding what it keeps, not what its build left for the
 * collector; without the flag this is the RSS as it stands.
 */
export function settledRssMiB(): number {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  return process.memoryUsage().rss / 1024 / 1024;
}
