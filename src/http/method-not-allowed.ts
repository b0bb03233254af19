// A known path asked with a method it does not serve: 405 `method_not_allowed` with `Allow`, as RFC 9110
// §15.5.6 asks, instead of a 404 that says the path does not exist. Answered from the app's notFound
// handler by matching the path against the app's own routes, so a new route needs nothing here.

import type { Context, Hono } from "hono";
import { METHOD_NAME_ALL } from "hono/router";
import { PatternRouter } from "hono/router/pattern-router";
import type { AppEnv } from "./env.js";
import { errorResponse } from "./errors.js";

/** The notFound handler: 405 with `Allow` for a known path, else 404 `not_found`. */
export function methodNotAllowed(app: Hono<AppEnv>) {
  // Built on first use: by then every route is registered, whatever order createApp adds them in.
  let router: PatternRouter<string> | undefined;
  const allowedMethods = (path: string): string[] => {
    if (!router) {
      router = new PatternRouter<string>();
      // Middleware (app.use) is registered for every method; only real routes say what a path serves.
      for (const route of app.routes)
        if (route.method !== METHOD_NAME_ALL) router.add(METHOD_NAME_ALL, route.path, route.method);
    }
    const methods = new Set(router.match("GET", path)[0].map(([method]) => method.toUpperCase()));
    // hono answers HEAD wherever it answers GET.
    if (methods.has("GET")) methods.add("HEAD");
    return [...methods].sort();
  };

  return (c: Context<AppEnv>): Response => {
    const allowed = allowedMethods(c.req.path);
    // A route that serves this method and still found nothing (c.notFound() from a handler) is a plain 404.
    if (allowed.length === 0 || allowed.includes(c.req.method))
      return errorResponse(c, "not_found", "No such route.");
    c.header("Allow", allowed.join(", "));
    return errorResponse(c, "method_not_allowed", `This path answers ${allowed.join(", ")}.`);
  };
}
