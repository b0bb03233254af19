// `npx tsx bench/short-question-warmth.ts [passages] [passes]`: the real suite's 200 short questions (two rare
// words of held-out sentences of Debian's manuals, bench/real-corpora.ts) asked over loopback HTTP of memoria's
// own server (as `npm start` runs it) several times over, in the same order, each pass beside the in-process
// FTS5 OR floor and `/healthz` on the same connection. The real suite asks each question once, so each meets
// the caches a search keeps per connection (the term counts of the index's generation, the inflated text
// blocks, the JIT's view of the code) cold, on whichever search thread takes it; later passes show what the
// same questions cost once those caches hold them.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FLOOR_ENGINE } from "./floor.js";
import { openInTurnClient } from "./in-turn-client.js";
import { benchCorpus } from "./real-corpora.js";
import { askInTurn, makeTeam } from "./real-http.js";
import { startMemoriaEntry } from "./server.js";

/** After the build, for the merging it left and the idle collection (as the real suite's SETTLE_MS). */
const SETTLE_MS = 3000;

const passages = Number(process.argv[2] ?? "20000");
const passes = Number(process.argv[3] ?? "3");
const corpus = benchCorpus("debian", passages);
const client = await openInTurnClient(corpus.passages, FLOOR_ENGINE);
const scratch = mkdtempSync(join(tmpdir(), "memoria-bench-warmth-"));
const server = startMemoriaEntry(scratch);
try {
  const base = `http://127.0.0.1:${await server.port}`;
  const apiKey = await makeTeam(base, corpus.name, corpus.documents);
  await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
  console.log(
    `${corpus.passages.length.toLocaleString("en")} passages, ${corpus.short.length} short questions a pass; ` +
      `load ${(await import("node:os")).loadavg()[0]?.toFixed(2)}`,
  );
  console.log(
    "| pass | floor p50 ms | /healthz p50 ms | HTTP p50 ms | HTTP p99 ms | p50 ÷ floor | p99 ÷ floor |",
  );
  console.log("|---|---|---|---|---|---|---|");
  for (let pass = 1; pass <= passes; pass++) {
    const { floor: lf, healthz: lh, http: ls } = await askInTurn(client, base, apiKey, corpus.short);
    console.log(
      `| ${pass} | ${lf.p50.toFixed(2)} | ${lh.p50.toFixed(2)} | ${ls.p50.toFixed(2)} | ${ls.p99.toFixed(2)} | ` +
        `${(ls.p50 / lf.p50).toFixed(2)}× | ${(ls.p99 / lf.p99).toFixed(2)}× |`,
    );
  }
} finally {
  await client.close();
  server.child.kill("SIGTERM");
  await server.exited;
  rmSync(scratch, { recursive: true, force: true });
}
