package dorisoauth

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"strings"
	"time"
)

// The sealed values. Field names are short: they travel in URLs and
// headers. Every one carries its expiry; tokens carry the family (one per
// sign-in), generation (one per refresh) and token id the ledger speaks
// about, and the time of the sign-in, which bounds the session.

// txnClaims is a pending authorization request, carried by the sign-in
// page's URL and form.
type txnClaims struct {
	ID            string `json:"i"`
	Client        string `json:"c"`
	Redirect      string `json:"r"`
	RedirectGiven bool   `json:"rg,omitempty"`
	State         string `json:"s,omitempty"`
	Challenge     string `json:"pc"`
	Scope         string `json:"sc"`
	Resource      string `json:"rs"`
	Exp           int64  `json:"e"`
}

// codeClaims is an authorization code.
type codeClaims struct {
	Family        string `json:"f"`
	Client        string `json:"c"` // digest of the client id
	Redirect      string `json:"r"` // digest of the redirect URI used
	RedirectGiven bool   `json:"rg,omitempty"`
	Challenge     string `json:"pc"`
	Scope         string `json:"sc"`
	Resource      string `json:"rs"`
	User          string `json:"u"`
	Password      string `json:"p"`
	Auth          int64  `json:"a"`
	Exp           int64  `json:"e"`
}

// tokenClaims is an access or a refresh token (the purpose tells them
// apart); the two of one pair share family, generation and token id.
type tokenClaims struct {
	Family   string `json:"f"`
	Gen      uint32 `json:"g"`
	JTI      string `json:"j"`
	Client   string `json:"c"` // digest of the client id
	User     string `json:"u"`
	Password string `json:"p"`
	Scope    string `json:"sc"`
	Resource string `json:"rs"`
	Auth     int64  `json:"a"`
	Exp      int64  `json:"e"`
}

// tokenResponse is the RFC 6749 §5.1 answer.
type tokenResponse struct {
	AccessToken      string `json:"access_token"`
	TokenType        string `json:"token_type"`
	ExpiresIn        int64  `json:"expires_in"`
	RefreshToken     string `json:"refresh_token"`
	RefreshExpiresIn int64  `json:"refresh_expires_in"`
	Scope            string `json:"scope"`
}

// grantError is a token-endpoint refusal: an RFC 6749 §5.2 code, a
// description safe to show, and the HTTP status.
type grantError struct {
	status     int
	code, desc string
}

func (e *grantError) Error() string { return e.code + ": " + e.desc }

func invalidGrant(desc string) *grantError {
	return &grantError{status: 400, code: "invalid_grant", desc: desc}
}

// pairFor seals a new access/refresh pair of generation gen for a family
// and returns the response and the refresh token's expiry.
func (s *Server) pairFor(tc tokenClaims) (tokenResponse, int64, error) {
	now := s.now().Unix()
	sessionEnd := tc.Auth + int64(s.cfg.SessionMax/time.Second)
	refreshTTL := s.cfg.RefreshTTL
	if s.cfg.IdleTimeout > 0 && s.cfg.IdleTimeout < refreshTTL {
		refreshTTL = s.cfg.IdleTimeout
	}
	access, refresh := tc, tc
	access.Exp = min(now+int64(s.cfg.AccessTTL/time.Second), sessionEnd)
	refresh.Exp = min(now+int64(refreshTTL/time.Second), sessionEnd)
	at, err := s.keys.seal(purposeAccess, access)
	if err != nil {
		return tokenResponse{}, 0, err
	}
	rt, err := s.keys.seal(purposeRefresh, refresh)
	if err != nil {
		return tokenResponse{}, 0, err
	}
	return tokenResponse{AccessToken: at, TokenType: "Bearer", ExpiresIn: access.Exp - now, RefreshToken: rt,
		RefreshExpiresIn: refresh.Exp - now, Scope: tc.Scope}, refresh.Exp, nil
}

// sessionEnd is when a family's sign-in stops being usable.
func (s *Server) sessionEnd(authTime int64) int64 {
	return authTime + int64(s.cfg.SessionMax/time.Second)
}

