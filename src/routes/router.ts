// Every route group is an OpenAPIHono whose validation failures become the one error envelope: a failed
// schema throws a domain error instead of answering with zod's own shape.

import { OpenAPIHono } from "@hono/zod-openapi";
import { DomainError, type ErrorCode, errorCodes } from "../errors.js";
import type { AppEnv } from "../http/env.js";
import { describeIssues } from "../http/errors.js";

/** A schema can ask for a specific error code by putting it in a custom issue's params. */
export const errorCodeParam = "errorCode";

export function router(): OpenAPIHono<AppEnv> {
  return new OpenAPIHono<AppEnv>({
    defaultHook: (result) => {
      if (result.success) return;
      const issues = result.error.issues;
      const asked = issues
        .map((i) => (i.code === "custom" ? (i.params?.[errorCodeParam] as ErrorCode | undefined) : undefined))
        .find((code) => code !== undefined && errorCodes.includes(code));
      if (asked === "query_too_long")
        throw new DomainError("query_too_long", issues.find((i) => i.code === "custom")?.message);
      throw new DomainError("invalid_request", describeIssues(issues));
    },
  });
}
