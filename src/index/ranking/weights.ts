// Column weights for bm25(), in the passages table's column order: heading, body, title, path.
//
// Heading above body: a passage under "Revenue" answers "revenue" better than one that mentions it in
// passing.
//
// Title equal to body, not more. The title column exists so a document is findable by the words of its name
// (a "Passport numbers" document whose body is only numbers otherwise matched nothing for "passport");
// ranking a title match above a passage that discusses the term would be a different and worse answer. The
// cost, shared with the heading trail: a title match hits every passage of that document.
//
// Path below all three, and that is the load-bearing one. A document's ancestry repeats into every one of
// its passages, so at a heading's weight the top of a source's tree outranks its content, and "handbook"
// returns the whole handbook above the page that answers the question. 0.5 itself is a guess (half the
// body); the ordering is not, and test/index/ranking/ranking.test.ts pins it by measured scores.
//
// FTS5 multiplies a column's term frequency by its weight before BM25's saturation, so the weights are not
// score ratios: one occurrence at average length scores w·2.2/(w + 1.2) of a body match, i.e. heading 1.57×,
// title 1×, path 0.65× (measured: 1.6055, 1.0217, 1.0217, 0.6611 for the same word in each column).
export const columnWeights = { heading: 3, body: 1, title: 1, path: 0.5 } as const;

/** The weights as bm25()'s argument list, in column order. */
export const bm25Weights = [
  columnWeights.heading,
  columnWeights.body,
  columnWeights.title,
  columnWeights.path,
];