// exchangeCode redeems an authorization code for client c (RFC 6749
// §4.1.3 with PKCE, RFC 7636 §4.6, and RFC 8707).
func (s *Server) exchangeCode(c *client, f form) (tokenResponse, error) {
	var cc codeClaims
	if err := s.keys.open(purposeCode, f["code"], &cc); err != nil {
		return tokenResponse{}, invalidGrant("the authorization code is invalid or expired")
	}
	now := s.now().Unix()
	switch {
	case now >= cc.Exp:
		return tokenResponse{}, invalidGrant("the authorization code is invalid or expired")
	case cc.Client != digest(c.ID):
		return tokenResponse{}, invalidGrant("the authorization code was issued to another client")
	case cc.RedirectGiven && digest(f["redirect_uri"]) != cc.Redirect:
		return tokenResponse{}, invalidGrant("redirect_uri does not match the authorization request")
	case !cc.RedirectGiven && f["redirect_uri"] != "" && digest(f["redirect_uri"]) != cc.Redirect:
		return tokenResponse{}, invalidGrant("redirect_uri does not match the authorization request")
	case !pkceMatches(cc.Challenge, f["code_verifier"]):
		return tokenResponse{}, invalidGrant("code_verifier does not match the code_challenge")
	case f["resource"] != "" && f["resource"] != cc.Resource && !s.resourceAlias(f["resource"]):
		return tokenResponse{}, &grantError{status: 400, code: "invalid_target", desc: "the resource is not the one this code was issued for"}
	case now >= s.sessionEnd(cc.Auth):
		return tokenResponse{}, invalidGrant("the sign-in has expired")
	}
	scopes, _ := parseScope(cc.Scope)
	if f["scope"] != "" {
		var err error
		if scopes, err = s.scopes.narrow(f["scope"], scopes); err != nil {
			return tokenResponse{}, &grantError{status: 400, code: "invalid_scope", desc: err.Error()}
		}
	}
	jti, err := s.keys.randomID(9)
	if err != nil {
		return tokenResponse{}, err
	}
	tc := tokenClaims{Family: cc.Family, Gen: 1, JTI: jti, Client: cc.Client, User: cc.User, Password: cc.Password,
		Scope: strings.Join(scopes, " "), Resource: cc.Resource, Auth: cc.Auth}
	resp, refreshExp, err := s.pairFor(tc)
	if err != nil {
		return tokenResponse{}, err
	}
	w, err := s.ledger.begin(cc.Family, jti, refreshExp, s.sessionEnd(cc.Auth))
	switch {
	case errors.Is(err, errReused):
		s.peers.pushNow(w)
		s.log.Warn("authorization code used twice: its sign-in is revoked", "client", clientLabel(c), "doris_user", cc.User)
		return tokenResponse{}, invalidGrant("the authorization code was already used")
	case err != nil:
		return tokenResponse{}, &grantError{status: 503, code: "temporarily_unavailable", desc: err.Error()}
	}
	s.peers.pushNow(w)
	s.log.Info("tokens issued", "grant", "authorization_code", "client", clientLabel(c), "doris_user", cc.User)
	return resp, nil
}

