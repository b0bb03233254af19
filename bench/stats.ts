// Percentiles of timed runs and resident memory, shared by the bench's measuring processes.

import { readFileSync } from "node:fs";

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

/**
 * A process's resident memory as the kernel counts it (VmRSS in /proc/<pid>/status), in bytes: read from
 * outside, so it covers every thread and native allocation of a server and nothing of the process reading it.
 */
export function processRssBytes(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kib = /^VmRSS:\s+(\d+)\s+kB$/m.exec(status)?.[1];
  if (kib === undefined) throw new Error(`no VmRSS for process ${pid}`);
  return Number(kib) * 1024;
}

/** The median of unsorted values (the mean of the middle two for an even count); NaN for none. */
export function median(values: readonly number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  if (s.length === 0) return Number.NaN;
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
}
