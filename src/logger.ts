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

/** A code such as ECONNRESET or SQLITE_BUSY: an identifier that names a condition, never a value. */
const CONDITION_CODE = /^[A-Z][A-Z0-9_]{1,63}$/;

/**
 * What an unexpected error may tell the log: its class, a condition code (ECONNRESET, SQLITE_BUSY), its
 * stack frames, and the same of its cause. Never its message: a message may quote what a request carried
 * (a JSON parser's does, a driver's may), and nothing tells a safe one from another. The frames are cut
 * from the stack after the message, as V8 writes it (`Name: message` then `    at …` lines), so a message
 * holding lines that look like frames cannot slip in; when the message cannot be found there (changed
 * after the error was made), no frames are logged.
 */
export function errorFields(error: unknown): LogFields {
  const own = describe(error);
  const cause = error instanceof Error && error.cause !== undefined ? describe(error.cause) : null;
  return {
    error: own.name,
    errorClass: own.className,
    errorCode: own.code,
    frames: own.frames,
    ...(cause ? { cause: cause.className, causeCode: cause.code, causeFrames: cause.frames } : {}),
  };
}

function describe(error: unknown): {
  name: string;
  className: string;
  code: string | undefined;
  frames: string | undefined;
} {
  if (!(error instanceof Error))
    return { name: typeof error, className: typeof error, code: undefined, frames: undefined };
  const code = (error as { code?: unknown }).code;
  return {
    name:
      CONDITION_CODE.test(error.name) || /^[A-Za-z_$][\w$]{0,63}$/.test(error.name) ? error.name : "Error",
    className: error.constructor?.name ?? "Error",
    code: typeof code === "string" && CONDITION_CODE.test(code) ? code : undefined,
    frames: stackFrames(error),
  };
}

function stackFrames(error: Error): string | undefined {
  const stack = typeof error.stack === "string" ? error.stack : "";
  // V8's first line is `<name>: <message>` (or `<name>` alone), with the name as it was when the error was
  // made (a subclass's own name field is set later): the frames begin after the message.
  const firstLineEnd = error.message === "" ? stack.indexOf("\n") : stack.indexOf(error.message);
  if (firstLineEnd < 0 || stack.slice(0, firstLineEnd).includes("\n")) return undefined;
  const rest = stack.slice(firstLineEnd + error.message.length);
  const frames = rest
    .split("\n")
    .filter((line) => /^\s+at \S/.test(line))
    .map((line) => line.trim());
  return frames.length > 0 ? frames.join("\n") : undefined;
}
