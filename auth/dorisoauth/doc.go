// Package dorisoauth is the server's own OAuth 2.1 authorization server
// for Doris-backed sign-in (ENABLE_DORIS_OAUTH_AUTH): a person signs in at
// /doris-login with their Doris user and password, and every MCP call they
// make then runs on a pool of that Doris account, so Doris's grants decide
// what they see.
//
// It keeps no shared state. Login transactions, authorization codes, access
// and refresh tokens and dynamically registered clients are self-contained
// values sealed with AES-256-GCM under keys derived per purpose (HKDF) from
// one shared secret, so any replica that has the secret can serve any
// request, and a restart loses nothing. Revocation and refresh-token
// rotation are facts in a bounded per-replica ledger that replicas exchange
// with their configured peers and that converges whatever the order
// (ledger.go, peers.go); Doris itself re-checks each person's credential at
// a bounded interval. README.md ("Doris-backed OAuth") states the threat
// model these choices answer.
//
// What it serves: RFC 8414 and RFC 9728 metadata, /oauth/authorize (code
// flow, PKCE S256 only, RFC 8707 resource indicators, RFC 9207 iss), the
// sign-in page, /oauth/token (authorization_code, refresh_token with
// rotation), /oauth/revoke (RFC 7009), /oauth/register (RFC 7591), client ID
// metadata documents, the command-line endpoints /api/auth/token and
// /api/auth/refresh, and Identify, which turns a bearer access token into
// an auth.Identity. What it does not do: talk to Doris itself (the
// CheckLogin option does), or decide what a person may see (Doris does).
//
// Package dorisoauth imports only the standard library and package auth.
package dorisoauth
