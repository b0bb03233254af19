// Pins, by measurement, the ranking decisions src/index/query.ts and src/index/ranking/weights.ts describe. Every
// test runs a real PassageIndex over a small team corpus and asserts an ORDER or a relation, never an
// exact float: the floats depend on the whole corpus (IDF, average column lengths) and would make any
// harmless fixture edit a failure. The scores measured when each test was written are kept in a comment so
// a reader can see how wide each margin is, and so a change that narrows it is noticed in review.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type IndexedDocument,
  type PassageHit,
  PassageIndex,
} from "../../../src/index/passages/passage-index.js";
import { MAX_QUERY_TERMS, matchQuery } from "../../../src/index/query.js";
import { bm25Weights, columnWeights } from "../../../src/index/ranking/weights.js";
import { MATCH_CLOSE, MATCH_OPEN } from "../../../src/index/snippets/snippet.js";
import { chunkDocument } from "../../../src/ingest/chunk.js";
import { backingFile, temporaryStorage } from "../../support/passage-probe.js";

/** A markdown document as the app stores it: chunked the way ingest chunks it, passage ids `<doc>#<n>`. */
function doc(id: string, title: string, path: string[], markdown: string): IndexedDocument {
  const passages = chunkDocument({ title, content: markdown, format: "markdown" }).map((p) => ({
    chunkId: `${id}#${p.ordinal}`,
    ordinal: p.ordinal,
    heading: p.heading,
    text: p.text,
  }));
  return { id, title, path, passages };
}

