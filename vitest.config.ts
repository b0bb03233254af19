import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: {
    // workerd's built-in module, for the Worker's tests under Node (test/runtime/worker.test.ts).
    alias: {
      "cloudflare:workers": fileURLToPath(new URL("test/support/cloudflare-workers.ts", import.meta.url)),
    },
  },
  test: {
    include: ["test/**/*.test.ts"],
    // The default summary, then what was skipped for want of an input from outside the repository, and why.
    reporters: ["default", "./test/support/skip-notes.ts"],
    // Index builds and sealing are CPU-bound; two workers match this project's 2-core machines.
    maxWorkers: 2,
    testTimeout: 30_000,
    // Bundled for workerd (extensionless imports, `cloudflare:workers`): run through Vite so the alias applies.
    server: { deps: { inline: ["@cloudflare/containers"] } },
  },
});
