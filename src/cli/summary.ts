// The closing line on stdout: the four counts docs/api.md names, in its order.

export interface Counts {
  sent: number;
  unchanged: number;
  deleted: number;
  failed: number;
}

export function summaryLine(counts: Counts, dryRun: boolean): string {
  if (dryRun) {
    return `dry run, nothing changed: would send ${counts.sent}, unchanged ${counts.unchanged}, would delete ${counts.deleted}, failed ${counts.failed}`;
  }
  return `sent ${counts.sent}, unchanged ${counts.unchanged}, deleted ${counts.deleted}, failed ${counts.failed}`;
}

export function exitCodeOf(counts: Counts): 0 | 1 {
  return counts.failed > 0 ? 1 : 0;
}
