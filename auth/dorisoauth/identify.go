package dorisoauth

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/doris-mcp/doris-mcp-server/auth"
)

// Reason codes a Host sees in the description of a 401.
const (
	ReasonMissing    = "DORIS_OAUTH_TOKEN_MISSING"
	ReasonInvalid    = "DORIS_OAUTH_TOKEN_INVALID"
	ReasonExpired    = "DORIS_OAUTH_TOKEN_EXPIRED"
	ReasonRevoked    = "DORIS_OAUTH_TOKEN_REVOKED"
	ReasonAudience   = "DORIS_OAUTH_TOKEN_WRONG_RESOURCE"
	ReasonReauth     = "DORIS_OAUTH_REAUTHENTICATION_REQUIRED"
	ReasonMalformed  = "DORIS_OAUTH_AUTHORIZATION_MALFORMED"
	maxBearerLen     = 8192
	credCheckTimeout = 10 * time.Second
)

// IsAccessToken reports whether a bearer value is this mode's access
// token (by its prefix), so that a chain of verifiers can route it here.
func IsAccessToken(token string) bool { return strings.HasPrefix(token, purposeAccess.prefix) }

// Identify authenticates an MCP request by its bearer access token (for
// mcp.HTTPOptions.Identify). A refusal is an *auth.Error with the RFC 6750
// status and a WWW-Authenticate challenge that points the Host at the
// protected-resource metadata, so it can sign the person in again.
func (s *Server) Identify(r *http.Request) (auth.Identity, error) {
	tok, err := s.bearer(r)
	if err != nil {
		return auth.Identity{}, err
	}
	return s.Verify(r.Context(), tok)
}

// bearer extracts the token of "Authorization: Bearer <token>".
func (s *Server) bearer(r *http.Request) (string, error) {
	vals := r.Header.Values("Authorization")
	if len(vals) == 0 {
		return "", s.refusal(401, "", ReasonMissing, "a bearer token is required; sign in through the authorization server")
	}
	if len(vals) > 1 {
		return "", s.refusal(400, "invalid_request", ReasonMalformed, "the Authorization header must appear once")
	}
	tok, err := parseBearer(vals[0])
	if errors.Is(err, errNotBearer) {
		return "", s.refusal(401, "", ReasonMissing, "a bearer token is required; sign in through the authorization server")
	}
	if err != nil {
		return "", s.refusal(400, "invalid_request", ReasonMalformed, "the Authorization header is malformed")
	}
	return tok, nil
}

var errNotBearer = errors.New("not a bearer credential")

// parseBearer parses an Authorization value of the Bearer scheme (RFC
// 6750 §2.1): the scheme (any case), spaces, a token68.
func parseBearer(v string) (string, error) {
	scheme, rest, ok := strings.Cut(v, " ")
	if !strings.EqualFold(scheme, "Bearer") {
		return "", errNotBearer
	}
	tok := strings.TrimLeft(rest, " ")
	if !ok || tok == "" || len(tok) > maxBearerLen {
		return "", errors.New("malformed bearer token")
	}
	end := len(tok)
	for end > 0 && tok[end-1] == '=' {
		end--
	}
	if end == 0 {
		return "", errors.New("malformed bearer token")
	}
	for i := 0; i < end; i++ {
		c := tok[i]
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || strings.IndexByte("-._~+/", c) >= 0) {
			return "", errors.New("malformed bearer token")
		}
	}
	return tok, nil
}

// Verify turns an access token into the identity of the person who signed
// in: their Doris account (sealed in the token), route and scopes.
func (s *Server) Verify(ctx context.Context, token string) (auth.Identity, error) {
	var tc tokenClaims
	if err := s.keys.open(purposeAccess, token, &tc); err != nil {
		return auth.Identity{}, s.refusal(401, "invalid_token", ReasonInvalid, "the access token is not valid here")
	}
	now := s.now().Unix()
	switch {
	case now >= tc.Exp || now >= s.sessionEnd(tc.Auth):
		return auth.Identity{}, s.refusal(401, "invalid_token", ReasonExpired, "the access token has expired")
	case tc.Resource != s.resource:
		return auth.Identity{}, s.refusal(401, "invalid_token", ReasonAudience, "the access token was issued for another resource")
	}
	if err := s.ledger.check(tc.Family, tc.Gen, tc.JTI); err != nil {
		return auth.Identity{}, s.refusal(401, "invalid_token", ReasonRevoked, "the access token was revoked or replaced")
	}
	if s.checks.check(ctx, s, tc.User, tc.Password, false) == credRejected {
		s.peers.push(s.ledger.revoke(tc.Family, s.sessionEnd(tc.Auth)))
		s.log.Info("access refused: Doris no longer accepts the credential", "doris_user", tc.User)
		return auth.Identity{}, s.refusal(401, "invalid_token", ReasonReauth,
			"Doris no longer accepts the sign-in behind this token; sign in again")
	}
	scopes, _ := parseScope(tc.Scope)
	grants, ops := s.scopes.identity(scopes)
	return auth.Identity{
		Method:     "doris_oauth",
		Subject:    tc.User,
		Route:      "doris-oauth:" + tc.User,
		Credential: &auth.Credential{User: tc.User, Password: tc.Password, Database: s.cfg.SessionDatabase},
		Grants:     grants,
		Scopes:     ops,
	}, nil
}

