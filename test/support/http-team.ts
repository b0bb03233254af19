// A team made over real HTTP, as a client of a server the test started in its own process does it: the admin
// token's POST /v1/teams, answered with the team's first key.

import { ADMIN_TOKEN } from "./app.js";

export async function makeTeamOverHttp(base: string, name: string): Promise<{ apiKey: string }> {
  const made = await fetch(`${base}/v1/teams`, {
    method: "POST",
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify({ name }),
  });
  if (made.status !== 201) throw new Error(`team creation answered ${made.status}`);
  return (await made.json()) as { apiKey: string };
}
