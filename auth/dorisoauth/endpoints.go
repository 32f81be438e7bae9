package dorisoauth

import (
	"encoding/base64"
	"errors"
	"net/http"
	"strings"
	"time"
)

// serveToken answers POST /oauth/token: authorization_code and
// refresh_token grants, for an authenticated client.
func (s *Server) serveToken(w http.ResponseWriter, r *http.Request) {
	now := s.now()
	if !s.limits.allow("token-ip", s.clientIP(r), s.cfg.Limits.TokenPerIP, now) {
		tooMany(w, int(s.cfg.RateWindow/time.Second))
		return
	}
	f, err := readForm(w, r)
	if err != nil {
		writeOAuthError(w, http.StatusBadRequest, "invalid_request", err.Error())
		return
	}
	c, ok := s.tokenClient(w, r, f, "token-client", s.cfg.Limits.TokenPerClient)
	if !ok {
		return
	}
	var resp tokenResponse
	switch f["grant_type"] {
	case "authorization_code":
		if f["code"] == "" || f["code_verifier"] == "" {
			writeOAuthError(w, http.StatusBadRequest, "invalid_request", "code and code_verifier are required")
			return
		}
		resp, err = s.exchangeCode(c, f)
	case "refresh_token":
		if f["refresh_token"] == "" {
			writeOAuthError(w, http.StatusBadRequest, "invalid_request", "refresh_token is required")
			return
		}
		resp, err = s.refresh(r.Context(), c, f)
	case "":
		writeOAuthError(w, http.StatusBadRequest, "invalid_request", "grant_type is required")
		return
	default:
		writeOAuthError(w, http.StatusBadRequest, "unsupported_grant_type", "only authorization_code and refresh_token are supported")
		return
	}
	s.answerGrant(w, resp, err)
}

func (s *Server) answerGrant(w http.ResponseWriter, resp tokenResponse, err error) {
	var ge *grantError
	switch {
	case errors.As(err, &ge):
		writeOAuthError(w, ge.status, ge.code, ge.desc)
	case err != nil:
		s.log.Error("token endpoint failure", "err", err.Error())
		writeOAuthError(w, http.StatusInternalServerError, "server_error", "the server could not issue tokens")
	default:
		writeJSON(w, http.StatusOK, resp)
	}
}

// tokenClient finds and authenticates the client of a token or revoke
// request, answering the refusal itself.
func (s *Server) tokenClient(w http.ResponseWriter, r *http.Request, f form, bucket string, limit int) (*client, bool) {
	id := f["client_id"]
	if id == "" {
		writeOAuthError(w, http.StatusUnauthorized, "invalid_client", "client_id is required")
		return nil, false
	}
	if !s.limits.allow(bucket, digest(id), limit, s.now()) {
		tooMany(w, int(s.cfg.RateWindow/time.Second))
		return nil, false
	}
	c, err := s.resolveClient(r.Context(), id)
	if err != nil || !s.authenticate(c, f) {
		writeOAuthError(w, http.StatusUnauthorized, "invalid_client", "client authentication failed")
		return nil, false
	}
	return c, true
}

// serveRevoke answers POST /oauth/revoke (RFC 7009). Revoking either
// token of a pair revokes its whole family; the peers are told before the
// answer. An unknown or invalid token is answered 200, as the RFC says.
func (s *Server) serveRevoke(w http.ResponseWriter, r *http.Request) {
	if !s.limits.allow("revoke-ip", s.clientIP(r), s.cfg.Limits.RevokePerIP, s.now()) {
		tooMany(w, int(s.cfg.RateWindow/time.Second))
		return
	}
	f, err := readForm(w, r)
	if err != nil {
		writeOAuthError(w, http.StatusBadRequest, "invalid_request", err.Error())
		return
	}
	if f["token"] == "" {
		writeOAuthError(w, http.StatusBadRequest, "invalid_request", "token is required")
		return
	}
	c, ok := s.tokenClient(w, r, f, "revoke-client", s.cfg.Limits.RevokePerClient)
	if !ok {
		return
	}
	var tc tokenClaims
	order := []purpose{purposeAccess, purposeRefresh}
	if f["token_type_hint"] == "refresh_token" {
		order = []purpose{purposeRefresh, purposeAccess}
	}
	found := false
	for _, p := range order {
		if s.keys.open(p, f["token"], &tc) == nil {
			found = true
			break
		}
	}
	if !found || s.now().Unix() >= s.sessionEnd(tc.Auth) {
		w.WriteHeader(http.StatusOK)
		return
	}
	if tc.Client != digest(c.ID) {
		writeOAuthError(w, http.StatusBadRequest, "unauthorized_client", "the token was not issued to this client")
		return
	}
	s.peers.pushNow(s.ledger.revoke(tc.Family, s.sessionEnd(tc.Auth)))
	s.log.Info("tokens revoked", "client", clientLabel(c), "doris_user", tc.User)
	w.WriteHeader(http.StatusOK)
}

