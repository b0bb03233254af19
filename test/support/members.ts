// People joining a team the way they do: an invite made with an admin key (POST /v1/invites), its link opened
// in a browser, the join form sent; then found in the member list by the name they gave.

import { expect } from "vitest";
import type { Role } from "../../src/role.js";
import { inviteAnswer, memberSchema } from "../../src/routes/members.js";
import { PageClient } from "../page/browser-client.js";
import { expectOk } from "../routes/contract.js";
import type { TestApp } from "./app.js";

export interface Joined {
  memberId: string;
  name: string;
  email: string;
  password: string;
  /** Signed in as the member, as joining leaves them. */
  browser: PageClient;
}

/** The path of a new invite's link (its host is the request's). */
export async function invitePath(app: TestApp, adminKey: string, role: Role): Promise<string> {
  const res = await app.request("/v1/invites", { method: "POST", token: adminKey, json: { role } });
  return new URL((await expectOk(res, 201, inviteAnswer)).url).pathname;
}

/** Opens the invite's form and sends it, as a person would; the answer is the form's. */
export async function sendJoin(
  browser: PageClient,
  path: string,
  fields: { name: string; email: string; password: string },
): Promise<Response> {
  return browser.post(path, new URLSearchParams(fields));
}

export async function members(app: TestApp, adminKey: string) {
  return expectOk(await app.request("/v1/members", { token: adminKey }), 200, memberSchema.array());
}

let joinedCount = 0;

/** A new member of `role`, joined through an invite and signed in. */
export async function joinAs(
  app: TestApp,
  adminKey: string,
  role: Role,
  person: Partial<{ name: string; email: string; password: string }> = {},
): Promise<Joined> {
  joinedCount += 1;
  const name = person.name ?? `${role} ${joinedCount}`;
  const email = person.email ?? `${role}.${joinedCount}@example.com`;
  const password = person.password ?? `correct horse ${role} ${joinedCount}`;
  const browser = new PageClient(app);
  const res = await sendJoin(browser, await invitePath(app, adminKey, role), { name, email, password });
  expect(res.status, await res.clone().text()).toBe(303);
  const memberId = (await members(app, adminKey)).find((m) => m.name === name)?.id;
  if (!memberId) throw new Error(`${name} is not in the member list after joining`);
  return { memberId, name, email, password, browser };
}
