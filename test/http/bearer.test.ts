// The bearer token checks shared by the app's middlewares and the Cloudflare Worker.

import { describe, expect, it } from "vitest";
import { isDomainError } from "../../src/errors.js";
import { bearerToken, requireAdminToken, requireCronOrAdminToken } from "../../src/http/bearer.js";

const ADMIN = "admin-token-0123456789";
const CRON = "cron-token-0123456789";

async function codeOf(check: Promise<void>): Promise<string | null> {
  try {
    await check;
    return null;
  } catch (error) {
    if (!isDomainError(error)) throw error;
    return error.code;
  }
}

describe("bearerToken", () => {
  it("reads one token after Bearer, in any case, and nothing else", () => {
    expect(bearerToken("Bearer abc")).toBe("abc");
    expect(bearerToken("bearer   abc  ")).toBe("abc");
    for (const header of ["Bearer abc def", "Bearer", "Bearer ", "Basic abc", "abc", "", null, undefined]) {
      expect(bearerToken(header), String(header)).toBeNull();
    }
  });
});

describe("requireAdminToken", () => {
  it("is admin_disabled without an admin token, unauthorized for anything but it", async () => {
    expect(await codeOf(requireAdminToken(ADMIN, ADMIN))).toBeNull();
    expect(await codeOf(requireAdminToken(ADMIN, null))).toBe("admin_disabled");
    for (const given of [null, "", CRON, `${ADMIN}x`]) {
      expect(await codeOf(requireAdminToken(given, ADMIN)), String(given)).toBe("unauthorized");
    }
  });
});

describe("requireCronOrAdminToken", () => {
  it("takes the cron token or the admin token, and either alone when the other is unset", async () => {
    expect(await codeOf(requireCronOrAdminToken(CRON, CRON, ADMIN))).toBeNull();
    expect(await codeOf(requireCronOrAdminToken(ADMIN, CRON, ADMIN))).toBeNull();
    expect(await codeOf(requireCronOrAdminToken(ADMIN, null, ADMIN))).toBeNull();
    expect(await codeOf(requireCronOrAdminToken(CRON, CRON, null))).toBeNull();
    for (const given of [null, "", "wrong-token-0123456789"]) {
      expect(await codeOf(requireCronOrAdminToken(given, CRON, ADMIN)), String(given)).toBe("unauthorized");
    }
    expect(await codeOf(requireCronOrAdminToken(CRON, null, ADMIN))).toBe("unauthorized");
    expect(await codeOf(requireCronOrAdminToken(ADMIN, null, null))).toBe("unauthorized");
  });
});