// registration is the RFC 7591 request this server reads.
type registration struct {
	RedirectURIs            []string `json:"redirect_uris"`
	ClientName              string   `json:"client_name"`
	GrantTypes              []string `json:"grant_types"`
	ResponseTypes           []string `json:"response_types"`
	TokenEndpointAuthMethod string   `json:"token_endpoint_auth_method"`
	Scope                   string   `json:"scope"`
	ApplicationType         string   `json:"application_type"`
}

// serveRegister answers POST /oauth/register (RFC 7591). The registration
// is sealed into the client_id it returns, so it needs no storage and is
// known to every replica.
func (s *Server) serveRegister(w http.ResponseWriter, r *http.Request) {
	if !s.limits.allow("register-ip", s.clientIP(r), s.cfg.Limits.DCRPerIP, s.now()) {
		tooMany(w, int(s.cfg.RateWindow/time.Second))
		return
	}
	var reg registration
	if err := readJSON(w, r, &reg); err != nil {
		writeOAuthError(w, http.StatusBadRequest, "invalid_client_metadata", err.Error())
		return
	}
	if err := s.checkDynamicRedirects(reg.RedirectURIs); err != nil {
		writeOAuthError(w, http.StatusBadRequest, "invalid_redirect_uri", err.Error())
		return
	}
	grants := reg.GrantTypes
	if grants == nil {
		grants = []string{"authorization_code", "refresh_token"}
	}
	if err := checkGrantTypes(grants); err != nil {
		writeOAuthError(w, http.StatusBadRequest, "invalid_client_metadata", err.Error())
		return
	}
	if reg.ResponseTypes != nil && (len(reg.ResponseTypes) != 1 || reg.ResponseTypes[0] != "code") {
		writeOAuthError(w, http.StatusBadRequest, "invalid_client_metadata", `response_types must be ["code"]`)
		return
	}
	method := reg.TokenEndpointAuthMethod
	if method == "" {
		method = "none"
	}
	if method != "none" && method != "client_secret_post" {
		writeOAuthError(w, http.StatusBadRequest, "invalid_client_metadata", "token_endpoint_auth_method must be none or client_secret_post")
		return
	}
	if len(reg.ClientName) > 200 || !cleanText(reg.ClientName) {
		writeOAuthError(w, http.StatusBadRequest, "invalid_client_metadata", "client_name must be at most 200 printable characters")
		return
	}
	if reg.ApplicationType != "" && reg.ApplicationType != "native" && reg.ApplicationType != "web" {
		writeOAuthError(w, http.StatusBadRequest, "invalid_client_metadata", "application_type must be native or web")
		return
	}
	scope := ""
	if reg.Scope != "" {
		granted, err := s.scopes.grant(reg.Scope, true, nil)
		if err != nil {
			writeOAuthError(w, http.StatusBadRequest, "invalid_client_metadata", "scope names scopes this server does not grant")
			return
		}
		scope = strings.Join(granted, " ")
	}
	now := s.now()
	rc := regClaims{Name: strings.TrimSpace(reg.ClientName), Redirects: reg.RedirectURIs, Auth: method, Scope: scope, Issued: now.Unix()}
	if s.cfg.DCRClientTTL > 0 {
		rc.Exp = now.Add(s.cfg.DCRClientTTL).Unix()
	}
	id, err := s.keys.seal(purposeClient, rc)
	if err != nil {
		writeOAuthError(w, http.StatusBadRequest, "invalid_client_metadata", "the registration is too large")
		return
	}
	out := map[string]any{
		"client_id":                  id,
		"client_id_issued_at":        rc.Issued,
		"redirect_uris":              rc.Redirects,
		"grant_types":                grants,
		"response_types":             []string{"code"},
		"token_endpoint_auth_method": method,
	}
	if rc.Name != "" {
		out["client_name"] = rc.Name
	}
	if scope != "" {
		out["scope"] = scope
	}
	if reg.ApplicationType != "" {
		out["application_type"] = reg.ApplicationType
	}
	if method == "client_secret_post" {
		out["client_secret"] = dcrSecretPrefix + base64.RawURLEncoding.EncodeToString(s.keys.mac(infoClientSecret, id))
		out["client_secret_expires_at"] = rc.Exp
	}
	s.log.Info("client registered", "client", "dcr:"+digest(id)[:8]+":"+rc.Name)
	writeJSON(w, http.StatusCreated, out)
}

// The command-line endpoints of the reference server: a password grant
// for a built-in public client "cli", and its refresh. They share the
// sign-in's checks and limits.
const cliClientID = "cli"

