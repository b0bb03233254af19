// How the browser tests start Debian's Chromium (`outside.chromium`) through playwright-core.

/** Headless in a container: no sandbox (no user namespaces), no GPU, no /dev/shm, nothing phoning home. */
export const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-dev-shm-usage",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];
