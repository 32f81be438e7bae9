package dorisoauth

import (
	"net/http"
	"net/url"
	"strings"
	"time"
)

// serveAuthorize answers GET /oauth/authorize (RFC 6749 §4.1.1 with PKCE
// and RFC 8707). Until the client and its redirect URI are known to be
// genuine, an error is shown to the person and never redirected (RFC 6749
// §4.1.2.1); after that, errors go back to the client with state and iss.
// A good request becomes a sealed login transaction and a redirect to the
// sign-in page.
func (s *Server) serveAuthorize(w http.ResponseWriter, r *http.Request) {
	if !s.limits.allow("authorize-ip", s.clientIP(r), s.cfg.Limits.AuthorizePerIP, s.now()) {
		s.errorPage(w, http.StatusTooManyRequests, "Too many sign-in requests from your address. Wait a few minutes and try again.")
		return
	}
	q, err := parseForm(r.URL.RawQuery)
	if err != nil {
		s.errorPage(w, http.StatusBadRequest, "The authorization request is malformed: "+err.Error()+".")
		return
	}
	c, err := s.resolveClient(r.Context(), q["client_id"])
	if err != nil {
		s.errorPage(w, http.StatusBadRequest, "The application is not known to this server ("+err.Error()+"). Return to it and connect again.")
		return
	}
	redirect := matchRedirect(c.RedirectURIs, q["redirect_uri"])
	if redirect == "" {
		s.errorPage(w, http.StatusBadRequest, "The application asked to return to an address it did not register. Nothing was sent to it.")
		return
	}
	fail := func(code, desc string) {
		p := url.Values{"error": {code}, "error_description": {desc}, "iss": {s.issuer}}
		if st, ok := q["state"]; ok && len(st) <= maxStateBytes {
			p.Set("state", st)
		}
		http.Redirect(w, r, redirectWith(redirect, p), http.StatusFound)
	}
	_, scopeGiven := q["scope"]
	switch {
	case q["response_type"] != "code":
		fail("unsupported_response_type", "response_type must be code")
		return
	case q["code_challenge_method"] != "S256":
		fail("invalid_request", "PKCE with code_challenge_method S256 is required")
		return
	case !validChallenge(q["code_challenge"]):
		fail("invalid_request", "code_challenge must be the 43-character base64url SHA-256 of the code_verifier")
		return
	case len(q["state"]) > maxStateBytes:
		fail("invalid_request", "state is longer than 1024 bytes")
		return
	case q["resource"] != "" && !s.resourceAlias(q["resource"]):
		fail("invalid_target", "resource must be "+s.resource)
		return
	}
	scopes, err := s.scopes.grant(q["scope"], scopeGiven, c.Scopes)
	if err != nil {
		fail("invalid_scope", err.Error())
		return
	}
	id, err := s.keys.randomID(12)
	if err != nil {
		s.errorPage(w, http.StatusInternalServerError, "The server could not start the sign-in. Try again.")
		return
	}
	txn := txnClaims{ID: id, Client: c.ID, Redirect: redirect, RedirectGiven: q["redirect_uri"] != "", State: q["state"],
		Challenge: q["code_challenge"], Scope: strings.Join(scopes, " "), Resource: s.resource,
		Exp: s.now().Add(s.cfg.CodeTTL).Unix()}
	sealed, err := s.keys.seal(purposeTxn, txn)
	if err != nil {
		s.errorPage(w, http.StatusBadRequest, "The authorization request is too large to carry through the sign-in page.")
		return
	}
	http.Redirect(w, r, "/doris-login?"+url.Values{"txn_id": {sealed}}.Encode(), http.StatusFound)
}

const maxStateBytes = 1024

// validChallenge reports whether c looks like an S256 challenge: the
// unpadded base64url of 32 bytes.
func validChallenge(c string) bool {
	if len(c) != 43 {
		return false
	}
	for i := 0; i < len(c); i++ {
		ch := c[i]
		if !(ch >= 'A' && ch <= 'Z' || ch >= 'a' && ch <= 'z' || ch >= '0' && ch <= '9' || ch == '-' || ch == '_') {
			return false
		}
	}
	return true
}

// openTxn opens a login transaction that has not expired.
func (s *Server) openTxn(sealed string) (txnClaims, bool) {
	var t txnClaims
	if s.keys.open(purposeTxn, sealed, &t) != nil || !s.now().Before(time.Unix(t.Exp, 0)) {
		return txnClaims{}, false
	}
	return t, true
}
