// The Worker's log lines: one JSON object each, `{"msg", ...fields}`, metadata only (ids, statuses,
// counts, error names), as Cloudflare's log view shows them. Never a request's content.

import type { LogFields, Logger } from "../../logger.js";

export function logLine(level: "info" | "error", msg: string, fields: Record<string, unknown> = {}): void {
  const line = JSON.stringify({ msg, ...fields });
  if (level === "error") console.error(line);
  else console.log(line);
}

/** The same lines as a Logger, for what the Worker shares with the app (src/http/errors.ts's onError). */
export function workerLogger(): Logger {
  const at = (level: "info" | "error") => (msg: string, fields?: LogFields) => logLine(level, msg, fields);
  return { debug: at("info"), info: at("info"), warn: at("error"), error: at("error") };
}

export function errorName(error: unknown): string {
  return error instanceof Error ? error.name : "unknown";
}
