#!/usr/bin/env node
// The `memoria` command. The CLI is TypeScript run as it is: tsx is registered first, then the entry is
// loaded through it.
import { register } from "tsx/esm/api";

register();
const { run } = await import("../src/cli/main.ts");
await run();
