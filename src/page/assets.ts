// The page's one stylesheet and one script, served from this process at fixed same-origin URLs: no CDN, no
// build step, no inline style or script, so the page's Content-Security-Policy can be `'self'` only.

/** Plain CSS: a single readable column that fits a phone's width, visible focus for keyboard users. */
export const PAGE_CSS = `*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;color:#1b1b1b;background:#fafafa}
header,main{max-width:48rem;margin:0 auto;padding:0.75rem 1rem}
header{display:flex;flex-wrap:wrap;gap:0.5rem 1rem;align-items:center;border-bottom:1px solid #ddd}
header .brand{font-weight:700;margin-right:auto;text-decoration:none;color:inherit}
nav{display:flex;flex-wrap:wrap;gap:0.5rem 1rem;align-items:center}
a{color:#0b57d0}
a:focus-visible,button:focus-visible,input:focus-visible,textarea:focus-visible{outline:3px solid #f29900;outline-offset:2px}
label{display:block;font-weight:600;margin:0.75rem 0 0.25rem}
input,textarea,button{font:inherit}
input[type=search],input[type=text],input[type=password],input[type=email],input.invite-link,input:not([type]),input[type=number],textarea{width:100%;padding:0.5rem;border:1px solid #888;border-radius:4px;background:#fff}
textarea{min-height:12rem}
button{margin-top:0.75rem;padding:0.5rem 1rem;border:1px solid #0b57d0;border-radius:4px;background:#0b57d0;color:#fff;cursor:pointer}
nav form button{margin:0;padding:0.25rem 0.75rem;background:#fff;color:#0b57d0}
.who{color:#555;font-size:0.9rem}
.hint{color:#555;font-size:0.9rem;margin:0.25rem 0}
.error{border-left:4px solid #b3261e;background:#fdecea;padding:0.5rem 0.75rem}
.notice{border-left:4px solid #188038;background:#e6f4ea;padding:0.5rem 0.75rem}
.hits{list-style:none;padding:0}
.hit{margin:1rem 0;padding:0.75rem;background:#fff;border:1px solid #ddd;border-radius:4px}
.hit h2{font-size:1.1rem;margin:0}
.trail,.path,.dates{color:#555;font-size:0.9rem;margin:0.25rem 0}
mark{background:#fde68a}
pre{white-space:pre-wrap;word-break:break-word;background:#fff;border:1px solid #ddd;padding:0.75rem}
code,pre{font-family:ui-monospace,"SFMono-Regular","DejaVu Sans Mono",Menlo,Consolas,monospace;font-size:0.9em}
pre code{font-size:inherit}
.document p{white-space:pre-wrap}
.audit{width:100%;border-collapse:collapse;font-size:0.9rem}
.audit th,.audit td{text-align:left;padding:0.35rem 0.5rem;border-bottom:1px solid #ddd;vertical-align:top;overflow-wrap:anywhere}
.document li{white-space:pre-wrap}
.passage:target{outline:3px solid #fde68a;outline-offset:4px}
.passages{list-style:none;padding:0;margin:0.5rem 0 0}
.passages li{margin:0.5rem 0 0;padding-top:0.5rem;border-top:1px solid #eee}
.passage-link{font-weight:600;overflow-wrap:anywhere}
.snippet{margin:0.25rem 0;overflow-wrap:anywhere}
.more,.counts{color:#555;font-size:0.9rem}
.recent,.entries{padding-left:1.25rem}
.entry{margin:0.75rem 0}
.entry p{margin:0.1rem 0;overflow-wrap:anywhere}
.entry form button{margin-top:0.25rem}
button.secondary{background:#fff;color:#0b57d0;padding:0.25rem 0.75rem}
button.danger{background:#b3261e;border-color:#b3261e}
a.danger{color:#b3261e}
.actions{margin-top:2rem;border-top:1px solid #ddd;padding-top:0.75rem}
dl.accounting{display:grid;grid-template-columns:max-content 1fr;gap:0.25rem 1rem}
dl.accounting dd{margin:0}
`;