// A dozen-plus pages of a small company's wiki. Most passages say "number" somewhere, as real operational
// prose does, so FTS5 sees it in more than half the corpus and clamps its IDF to ~1e-6: the condition under
// which the earlier implementation ranked a "Phone" heading above the passage stating the phone number.
const corpus: IndexedDocument[] = [
  doc(
    "doc_finance",
    "Q2 finance report",
    ["Finance"],
    `# Q2 finance report

## Revenue

June revenue was $48,200, up 6% on May. Most of the growth came from annual plans sold at the conference; the number of monthly subscribers barely moved.

## Costs

Hosting costs fell by a fifth after the database migration. Salaries remain the largest line and the number of contractors is unchanged.

## Outlook

We expect July to be flat. The number to watch is churn among the small teams who joined in spring.
`,
  ),
  doc(
    "doc_sales",
    "Sales pipeline",
    ["Sales"],
    `# Sales pipeline

## Enterprise deals

Two enterprise deals are in legal review. Each would add recurring revenue from the second quarter, but neither customer has given us a purchase order number yet.

## Conference leads

We collected 140 leads at the spring conference. A rep follows up on each within a week and records the number of replies in the CRM.
`,
  ),
  doc(
    "doc_offsite",
    "Team offsite",
    ["People team"],
    `# Team offsite

## Dates

The offsite runs from 12 to 14 June in Lisbon. Book flights through the travel desk and quote your booking number when you claim them back.

## Agenda

The first day is planning for the second half, the second is workshops, the third is free. Nobody is expected in the office that week.
`,
  ),
  doc(
    "doc_passports",
    "Passport numbers",
    [],
    `514 220 981

533 019 442

120 877 309
`,
  ),
  doc(
    "doc_facilities",
    "Facilities FAQ",
    ["Facilities"],
    `# Facilities FAQ

## Contact details

The office phone number is 020 7946 0958. Reception answers it between nine and five on weekdays.

## Getting in

The office opens at eight. Visitors sign in at reception and give the number of the person they are meeting.

## Post

Parcels are held at the office reception for a week. Write the room number on anything you send to the building.
`,
  ),
  doc(
    "doc_equipment",
    "Equipment",
    ["IT"],
    `# Equipment

## Laptop

Everyone collects a laptop from the office on their first day. Its serial number is recorded against your name.

## Phone

Mobiles are ordered through IT. Quote your employee number on the request form and allow a week.

## Returns

Return equipment to IT when you leave. We wipe it and log the asset number.
`,
  ),
  doc(
    "doc_onboarding",
    "New starters",
    ["People team"],
    `# New starters

## Onboarding checklist

Before the first day: send the contract, order a laptop, create the accounts. On the first day: a welcome call, a tour of the office, lunch with the team. By the end of the first week: a buddy assigned, the onboarding checklist signed off by the manager.
`,
  ),
  // Many pages nested under "Handbook". Every passage of each carries "Handbook" in its path column, which is
  // exactly what must not let the handbook outrank the page that answers the question.
  doc(
    "doc_hb_holidays",
    "Holidays",
    ["Handbook"],
    `# Holidays

## Allowance

Everyone has 25 days a year plus public holidays. The number carries over up to five days.

## Booking

Book holidays in the HR system at least two weeks ahead and tell your team. The office closes between Christmas and New Year.
`,
  ),
  doc(
    "doc_hb_expenses",
    "Expenses",
    ["Handbook"],
    `# Expenses

## What you can claim

Travel, meals on the road and equipment bought during onboarding, with a receipt and a cost centre number.

## How to claim

Submit claims by the fifth of the month; they are paid with the next salary.
`,
  ),
  doc(
    "doc_hb_hours",
    "Working hours",
    ["Handbook"],
    `# Working hours

## Core hours

Core hours are ten to four, in the office or at home. Outside them, work when it suits you and your team.

## Overtime

Overtime is paid only when agreed in advance with your manager, up to a fixed number of hours a month.
`,
  ),
  doc(
    "doc_hb_security",
    "Security",
    ["Handbook"],
    `# Security

## Passwords

Use the password manager and turn on two-factor authentication. Never share an access code or a recovery number.

## Incidents

Report a lost laptop or a suspicious email to IT the same day, and lock your screen when you leave the office.
`,
  ),
  doc(
    "doc_hb_conduct",
    "Code of conduct",
    ["Handbook"],
    `# Code of conduct

## Respect

Treat colleagues and customers with respect. Any number of small slights adds up; raise them early.

## Reporting

Report concerns to your manager or to the people team in confidence.
`,
  ),
  doc(
    "doc_hb_leave",
    "Parental leave",
    ["Handbook"],
    `# Parental leave

## Entitlement

Parents get twenty weeks at full pay, whatever the number of children.

## Keeping in touch

Up to ten keeping-in-touch days are paid and optional.
`,
  ),
  doc(
    "doc_runbook",
    "Deploy runbook",
    ["Engineering"],
    `# Deploy runbook

## Before deploying

Check the build is green and note the release number in the channel.

## Rolling back

Roll back by redeploying the previous release number; the database migrations are backwards compatible.

## On call

The on-call engineer is paged for any error rate above one percent.
`,
  ),
  doc(
    "doc_retro",
    "Sprint retro",
    ["Engineering"],
    `# Sprint retro

## What went well

We closed a record number of bugs and the flaky test suite is finally stable.

## What to change

Reviews wait too long. We will cap the number of open pull requests per person at three.
`,
  ),
  doc(
    "doc_support",
    "Support playbook",
    ["Support"],
    `# Support playbook

## First reply

Reply within four hours. Include the ticket number in every email so the thread stays together.

## Escalation

Escalate to engineering when a customer cannot log in or sees wrong data.
`,
  ),
  doc(
    "doc_marketing",
    "Newsletter",
    ["Marketing"],
    `# Newsletter

## Schedule

The newsletter goes out on the first Tuesday of the month. Keep the number of links under ten.

## Audience

Subscribers are mostly customers; write for people who already use the product.
`,
  ),
];

const allPassages = corpus.flatMap((d) => d.passages.map((p) => ({ doc: d, passage: p })));

let index: PassageIndex;
beforeAll(() => {
  index = new PassageIndex();
  index.apply(corpus);
});
afterAll(() => index.close());

const search = (q: string, limit = 100): PassageHit[] => index.search(matchQuery(q).expression, limit);

/** The hit for one passage, failing loudly when it is missing: an absent hit must not read as a low score. */
function hit(hits: readonly PassageHit[], chunkId: string): PassageHit {
  const found = hits.find((h) => h.chunkId === chunkId);
  if (!found) throw new Error(`${chunkId} is not among the hits: ${hits.map((h) => h.chunkId).join(", ")}`);
  return found;
}

