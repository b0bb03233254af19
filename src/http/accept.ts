// Refusing a body of a media type a route does not take, with 415, before any validator reads it.

import type { Context, MiddlewareHandler } from "hono";
import { DomainError } from "../errors.js";
import type { AppEnv } from "./env.js";

/** The request's media type, lower-cased and without parameters; "" when it names none. */
export function mediaType(c: Context): string {
  return (c.req.header("content-type") ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
}

/** Refuses any other media type with 415 before a validator reads the body. */
export function acceptOnly(types: readonly string[]): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (!types.includes(mediaType(c)))
      throw new DomainError("unsupported_media_type", `Send ${types.join(", ")}.`);
    await next();
  };
}
