// Preloaded into a server process (`node --import` before the entry): records every script V8 parses, through
// the inspector protocol, and on SIGUSR2 prints one JSON line to stderr, {"loadedPackages":[…]}: the names of
// the node_modules packages loaded so far. A test uses it to show what a start loads, and what only a first
// request of some kind does. Plain JavaScript, so it runs before tsx is registered.

import { Session } from "node:inspector";

const packages = new Set();
const session = new Session();
session.connect();
session.on("Debugger.scriptParsed", ({ params }) => {
  const name = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(params.url)?.[1];
  if (name) packages.add(name);
});
session.post("Debugger.enable");
process.on("SIGUSR2", () => {
  process.stderr.write(`${JSON.stringify({ loadedPackages: [...packages].sort() })}\n`);
});