const ids = (hits: readonly PassageHit[]): string[] => hits.map((h) => h.chunkId);

// Set MEMORIA_SHOW_SCORES=1 to print every search's scores, which is how the "measured:" comments were taken.
function measure(label: string, hits: readonly PassageHit[]): void {
  if (!process.env.MEMORIA_SHOW_SCORES) return;
  console.log(`${label}: ${hits.map((h) => `${h.chunkId} ${h.score.toFixed(4)}`).join(" | ")}`);
}

/** A minimal one-passage document, for the indexes built inside a single test. */
function single(id: string, title: string, path: string[], heading: string, text: string): IndexedDocument {
  return { id, title, path, passages: [{ chunkId: `${id}#0`, ordinal: 0, heading, text }] };
}

describe("the fixture", () => {
  it("has 'number' in more than half its passages, so FTS5 clamps its IDF as it does in a real wiki", () => {
    const withNumber = allPassages.filter(({ passage }) => /\bnumber\b/i.test(passage.text));
    // measured: 24 of 36 passages
    expect(withNumber.length * 2).toBeGreaterThan(allPassages.length);
    expect(index.counts()).toEqual({ documents: corpus.length, chunks: allPassages.length });
  });
});

describe("ranking", () => {
  it("treats ordinary English with apostrophes as a query and finds the Revenue passage first", () => {
    // The same text fed to MATCH raw is an FTS5 syntax error, which would reach the user as an error page
    // that reads like "nothing matched". That is the failure quoting exists to prevent.
    expect(() => index.search("what's June's revenue", 10)).toThrow();

    const hits = search("what's June's revenue");
    measure("what's June's revenue", hits);
    // measured: doc_finance#0 (heading Revenue) 6.38, then the "What …" headings doc_retro#0 3.62,
    // doc_retro#1 3.56, doc_hb_expenses#0 3.53, then doc_offsite#0 (June) 2.31, doc_sales#0 (revenue) 2.27
    expect(hits[0]?.chunkId).toBe("doc_finance#0");
    expect(hits[0]?.heading).toBe("Revenue");
  });

  it("finds a document by a word of its title when its body is only numbers", () => {
    const passports = corpus.find((d) => d.id === "doc_passports");
    expect(passports?.passages.every((p) => !/passport/i.test(p.heading + p.text))).toBe(true);

    const hits = search("passport");
    measure("passport", hits);
    // measured: doc_passports#0 4.03, and nothing else matches
    expect(ids(hits)).toEqual(["doc_passports#0"]);
    expect(hits[0]?.title).toBe("Passport numbers");
  });

  it("does not let ancestry outrank content: the onboarding page beats every page under Handbook", () => {
    const hits = search("handbook onboarding checklist");
    measure("handbook onboarding checklist", hits);
    // measured: doc_onboarding#0 8.02; best Handbook passage doc_hb_expenses#0 3.02 (it mentions onboarding
    // in its body); the other twelve Handbook passages, matched by their path alone, 0.40–0.52
    expect(hits[0]?.chunkId).toBe("doc_onboarding#0");
    const handbook = hits.filter((h) => h.path[0] === "Handbook");
    const handbookPassages = allPassages.filter(({ doc: d }) => d.path[0] === "Handbook");
    // The path column still matches, so every handbook passage is found; it just ranks below the answer.
    expect(handbook).toHaveLength(handbookPassages.length);
    const best = hit(hits, "doc_onboarding#0").score;
    for (const h of handbook) expect(h.score).toBeLessThan(best);
  });

  it("ranks the passage stating the office phone number above a passage headed Phone", () => {
    const right = "doc_facilities#0"; // "The office phone number is 020 7946 0958."
    const wrong = "doc_equipment#1"; // heading "Phone", body says "employee number"
    const hits = search("office phone number");
    measure("office phone number", hits);
    // measured: right 7.54, wrong 4.25
    expect(hits[0]?.chunkId).toBe(right);
    expect(hit(hits, right).score).toBeGreaterThan(hit(hits, wrong).score);

    // Without the NEAR group the short 3x-weighted heading wins, because "number" is worth ~nothing: this is
    // the fixture reproducing the earlier implementation's bug, so the assertion above is testing the fix.
    const plainOr = matchQuery("office phone number")
      .terms.map((t) => `"${t}"`)
      .join(" OR ");
    const withoutNear = index.search(plainOr, 100);
    measure("office phone number without NEAR", withoutNear);
    // measured: wrong 4.25, right 3.77
    expect(withoutNear[0]?.chunkId).toBe(wrong);
    // And NEAR only adds score: it returns exactly the passages the plain OR does.
    expect(new Set(ids(hits))).toEqual(new Set(ids(withoutNear)));
  });

  it("keeps recall with OR: words the corpus lacks do not hide the passages with the words it has", () => {
    const hits = search("june revenue flamingo trombone");
    measure("june revenue flamingo trombone", hits);
    // measured: doc_finance#0 6.38, doc_offsite#0 2.31, doc_sales#0 2.27
    const expected = allPassages
      .filter(({ doc: d, passage: p }) =>
        /\b(june|revenue)\b/i.test([p.heading, p.text, d.title, ...d.path].join(" ")),
      )
      .map(({ passage }) => passage.chunkId);
    expect(new Set(ids(hits))).toEqual(new Set(expected));
    expect(hits[0]?.chunkId).toBe("doc_finance#0");

    const question = search("what is average revenue in June");
    measure("what is average revenue in June", question);
    // measured: doc_finance#0 6.38, doc_retro#0 4.73, doc_retro#1 3.56 … 22 hits in all; "average" is in no
    // passage, and ANDing it would have returned none
    expect(question.length).toBeGreaterThan(expected.length);
    expect(question[0]?.chunkId).toBe("doc_finance#0");
  });

  it("cuts a query of 5,000 words to 64 terms and still answers it", () => {
    // A pasted essay, made of the corpus's own words so the kept terms have something to match.
    const words = allPassages.flatMap(({ passage }) => passage.text.match(/\p{L}+/gu) ?? []);
    const essay = Array.from({ length: 5_000 }, (_, i) => words[i % words.length]).join(" ");
    expect(essay.split(" ")).toHaveLength(5_000);

    const query = matchQuery(essay);
    expect(MAX_QUERY_TERMS).toBe(64);
    expect(query.terms).toHaveLength(64);
    expect(query.terms).toEqual(words.slice(0, 64));
    const operands = query.expression.split(" OR ");
    expect(operands).toHaveLength(65);
    for (const operand of operands.slice(0, 64)) expect(operand).toMatch(/^"[^"]+"$/);
    expect(operands[64]).toMatch(/^NEAR\((?:"[^"]+" ){63}"[^"]+", 2\)$/);
    expect(query.expression.match(/"[^"]+"/g)).toHaveLength(128);

    const hits = index.search(query.expression, 20);
    measure("5,000-word essay", hits);
    // measured: 20 hits, top doc_finance#0 46.87 (the essay starts with its words)
    expect(hits.length).toBeGreaterThan(0);
  });

  it("weighs the columns heading 3, body 1, title 1, path 0.5 and scores the same word in that order", () => {
    expect(columnWeights).toEqual({ heading: 3, body: 1, title: 1, path: 0.5 });
    expect(bm25Weights).toEqual([3, 1, 1, 0.5]);

    // Every column of every passage is exactly two tokens long, so length normalisation is the same
    // everywhere and the only difference between the four probe passages is which column holds "zephyr".
    const probes = [
      single("in_heading", "epsilon eta", ["theta iota"], "zephyr beta", "gamma delta"),
      single("in_body", "epsilon eta", ["theta iota"], "alpha beta", "zephyr delta"),
      single("in_title", "zephyr eta", ["theta iota"], "alpha beta", "gamma delta"),
      single("in_path", "epsilon eta", ["zephyr iota"], "alpha beta", "gamma delta"),
    ];
    const filler = Array.from({ length: 12 }, (_, i) =>
      single(`filler_${i}`, "epsilon eta", ["theta iota"], "alpha beta", "gamma delta"),
    );
    const own = new PassageIndex();
    try {
      own.apply([...filler, ...probes]);
      const hits = own.search(matchQuery("zephyr").expression, 10);
      measure("zephyr by column", hits);
      // measured: heading 1.6055, body 1.0217, title 1.0217, path 0.6611
      expect(hits.map((h) => h.documentId)).toEqual(["in_heading", "in_body", "in_title", "in_path"]);
      const score = (id: string) => hits.find((h) => h.documentId === id)?.score ?? Number.NaN;
      expect(score("in_heading")).toBeGreaterThan(score("in_body"));
      expect(score("in_body")).toBeCloseTo(score("in_title"), 9);
      expect(score("in_title")).toBeGreaterThan(score("in_path"));
      // FTS5 applies a column's weight to the term's frequency BEFORE BM25's saturation, not to the score:
      // with every passage at the average length a passage scores idf * w(k1 + 1) / (w + k1), k1 = 1.2. So
      // heading 3 is 1.57x body, not 3x, and path 0.5 is 0.65x. Checking the ratios against that formula
      // pins the weights themselves: heading 2 would give 1.375x, path 0.25 would give 0.38x.
      const k1 = 1.2;
      const relative = (w: number) => (w * (k1 + 1)) / (w + k1);
      expect(score("in_heading") / score("in_body")).toBeCloseTo(relative(columnWeights.heading), 9);
      expect(score("in_title") / score("in_body")).toBeCloseTo(relative(columnWeights.title), 9);
      expect(score("in_path") / score("in_body")).toBeCloseTo(relative(columnWeights.path), 9);
    } finally {
      own.close();
    }
  });

  it("orders equal scores by document id then ordinal, whatever the insertion order", () => {
    const twin = (documentId: string, ordinal: number) => ({
      chunkId: `${documentId}#${ordinal}`,
      ordinal,
      heading: "Rota",
      text: "The weekend support rota swaps every Friday.",
    });
    // Inserted b before a, and a's ordinal 1 before its ordinal 0, so neither insertion order nor rowid
    // can produce the expected order by accident.
    const docB: IndexedDocument = { id: "d_b", title: "Support", path: [], passages: [twin("d_b", 0)] };
    const docA: IndexedDocument = {
      id: "d_a",
      title: "Support",
      path: [],
      passages: [twin("d_a", 1), twin("d_a", 0)],
    };
    const fillers = corpus.slice(0, 6);

    const first = new PassageIndex();
    const second = new PassageIndex();
    try {
      first.apply([docB, docA, ...fillers]);
      const hits = first.search(matchQuery("weekend rota").expression, 10);
      measure("weekend rota", hits);
      // measured: all three 8.3222
      expect(hits.map((h) => [h.documentId, h.ordinal])).toEqual([
        ["d_a", 0],
        ["d_a", 1],
        ["d_b", 0],
      ]);
      expect(new Set(hits.map((h) => h.score)).size).toBe(1);

      // The same data loaded the other way round, in two transactions.
      second.apply([...fillers].reverse());
      second.apply([docA, docB]);
      expect(second.search(matchQuery("weekend rota").expression, 10)).toEqual(hits);
    } finally {
      first.close();
      second.close();
    }
  });

  it("answers the same hits in the same order from an index loaded in a different order", () => {
    const rebuilt = new PassageIndex();
    try {
      for (const d of [...corpus].reverse()) rebuilt.apply([d]);
      for (const q of [
        "what's June's revenue",
        "office phone number",
        "handbook onboarding checklist",
        "number",
        "the first day",
      ]) {
        expect(rebuilt.search(matchQuery(q).expression, 100)).toEqual(search(q));
      }
    } finally {
      rebuilt.close();
    }
  });
});

describe("snippets", () => {
  let own: PassageIndex;
  beforeAll(() => {
    own = new PassageIndex();
    own.apply([
      ...corpus.slice(0, 6),
      single(
        "html",
        "Export notes",
        [],
        "Exports",
        `Paste <script>alert("x")</script> & 'quotes' into the payroll export.`,
      ),
      single("markers", "Markers", [], "Notes", "\u0002injected\u0003 text beside the payroll total."),
      single("heading_only", "Benefits", [], "Payroll", "Pension contributions go out on the last day."),
      single("literal", "Literal", [], "Notes", "The string <mark>fake</mark> appears in the ledger."),
    ]);
  });
  afterAll(() => own.close());

  const snippetOf = (q: string, documentId: string): string => {
    const found = own.search(matchQuery(q).expression, 50).find((h) => h.documentId === documentId);
    if (!found) throw new Error(`${documentId} not found for ${q}`);
    return found.snippet;
  };

  it("marks matches in the body and escapes every other character", () => {
    expect(snippetOf("payroll", "html")).toBe(
      "Paste &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;quotes&#39; into the <mark>payroll</mark> export.",
    );
  });

  it("takes the snippet from the body even when only the heading matched", () => {
    expect(snippetOf("payroll", "heading_only")).toBe("Pension contributions go out on the last day.");
  });

  it("does not let control characters in a body inject a <mark>", () => {
    const snippet = snippetOf("payroll", "markers");
    expect(snippet).toBe(" injected  text beside the <mark>payroll</mark> total.");
    expect(snippet.match(/<mark>/g)).toHaveLength(1);
    expect(snippet).not.toContain(MATCH_OPEN);
    expect(snippet).not.toContain(MATCH_CLOSE);
  });

  it("escapes a literal <mark> tag in a body", () => {
    expect(snippetOf("ledger", "literal")).toBe(
      "The string &lt;mark&gt;fake&lt;/mark&gt; appears in the <mark>ledger</mark>.",
    );
  });
});

describe("updates", () => {
  it("forgets every word only the old version had once a document is replaced, and all of it on remove", () => {
    const own = new PassageIndex();
    try {
      const fillers = corpus.slice(0, 6);
      const v1 = doc(
        "doc_courier",
        "Courier",
        ["Facilities"],
        "# Courier\n\n## Provider\n\nParcels go with Parcelforce.\n\n## Collection\n\nCollected at noon by a driver named Wendell.\n\n## Account\n\nAccount kept by Ottoline.\n",
      );
      const v2 = doc(
        "doc_courier",
        "Courier",
        ["Facilities"],
        "# Courier\n\n## Provider\n\nParcels go with DHL.\n",
      );
      expect(v1.passages).toHaveLength(3);
      expect(v2.passages).toHaveLength(1);
      const find = (q: string) => own.search(matchQuery(q).expression, 100);

      own.apply([...fillers, v1]);
      for (const word of ["parcelforce", "wendell", "ottoline"]) expect(ids(find(word))).not.toEqual([]);

      own.apply([v2]);
      for (const word of ["parcelforce", "wendell", "ottoline"]) expect(find(word)).toEqual([]);
      expect(ids(find("dhl"))).toEqual(["doc_courier#0"]);
      expect(own.counts()).toEqual({
        documents: fillers.length + 1,
        chunks: fillers.reduce((n, d) => n + d.passages.length, 0) + 1,
      });

      own.apply([], ["doc_courier"]);
      for (const word of ["courier", "dhl", "parcels", "provider", "facilities"]) {
        expect(find(word).filter((h) => h.documentId === "doc_courier")).toEqual([]);
      }
      expect(own.counts()).toEqual({
        documents: fillers.length,
        chunks: fillers.reduce((n, d) => n + d.passages.length, 0),
      });
    } finally {
      own.close();
    }
  });
});

describe("storage", () => {
  it("is not a file", () => {
    // SQLite's own answer (PRAGMA database_list), not the constructor's argument: "" means in memory, so
    // FTS5's plaintext postings are never on disk.
    expect(backingFile(index)).toBe("");
  });
});

describe("never on disk", () => {
  it("keeps even temporary sort space in memory", () => {
    const own = new PassageIndex();
    expect(temporaryStorage(own)).toEqual({ tempStore: "memory", journal: "memory" });
    own.close();
  });
});