/**
 * Only an improvement: "/" focuses the search box, and the search box searches as you type (after a pause),
 * by submitting its own form, which works the same without this file. And passkeys, which need a script by
 * their nature (the browser's WebAuthn API): their buttons are drawn hidden and shown here only where the
 * browser can use them; the page's JSON routes carry the ceremony, and an error is said beside the button.
 */
export const PAGE_JS = `(() => {
  const box = document.querySelector("input[type=search]");
  if (!box) return;
  document.addEventListener("keydown", (event) => {
    const typing = event.target instanceof HTMLInputElement || event.target instanceof HTMLTextAreaElement;
    if (event.key === "/" && !typing) { event.preventDefault(); box.focus(); }
  });
  let timer;
  box.addEventListener("input", () => {
    clearTimeout(timer);
    if (box.value.trim() === "") return;
    timer = setTimeout(() => box.form && box.form.requestSubmit(), 600);
  });
  const end = box.value.length;
  if (end > 0) box.setSelectionRange(end, end);
})();
(() => {
  const buttons = document.querySelectorAll("button[data-passkey]");
  const usable = window.PublicKeyCredential && PublicKeyCredential.parseCreationOptionsFromJSON;
  const post = async (url, body, csrf) => {
    const headers = { "content-type": "application/json" };
    if (csrf) headers["x-csrf-token"] = csrf;
    const res = await fetch(url, { method: "POST", headers, body: JSON.stringify(body || {}) });
    const data = await res.json().catch(() => ({}));
    if (!res.ok) throw new Error((data.error && data.error.message) || "The passkey was not accepted.");
    return data;
  };
  for (const button of buttons) {
    const status = document.getElementById(button.dataset.status || "");
    if (!usable) continue;
    button.hidden = false;
    button.addEventListener("click", async () => {
      if (status) status.textContent = "";
      try {
        if (button.dataset.passkey === "join") {
          const field = (id) => (document.getElementById(id) || { value: "" }).value;
          const person = { name: field("name"), email: field("email").trim() };
          const path = "/page/invite/" + encodeURIComponent(button.dataset.invite || "") + "/passkey";
          const options = await post(path + "/options", person);
          const made = await navigator.credentials.create({ publicKey: PublicKeyCredential.parseCreationOptionsFromJSON(options) });
          const done = await post(path, { ...person, response: made.toJSON() });
          location.assign(done.redirect || "/");
        } else if (button.dataset.passkey === "add") {
          const csrf = button.dataset.csrf;
          const options = await post("/page/passkeys/options", {}, csrf);
          const made = await navigator.credentials.create({ publicKey: PublicKeyCredential.parseCreationOptionsFromJSON(options) });
          await post("/page/passkeys", made.toJSON(), csrf);
          location.assign("/page/account?added=1");
        } else {
          const options = await post("/page/passkey/options");
          const got = await navigator.credentials.get({ publicKey: PublicKeyCredential.parseRequestOptionsFromJSON(options) });
          const done = await post("/page/passkey/sign-in", got.toJSON());
          location.assign(done.redirect || "/");
        }
      } catch (error) {
        if (status) status.textContent = error.message || "The passkey was not accepted.";
      }
    });
  }
})();
`;

/**
 * The tab icon, answered at /favicon.ico: an "m" on memoria's link blue, as SVG (every current browser takes an
 * SVG icon whatever the path's extension), so nothing is fetched from elsewhere and there is no binary to keep.
 */
export const FAVICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">
<rect width="32" height="32" rx="6" fill="#0b57d0"/>
<path d="M7 23V12.5h3v1.6c.8-1.2 2-1.9 3.5-1.9 1.6 0 2.7.7 3.3 2 .9-1.3 2.2-2 3.8-2 2.5 0 3.9 1.6 3.9 4.4V23h-3v-7.6c0-1.5-.6-2.2-1.8-2.2-1.3 0-2.1.9-2.1 2.6V23h-3v-7.6c0-1.5-.6-2.2-1.8-2.2-1.3 0-2.1.9-2.1 2.6V23z" fill="#fff"/>
</svg>
`;
