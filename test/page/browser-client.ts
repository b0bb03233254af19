// A browser, as far as the page's route tests need one: it keeps the session cookie, sends the Origin a
// browser sends on a POST (this app's own unless told otherwise), and reads the CSRF token out of a form.

import type { TestApp } from "../support/app.js";

export const ORIGIN = "http://localhost";

/** A form's fields as a browser posts them (multipart). */
export function form(fields: Record<string, string>): FormData {
  const data = new FormData();
  for (const [name, value] of Object.entries(fields)) data.set(name, value);
  return data;
}

export class PageClient {
  cookie: string | null = null;

  constructor(private readonly app: TestApp) {}

  async get(path: string): Promise<Response> {
    const headers = new Headers();
    if (this.cookie) headers.set("cookie", `memoria_session=${this.cookie}`);
    return this.keep(await this.app.memoria.app.request(path, { headers }));
  }

  async post(
    path: string,
    body: URLSearchParams | FormData,
    options: { origin?: string | null; cookie?: string | null; fetchSite?: string } = {},
  ): Promise<Response> {
    const headers = new Headers();
    const cookie = options.cookie === undefined ? this.cookie : options.cookie;
    if (cookie) headers.set("cookie", `memoria_session=${cookie}`);
    const origin = options.origin === undefined ? ORIGIN : options.origin;
    if (origin !== null) headers.set("origin", origin);
    if (options.fetchSite) headers.set("sec-fetch-site", options.fetchSite);
    return this.keep(await this.app.memoria.app.request(path, { method: "POST", headers, body }));
  }

  async signIn(key: string): Promise<Response> {
    return this.post("/page/sign-in", new URLSearchParams({ key }));
  }

  /** The CSRF token the signed-in search page's Sign out form carries. */
  async csrf(): Promise<string> {
    const html = await (await this.get("/")).text();
    const token = /name="csrf" value="([0-9a-f]+)"/.exec(html)?.[1];
    if (!token) throw new Error("no CSRF token on the page");
    return token;
  }

  /** Keeps what Set-Cookie says of the session cookie, as a browser would. */
  private keep(res: Response): Response {
    for (const line of res.headers.getSetCookie()) {
      const [pair = "", ...attributes] = line.split(";").map((p) => p.trim());
      const [name, value = ""] = pair.split("=");
      if (name !== "memoria_session") continue;
      const expired = attributes.some((a) => /^max-age=0$/i.test(a) || /^expires=thu, 01 jan 1970/i.test(a));
      this.cookie = expired || value === "" ? null : value;
    }
    return res;
  }
}
