// The reindex ping fanned out over team instances: the cron's run (every team seen in the last hour, with
// the cron token), and an outside `POST /v1/reindex` without a team (the same fan-out, its answers joined
// into one). A failed ping is reported after every team was asked.

import { mapLimit } from "../../async/pool.js";
import { type Config, ConfigError } from "../../config.js";
import { teamIdPattern } from "../../ids.js";
import { ACTIVE_WINDOW_MS } from "./active-teams.js";
import type { WorkerBindings } from "./bindings.js";
import { logLine } from "./log.js";

/** How many team instances a reindex fan-out asks at once. */
export const FANOUT_CONCURRENCY = 4;

export interface PingResult {
  teamId: string;
  /** The instance's answer when it was 2xx JSON, else null. */
  answer: unknown;
  /** The instance's status, or 0 when it could not be reached. */
  status: number;
}

/**
 * The team a `POST /v1/reindex` body names: null for no body or no teamId (every active team), or a
 * message when the body is not what the route takes.
 */
export function reindexTarget(body: string): { teamId: string | null } | { invalid: string } {
  if (body.trim() === "") return { teamId: null };
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return { invalid: "Malformed JSON in request body." };
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    return { invalid: "Invalid request: body: must be an object." };
  }
  // The same rules as the container's own route (src/routes/reindex.ts): only teamId, and a team id's form.
  if (Object.keys(parsed).some((k) => k !== "teamId")) {
    return { invalid: "Invalid request: the body may hold only teamId." };
  }
  const teamId = (parsed as { teamId?: unknown }).teamId;
  if (teamId === undefined) return { teamId: null };
  if (typeof teamId !== "string" || !teamIdPattern.test(teamId)) {
    return { invalid: "Invalid request: teamId: must be a team id." };
  }
  return { teamId };
}

/** POST /v1/reindex to one team's instance, with the given credentials; never rejects. */
async function pingTeam(
  bindings: WorkerBindings,
  teamId: string,
  authorization: string,
  requestId: string,
): Promise<PingResult> {
  const request = new Request("http://memoria/v1/reindex", {
    method: "POST",
    headers: { authorization, "content-type": "application/json", "x-request-id": requestId },
    body: JSON.stringify({ teamId }),
  });
  try {
    const response = await bindings.instance(teamId).fetch(request);
    const answer = response.ok ? await response.json().catch(() => null) : null;
    if (!response.ok) await response.body?.cancel();
    return { teamId, answer, status: response.status };
  } catch {
    return { teamId, answer: null, status: 0 };
  }
}

/** Pings every team the registry lists as active; returns each answer in the registry's order. */
export async function pingActiveTeams(
  bindings: WorkerBindings,
  authorization: string,
  requestId: string,
): Promise<PingResult[]> {
  const teams = await bindings.activeTeams().list(Date.now() - ACTIVE_WINDOW_MS);
  return mapLimit(teams, FANOUT_CONCURRENCY, (teamId) =>
    pingTeam(bindings, teamId, authorization, requestId),
  );
}

export function failuresOf(results: PingResult[]): PingResult[] {
  return results.filter((r) => r.status < 200 || r.status > 299);
}

/** One answer from several instances: their `teams` lists joined, in the order the teams were asked. */
export function mergeReindexAnswers(
  results: PingResult[],
  tookMs: number,
): { teams: unknown[]; tookMs: number } {
  const teams: unknown[] = [];
  for (const { answer } of results) {
    const list = (answer as { teams?: unknown } | null)?.teams;
    if (Array.isArray(list)) teams.push(...list);
  }
  return { teams, tookMs };
}

/**
 * The cron's run: the reindex ping, with the cron token, to every active team. Throws when it cannot run
 * (a bad environment, no cron token) and when a ping failed, so the run shows as failed in the dashboard.
 */
export async function cronReindex(config: Config | ConfigError, bindings: WorkerBindings): Promise<void> {
  if (config instanceof ConfigError) throw new Error(`Reindex ping skipped: ${config.message}`);
  if (config.cronToken === null) throw new Error("Reindex ping skipped: MEMORIA_CRON_TOKEN is not set.");
  const started = Date.now();
  const results = await pingActiveTeams(
    bindings,
    `Bearer ${config.cronToken}`,
    `cron-${crypto.randomUUID()}`,
  );
  const failed = failuresOf(results);
  logLine("info", "reindex ping", {
    teams: results.length,
    failed: failed.map((r) => ({ teamId: r.teamId, status: r.status })),
    tookMs: Date.now() - started,
  });
  if (failed.length > 0)
    throw new Error(`Reindex ping failed on ${failed.length} of ${results.length} teams.`);
}
