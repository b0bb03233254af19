// Progress on stderr: a bar redrawn in place when stderr is a terminal, one plain line per step otherwise
// (a log, a CI job, a pipe). Only relative paths and outcomes are printed, never file contents or titles.

export interface ProgressStream {
  write(text: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

export type Outcome = "sent" | "unchanged" | "deleted" | "failed" | "would send" | "would delete";

export interface Step {
  outcome: Outcome;
  /** The file's relative path. */
  what: string;
  /** Why, or what came of it: "new", "replaced", a failure's reason. */
  detail?: string;
}

export interface Progress {
  /** A line that is not a step (a skipped link, an unreadable folder); printed above the bar. */
  note(line: string): void;
  start(total: number): void;
  step(step: Step): void;
  finish(): void;
}

function stepLine(step: Step): string {
  return `${step.outcome} ${step.what}${step.detail ? ` (${step.detail})` : ""}`;
}

/** One line per step: `[3/40] sent notes/a.md (new)`. */
export class LineProgress implements Progress {
  #done = 0;
  #total = 0;
  constructor(private readonly out: ProgressStream) {}
  note(line: string): void {
    this.out.write(`${line}\n`);
  }
  start(total: number): void {
    this.#total = total;
  }
  step(step: Step): void {
    this.#done++;
    this.out.write(`[${this.#done}/${this.#total}] ${stepLine(step)}\n`);
  }
  finish(): void {}
}

const CLEAR_LINE = "\r\x1b[K";

/**
 * `[██████░░░░░░] 12/40 notes/a.md`, redrawn on one line; failures are printed above it so they stay on
 * screen, and the bar is cleared at the end so the summary stands alone.
 */
export class BarProgress implements Progress {
  #done = 0;
  #total = 0;
  #drawn = false;
  constructor(private readonly out: ProgressStream) {}

  note(line: string): void {
    this.out.write(`${this.#drawn ? CLEAR_LINE : ""}${line}\n`);
    if (this.#drawn) this.#draw("");
  }
  start(total: number): void {
    this.#total = total;
    this.#draw("");
  }
  step(step: Step): void {
    this.#done++;
    if (step.outcome === "failed") this.out.write(`${CLEAR_LINE}${stepLine(step)}\n`);
    this.#draw(step.what);
  }
  finish(): void {
    if (this.#drawn) this.out.write(CLEAR_LINE);
    this.#drawn = false;
  }

  #draw(what: string): void {
    const columns = Math.max(this.out.columns ?? 80, 20);
    const width = Math.max(10, Math.min(30, columns - 40));
    const filled = this.#total === 0 ? width : Math.round((this.#done / this.#total) * width);
    const counter = `${this.#done}/${this.#total}`;
    let line = `[${"█".repeat(filled)}${"░".repeat(width - filled)}] ${counter}`;
    const room = columns - 1 - line.length - 1;
    if (what && room > 3) line += ` ${what.length > room ? `…${what.slice(what.length - room + 1)}` : what}`;
    this.out.write(`${CLEAR_LINE}${line}`);
    this.#drawn = true;
  }
}

export function createProgress(out: ProgressStream): Progress {
  return out.isTTY ? new BarProgress(out) : new LineProgress(out);
}