// refresh rotates a refresh token (RFC 6749 §6, OAuth 2.1 §4.3.1): the old
// pair is superseded, a second use of it revokes the family, and Doris is
// asked again whether it still accepts the person's credential.
func (s *Server) refresh(ctx context.Context, c *client, f form) (tokenResponse, error) {
	var tc tokenClaims
	if err := s.keys.open(purposeRefresh, f["refresh_token"], &tc); err != nil {
		return tokenResponse{}, invalidGrant("the refresh token is invalid or expired")
	}
	now := s.now().Unix()
	switch {
	case now >= tc.Exp || now >= s.sessionEnd(tc.Auth):
		return tokenResponse{}, invalidGrant("the refresh token is invalid or expired")
	case tc.Client != digest(c.ID):
		return tokenResponse{}, invalidGrant("the refresh token was issued to another client")
	case tc.Resource != s.resource:
		return tokenResponse{}, &grantError{status: 400, code: "invalid_target", desc: "the refresh token is for another resource"}
	case f["resource"] != "" && f["resource"] != tc.Resource && !s.resourceAlias(f["resource"]):
		return tokenResponse{}, &grantError{status: 400, code: "invalid_target", desc: "the resource is not the one this token was issued for"}
	}
	if err := s.ledger.check(tc.Family, tc.Gen, tc.JTI); err != nil {
		if errors.Is(err, errSuperseded) {
			// A superseded refresh token used again: someone else has it.
			s.peers.pushNow(s.ledger.revoke(tc.Family, s.sessionEnd(tc.Auth)))
			s.log.Warn("refresh token used twice: its sign-in is revoked", "client", clientLabel(c), "doris_user", tc.User)
			return tokenResponse{}, invalidGrant("the refresh token was already used; sign in again")
		}
		return tokenResponse{}, invalidGrant("the refresh token was revoked")
	}
	scopes, _ := parseScope(tc.Scope)
	scopes, err := s.scopes.narrow(f["scope"], scopes)
	if err != nil {
		return tokenResponse{}, &grantError{status: 400, code: "invalid_scope", desc: err.Error()}
	}
	switch s.checks.check(ctx, s, tc.User, tc.Password, true) {
	case credRejected:
		s.peers.pushNow(s.ledger.revoke(tc.Family, s.sessionEnd(tc.Auth)))
		s.log.Info("refresh refused: Doris no longer accepts the credential", "client", clientLabel(c), "doris_user", tc.User)
		return tokenResponse{}, invalidGrant("Doris no longer accepts this sign-in; sign in again")
	case credUnavailable:
		return tokenResponse{}, &grantError{status: 503, code: "temporarily_unavailable", desc: "Doris could not be reached to confirm the sign-in; retry shortly"}
	}
	next, err := s.keys.randomID(9)
	if err != nil {
		return tokenResponse{}, err
	}
	nt := tc
	nt.Gen, nt.JTI, nt.Scope = tc.Gen+1, next, strings.Join(scopes, " ")
	resp, refreshExp, err := s.pairFor(nt)
	if err != nil {
		return tokenResponse{}, err
	}
	w, err := s.ledger.rotate(tc.Family, tc.Gen, tc.JTI, next, refreshExp, s.sessionEnd(tc.Auth))
	switch {
	case errors.Is(err, errReused):
		s.peers.pushNow(w)
		return tokenResponse{}, invalidGrant("the refresh token was already used; sign in again")
	case errors.Is(err, errRevoked):
		return tokenResponse{}, invalidGrant("the refresh token was revoked")
	case err != nil:
		return tokenResponse{}, &grantError{status: 503, code: "temporarily_unavailable", desc: err.Error()}
	}
	s.peers.pushNow(w)
	s.log.Info("tokens refreshed", "client", clientLabel(c), "doris_user", tc.User, "generation", nt.Gen)
	return resp, nil
}

// pkceMatches checks an S256 code_verifier (RFC 7636: 43 to 128
// characters of [A-Za-z0-9-._~]) against the challenge, in constant time.
func pkceMatches(challenge, verifier string) bool {
	if len(verifier) < 43 || len(verifier) > 128 || challenge == "" {
		return false
	}
	for i := 0; i < len(verifier); i++ {
		if !pkceChar(verifier[i]) {
			return false
		}
	}
	sum := sha256.Sum256([]byte(verifier))
	got := base64.RawURLEncoding.EncodeToString(sum[:])
	return subtle.ConstantTimeCompare([]byte(got), []byte(challenge)) == 1
}

func pkceChar(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~'
}

// resourceAlias reports whether r names this server's resource in a form
// the reference accepted: the issuer, with or without a trailing slash.
func (s *Server) resourceAlias(r string) bool {
	return r == s.issuer || r == s.issuer+"/" || r == s.resource
}

// clientLabel names a client in logs without logging a sealed id.
func clientLabel(c *client) string {
	if c.Source == "dcr" {
		return "dcr:" + digest(c.ID)[:8] + ":" + c.Name
	}
	return c.ID
}
