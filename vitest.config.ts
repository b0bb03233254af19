import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Index builds and sealing are CPU-bound; two workers match this project's 2-core machines.
    maxWorkers: 2,
    testTimeout: 30_000,
  },
});
