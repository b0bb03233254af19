// GET /docs: Swagger UI over /openapi.json, served from the project's own `swagger-ui-dist` dependency, so
// the page loads nothing from another origin (no CDN, nothing unpinned) and runs no inline script: its
// start-up is a same-origin file too, ready for a strict Content-Security-Policy. The app runs on Node and
// Deno, both of which read node_modules; the Cloudflare Worker only forwards to it.

import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { Hono } from "hono";
import type { AppEnv } from "./env.js";

/** The files of swagger-ui-dist the page loads, with their media types. */
const distFiles: Record<string, string> = {
  "swagger-ui.css": "text/css; charset=utf-8",
  "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
};

// The spec's URL is in the page (data-url), so the script stays one fixed file. `validatorUrl: null`:
// Swagger UI otherwise sends the spec to validator.swagger.io for a badge.
const INIT_SCRIPT = `window.addEventListener("load", () => {
  const root = document.getElementById("swagger-ui");
  window.ui = SwaggerUIBundle({ url: root.dataset.url, domNode: root, validatorUrl: null });
});
`;

/** A year, immutable: an asset's URL carries swagger-ui-dist's version, so a new version is a new URL. */
const ASSET_CACHE = "public, max-age=31536000, immutable";
/** The page and its start-up script change with memoria itself: a cache asks again each time. */
const PAGE_CACHE = "no-cache";

export function docsRoutes(): Hono<AppEnv> {
  const require = createRequire(import.meta.url);
  const packageFile = require.resolve("swagger-ui-dist/package.json");
  const distDir = dirname(packageFile);
  const version = (require(packageFile) as { version: string }).version;
  const assets = `/docs/assets/${version}`;
  // Read once, on first request (swagger-ui-bundle.js is ~1.5 MB; a start that never serves /docs skips it).
  const loaded = new Map<string, Promise<Uint8Array>>();
  const load = (name: string) => {
    let file = loaded.get(name);
    if (!file) {
      file = readFile(join(distDir, name));
      loaded.set(name, file);
    }
    return file;
  };

  const page = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>memoria API</title>
<link rel="stylesheet" href="${assets}/swagger-ui.css">
</head>
<body>
<div id="swagger-ui" data-url="/openapi.json"></div>
<script src="${assets}/swagger-ui-bundle.js"></script>
<script src="/docs/init.js"></script>
</body>
</html>
`;

  const app = new Hono<AppEnv>();
  app.get("/docs", (c) => {
    c.header("Cache-Control", PAGE_CACHE);
    return c.html(page);
  });
  app.get("/docs/init.js", (c) => {
    c.header("Cache-Control", PAGE_CACHE);
    c.header("Content-Type", "text/javascript; charset=utf-8");
    return c.body(INIT_SCRIPT);
  });
  app.get(`${assets}/:name`, async (c) => {
    const name = c.req.param("name");
    const type = Object.hasOwn(distFiles, name) ? distFiles[name] : undefined;
    if (!type) return c.notFound();
    c.header("Cache-Control", ASSET_CACHE);
    c.header("Content-Type", type);
    return c.body(new Uint8Array(await load(name)));
  });
  return app;
}
