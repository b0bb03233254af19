// The secret Notion webhook path (v1.1). Its token is a sealed `notion.url` row of `sources`, made at
// PUT /v1/sources/notion, so no table changes: the token must never be at rest readable (nor as a plain hash
// a leaked database could test guesses against — it is sealed like every secret). What changes is data that
// v1's open path let anyone write:
// - a verification token stored before this version came through the bare /v1/webhooks/notion/{teamId},
//   which any caller knowing the team id could claim first (a security probe's finding); the bare path now answers
//   404, so no subscription made for it can deliver again: it is forgotten, and the handshake Notion sends
//   to the team's secret URL verifies;
// - a page's newest event time left by a team whose Notion token is gone (v1's DELETE kept them), or dated
//   more than 5 minutes after this migration runs (a signed event from the future froze its page, finding 6):
//   forgotten, so the page takes the next genuine event. ISO-8601 UTC strings compare as times.

export const version = 4;
export const statements = [
  "DELETE FROM sources WHERE kind = 'notion.verification'",
  `DELETE FROM source_pages
    WHERE team_id NOT IN (SELECT team_id FROM sources WHERE kind = 'notion.token')
       OR event_at > strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '+5 minutes')`,
];
