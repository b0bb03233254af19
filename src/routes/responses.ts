// OpenAPI descriptions of JSON answers, so every route lists its error envelope the same way.

import type { z } from "@hono/zod-openapi";
import { errorEnvelopeSchema } from "../http/errors.js";

export const json = <T extends z.ZodType>(schema: T, description: string) => ({
  content: { "application/json": { schema } },
  description,
});

export const errors = (...statuses: number[]) =>
  Object.fromEntries(statuses.map((s) => [s, json(errorEnvelopeSchema, "The error envelope.")]));