// CredentialRefused records that Doris refused id's credential while
// serving a call (its pool failed with an authentication error, before
// the credential-check interval came round), and returns the refusal to
// answer that call with: 401 with the re-authentication reason and a
// challenge, so the Host signs the person in again. Until the interval
// passes, this replica refuses tokens carrying that credential at once.
// It returns nil for an identity that is not a Doris OAuth person.
func (s *Server) CredentialRefused(id auth.Identity) *auth.Error {
	if id.Method != "doris_oauth" || id.Credential == nil {
		return nil
	}
	s.checks.mark(s, id.Credential.User, id.Credential.Password, credRejected)
	s.log.Info("access refused: Doris refused the credential on a call", "doris_user", id.Credential.User)
	return s.refusal(401, "invalid_token", ReasonReauth, "Doris no longer accepts the sign-in behind this token; sign in again")
}

// refusal builds the *auth.Error of a refused request: the description
// starts with the reason code, and the challenge carries the RFC 6750
// error, the protected-resource metadata URL (RFC 9728) and the scopes a
// new sign-in should ask for.
func (s *Server) refusal(status int, code, reason, desc string) *auth.Error {
	parts := make([]string, 0, 4)
	if code != "" {
		parts = append(parts, `error="`+code+`"`, `error_description="`+reason+`: `+desc+`"`)
	}
	parts = append(parts, `resource_metadata="`+s.issuer+`/.well-known/oauth-protected-resource/mcp"`,
		`scope="`+strings.Join(s.scopes.defaults, " ")+`"`)
	return &auth.Error{Status: status, Code: code, Description: reason + ": " + desc, Challenge: "Bearer " + strings.Join(parts, ", ")}
}

// credResult is what Doris said about a credential.
type credResult int

const (
	credAccepted credResult = iota
	credRejected
	credUnavailable
)

// credChecks remembers, per replica, which credentials Doris accepted or
// refused recently, keyed by a MAC under a per-launch key (never the
// password itself), and shares one check among concurrent requests.
type credChecks struct {
	secret []byte

	mu       sync.Mutex // protects seen, inflight
	seen     map[string]credSeen
	inflight map[string]*credCall
}

type credSeen struct {
	result credResult
	until  time.Time
}

type credCall struct {
	done   chan struct{}
	result credResult
}

// unavailableFor is how long "Doris could not be asked" is remembered, so
// that requests during an outage do not each open a connection.
const unavailableFor = 5 * time.Second

func newCredChecks(k *keyring) (*credChecks, error) {
	key := make([]byte, 32)
	if _, err := io.ReadFull(k.rand, key); err != nil {
		return nil, err
	}
	return &credChecks{secret: key, seen: map[string]credSeen{}, inflight: map[string]*credCall{}}, nil
}

// check asks Doris (through CheckLogin) whether it accepts user and
// password, unless it answered within the credential-check interval;
// force always asks.
func (cc *credChecks) check(ctx context.Context, s *Server, user, password string, force bool) credResult {
	k := cc.key(user, password)
	now := s.now()
	cc.mu.Lock()
	if seen, ok := cc.seen[k]; ok && now.Before(seen.until) && (!force || seen.result == credUnavailable) {
		cc.mu.Unlock()
		return seen.result
	}
	call, ok := cc.inflight[k]
	if !ok {
		call = &credCall{done: make(chan struct{})}
		cc.inflight[k] = call
		go func() {
			cctx, cancel := context.WithTimeout(context.Background(), credCheckTimeout)
			defer cancel()
			err := s.opt.CheckLogin(cctx, user, password)
			res, ttl := credAccepted, s.cfg.CredentialCheck
			switch {
			case errors.Is(err, ErrLoginRejected):
				res = credRejected
			case err != nil:
				res, ttl = credUnavailable, unavailableFor
				// The error may quote Doris: it stays out of the log.
				s.log.Warn("could not ask Doris to confirm a sign-in", "doris_user", user)
			}
			cc.mu.Lock()
			delete(cc.inflight, k)
			if len(cc.seen) >= 100_000 {
				clear(cc.seen)
			}
			cc.seen[k] = credSeen{result: res, until: s.now().Add(ttl)}
			cc.mu.Unlock()
			call.result = res
			close(call.done)
		}()
	}
	cc.mu.Unlock()
	select {
	case <-call.done:
		return call.result
	case <-ctx.Done():
		return credUnavailable
	}
}

// mark records a result for a credential without asking Doris.
func (cc *credChecks) mark(s *Server, user, password string, res credResult) {
	k := cc.key(user, password)
	cc.mu.Lock()
	defer cc.mu.Unlock()
	cc.seen[k] = credSeen{result: res, until: s.now().Add(max(s.cfg.CredentialCheck, unavailableFor))}
}

func (cc *credChecks) key(user, password string) string {
	m := hmac.New(sha256.New, cc.secret)
	m.Write([]byte(user))
	m.Write([]byte{0})
	m.Write([]byte(password))
	return hex.EncodeToString(m.Sum(nil))
}

func (cc *credChecks) sweep(now time.Time) {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	for k, v := range cc.seen {
		if !now.Before(v.until) {
			delete(cc.seen, k)
		}
	}
}
