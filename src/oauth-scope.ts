// The scopes an OAuth client may ask memoria for. `admin` is not one: an agent signed in through a connector
// searches, reads, adds and remembers, but deleting, forgetting and export stay with a key an owner makes on
// purpose. Pure, for the Worker bundle (its 401 on /mcp names them).

export const oauthScopes = ["read", "write"] as const;
export type OAuthScope = (typeof oauthScopes)[number];