func (s *Server) cliClient() *client {
	return &client{ID: cliClientID, Name: "doris-mcp-server command line", AuthMethod: "none", Source: "builtin"}
}

// serveAPIToken answers POST /api/auth/token {"username","password","scope"}.
func (s *Server) serveAPIToken(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Username string  `json:"username"`
		Password string  `json:"password"`
		Scope    *string `json:"scope"`
	}
	now := s.now()
	if !s.limits.allow("api-token-ip", s.clientIP(r), s.cfg.Limits.APITokenPerIP, now) {
		tooMany(w, int(s.cfg.RateWindow/time.Second))
		return
	}
	if err := readJSON(w, r, &req); err != nil {
		writeOAuthError(w, http.StatusBadRequest, "invalid_request", err.Error())
		return
	}
	if !s.limits.allow("api-token-user", strings.ToLower(req.Username), s.cfg.Limits.APITokenPerUser, now) {
		tooMany(w, int(s.cfg.RateWindow/time.Second))
		return
	}
	if !userRE().MatchString(req.Username) || req.Password == "" || len(req.Password) > maxPasswordBytes {
		writeOAuthError(w, http.StatusBadRequest, "invalid_request", "username and password are required")
		return
	}
	scope, given := "", req.Scope != nil
	if given {
		scope = *req.Scope
	}
	scopes, err := s.scopes.grant(scope, given, nil)
	if err != nil {
		writeOAuthError(w, http.StatusBadRequest, "invalid_scope", err.Error())
		return
	}
	switch s.checks.check(r.Context(), s, req.Username, req.Password, true) {
	case credRejected:
		writeOAuthError(w, http.StatusUnauthorized, "invalid_grant", "Doris did not accept this user name and password")
		return
	case credUnavailable:
		writeOAuthError(w, http.StatusServiceUnavailable, "temporarily_unavailable", "Doris could not be reached; retry shortly")
		return
	}
	family, err1 := s.keys.randomID(16)
	jti, err2 := s.keys.randomID(9)
	if err1 != nil || err2 != nil {
		s.answerGrant(w, tokenResponse{}, errors.Join(err1, err2))
		return
	}
	c := s.cliClient()
	tc := tokenClaims{Family: family, Gen: 1, JTI: jti, Client: digest(c.ID), User: req.Username, Password: req.Password,
		Scope: strings.Join(scopes, " "), Resource: s.resource, Auth: now.Unix()}
	resp, refreshExp, err := s.pairFor(tc)
	if err == nil {
		var we wireEntry
		if we, err = s.ledger.begin(family, jti, refreshExp, s.sessionEnd(tc.Auth)); err == nil {
			s.peers.pushNow(we)
			s.log.Info("tokens issued", "grant", "api_password", "client", cliClientID, "doris_user", req.Username)
		} else {
			err = &grantError{status: 503, code: "temporarily_unavailable", desc: err.Error()}
		}
	}
	s.answerGrant(w, resp, err)
}

// serveAPIRefresh answers POST /api/auth/refresh {"refresh_token","scope",
// "client_id","client_secret"}; without client_id the token is the
// command-line client's.
func (s *Server) serveAPIRefresh(w http.ResponseWriter, r *http.Request) {
	var req struct {
		RefreshToken string `json:"refresh_token"`
		Scope        string `json:"scope"`
		ClientID     string `json:"client_id"`
		ClientSecret string `json:"client_secret"`
	}
	if !s.limits.allow("api-refresh-ip", s.clientIP(r), s.cfg.Limits.APIRefreshPerIP, s.now()) {
		tooMany(w, int(s.cfg.RateWindow/time.Second))
		return
	}
	if err := readJSON(w, r, &req); err != nil {
		writeOAuthError(w, http.StatusBadRequest, "invalid_request", err.Error())
		return
	}
	if req.RefreshToken == "" {
		writeOAuthError(w, http.StatusBadRequest, "invalid_request", "refresh_token is required")
		return
	}
	f := form{"grant_type": "refresh_token", "refresh_token": req.RefreshToken, "scope": req.Scope, "client_id": req.ClientID}
	if req.ClientSecret != "" {
		f["client_secret"] = req.ClientSecret
	}
	c := s.cliClient()
	if req.ClientID != "" && req.ClientID != cliClientID {
		var ok bool
		if c, ok = s.tokenClient(w, r, f, "api-refresh-client", s.cfg.Limits.APIRefreshPerClient); !ok {
			return
		}
	} else if !s.limits.allow("api-refresh-token", digest(req.RefreshToken), s.cfg.Limits.APIRefreshPerClient, s.now()) {
		tooMany(w, int(s.cfg.RateWindow/time.Second))
		return
	}
	resp, err := s.refresh(r.Context(), c, f)
	s.answerGrant(w, resp, err)
}
