// The API key's format, `mem_<teamId>_<secret>`: the team id is readable from the key, which lets a router
// (the Cloudflare Worker) pick the team's instance before anything authenticates the key. Pure, so the
// Worker bundle can compile it; the team directory is what checks a key against storage.

import { teamIdPattern } from "./ids.js";

export const API_KEY_PREFIX = "mem_";

export function formatApiKey(teamId: string, secret: string): string {
  return `${API_KEY_PREFIX}${teamId}_${secret}`;
}

/** The team a key names (a well-formed team id and a non-empty secret), or null; the shape only. */
export function teamIdOfApiKey(apiKey: string): string | null {
  if (!apiKey.startsWith(API_KEY_PREFIX)) return null;
  const rest = apiKey.slice(API_KEY_PREFIX.length);
  const end = rest.indexOf("_");
  if (end <= 0 || end === rest.length - 1) return null;
  const teamId = rest.slice(0, end);
  return teamIdPattern.test(teamId) ? teamId : null;
}
