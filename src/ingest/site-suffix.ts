// A page's <title> names the page and then its site: "Models — Django 3.2.25 documentation", "Vec in
// std::vec - Rust", "Configuration - MkDocs", "Pricing | Acme", "StringUtils (Apache Commons Lang 3.12.0 API)".
// The site's part is the same on every page of the site, so it names none of them.

// The separators themes put between the page's name and the site's, spaced on both sides (a hyphen inside a
// word, "git-commit", separates nothing).
const siteSeparator = / (?:—|–|-|\||·|::|»|\/\/) /g;
// Javadoc's "(Project 1.2 API)".
const javadocSuffix = /\s+\([^()]*\bAPI\)$/;

/** The page's part of a <title>: everything before the last separator, or the whole title if none. */
export function withoutSiteSuffix(title: string): string {
  const trimmed = title.replace(javadocSuffix, "").trim();
  let last = -1;
  for (const match of trimmed.matchAll(siteSeparator)) last = match.index;
  if (last <= 0) return trimmed;
  return trimmed.slice(0, last).trim();
}
