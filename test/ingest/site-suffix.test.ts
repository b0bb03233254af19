import { describe, expect, it } from "vitest";
import { withoutSiteSuffix } from "../../src/ingest/site-suffix.js";

describe("withoutSiteSuffix", () => {
  it("drops the site's name after the last spaced separator", () => {
    expect(withoutSiteSuffix("Models — Django 3.2.25 documentation")).toBe("Models");
    expect(withoutSiteSuffix("Vec in std::vec - Rust")).toBe("Vec in std::vec");
    expect(withoutSiteSuffix("Configuration - MkDocs")).toBe("Configuration");
    expect(withoutSiteSuffix("Pricing | Acme")).toBe("Pricing");
    expect(withoutSiteSuffix("Install – Setup - Foo 1.2 documentation")).toBe("Install – Setup");
    expect(withoutSiteSuffix("StringUtils (Apache Commons Lang 3.12.0 API)")).toBe("StringUtils");
  });

  it("keeps a title with no separator, or one whose only separator starts it", () => {
    expect(withoutSiteSuffix("git-commit(1)")).toBe("git-commit(1)");
    expect(withoutSiteSuffix("- Notes")).toBe("- Notes");
    expect(withoutSiteSuffix("")).toBe("");
  });
});
