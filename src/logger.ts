// Structured log lines, one JSON object each. Fields are metadata only (ids, counts, statuses, times):
// callers never pass team content, and request logging never records a query string.

import type { LogLevel } from "./config.js";

export type LogFields = Record<string, string | number | boolean | null | undefined>;

export interface Logger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
}

const order: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export function createLogger(level: LogLevel, write: (line: string) => void = (l) => console.log(l)): Logger {
  const at =
    (lineLevel: LogLevel) =>
    (message: string, fields: LogFields = {}) => {
      if (order[lineLevel] < order[level]) return;
      write(JSON.stringify({ time: new Date().toISOString(), level: lineLevel, message, ...fields }));
    };
  return { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
}

export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };
