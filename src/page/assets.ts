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
input[type=search],input[type=text],input[type=password],input[type=number],textarea{width:100%;padding:0.5rem;border:1px solid #888;border-radius:4px;background:#fff}
textarea{min-height:12rem}
button{margin-top:0.75rem;padding:0.5rem 1rem;border:1px solid #0b57d0;border-radius:4px;background:#0b57d0;color:#fff;cursor:pointer}
nav form button{margin:0;padding:0.25rem 0.75rem;background:#fff;color:#0b57d0}
.hint{color:#555;font-size:0.9rem;margin:0.25rem 0}
.error{border-left:4px solid #b3261e;background:#fdecea;padding:0.5rem 0.75rem}
.notice{border-left:4px solid #188038;background:#e6f4ea;padding:0.5rem 0.75rem}
.hits{list-style:none;padding:0}
.hit{margin:1rem 0;padding:0.75rem;background:#fff;border:1px solid #ddd;border-radius:4px}
.hit h2{font-size:1.1rem;margin:0}
.trail,.path,.dates{color:#555;font-size:0.9rem;margin:0.25rem 0}
mark{background:#fde68a}
pre{white-space:pre-wrap;word-break:break-word;background:#fff;border:1px solid #ddd;padding:0.75rem}
.document p{white-space:pre-wrap}
dl.accounting{display:grid;grid-template-columns:max-content 1fr;gap:0.25rem 1rem}
dl.accounting dd{margin:0}
`;

/**
 * Only an improvement: "/" focuses the search box, and the search box searches as you type (after a pause),
 * by submitting its own form, which works the same without this file.
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
`;
