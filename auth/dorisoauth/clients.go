package dorisoauth

import (
	"context"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/doris-mcp/doris-mcp-server/doris/schema"
)

// A client is an OAuth client as this server knows it, from one of three
// sources, none of which needs shared state:
//   - "preconfigured": DORIS_OAUTH_CLIENTS_FILE, the same file on every
//     replica; secrets held only as digests;
//   - "dcr": dynamically registered (RFC 7591); the registration is sealed
//     into the client_id itself ("dcr_..."), and a confidential client's
//     secret is a MAC of its id, so every replica recognises both;
//   - "cimd": the client_id is an https URL of its metadata document,
//     fetched and cached per replica (cimd.go).
type client struct {
	ID           string
	Name         string
	RedirectURIs []string
	AuthMethod   string   // "none" or "client_secret_post"
	Scopes       []string // the scopes it may be granted; nil: any allowed
	Source       string
	Expires      int64 // unix seconds; 0: never

	secretAlg    string // preconfigured: "sha256" or "sha512"
	secretDigest []byte
}

// regClaims is a dynamic registration, sealed into its client_id.
type regClaims struct {
	Name      string   `json:"n,omitempty"`
	Redirects []string `json:"r"`
	Auth      string   `json:"a"`
	Scope     string   `json:"s,omitempty"`
	Issued    int64    `json:"i"`
	Exp       int64    `json:"e,omitempty"`
}

var errUnknownClient = errors.New("unknown or expired client")

const maxClientIDBytes = 4096

// resolveClient finds the client named id.
func (s *Server) resolveClient(ctx context.Context, id string) (*client, error) {
	if id == "" || len(id) > maxClientIDBytes {
		return nil, errUnknownClient
	}
	switch {
	case strings.HasPrefix(id, purposeClient.prefix):
		var rc regClaims
		if err := s.keys.open(purposeClient, id, &rc); err != nil {
			return nil, errUnknownClient
		}
		if rc.Exp != 0 && s.now().Unix() >= rc.Exp {
			return nil, errUnknownClient
		}
		c := &client{ID: id, Name: rc.Name, RedirectURIs: rc.Redirects, AuthMethod: rc.Auth, Source: "dcr", Expires: rc.Exp}
		if rc.Scope != "" {
			c.Scopes, _ = parseScope(rc.Scope)
		}
		return c, nil
	case strings.HasPrefix(id, "https://"):
		return s.cimd.resolve(ctx, id)
	}
	if c, ok := s.clients[id]; ok {
		return c, nil
	}
	return nil, errUnknownClient
}

// authenticate checks the client's credentials in a token, revoke or
// refresh request: none for a public client (which must not send a
// secret either), client_secret for a confidential one.
func (s *Server) authenticate(c *client, f form) bool {
	secret, sent := f["client_secret"]
	switch c.AuthMethod {
	case "none":
		return !sent
	case "client_secret_post":
		if !sent || secret == "" {
			return false
		}
		switch c.Source {
		case "dcr":
			got, ok := strings.CutPrefix(secret, dcrSecretPrefix)
			if !ok {
				return false
			}
			sum, err := base64.RawURLEncoding.Strict().DecodeString(got)
			return err == nil && s.keys.verifyMAC(infoClientSecret, sum, c.ID)
		case "preconfigured":
			var sum []byte
			if c.secretAlg == "sha512" {
				h := sha512.Sum512([]byte(secret))
				sum = h[:]
			} else {
				h := sha256.Sum256([]byte(secret))
				sum = h[:]
			}
			return subtle.ConstantTimeCompare(sum, c.secretDigest) == 1
		}
	}
	return false
}

const dcrSecretPrefix = "dos_"

// clientsFile is the DORIS_OAUTH_CLIENTS_FILE format.
type clientsFile struct {
	Clients []struct {
		ClientID                string   `json:"client_id"`
		ClientName              string   `json:"client_name"`
		RedirectURIs            []string `json:"redirect_uris"`
		TokenEndpointAuthMethod string   `json:"token_endpoint_auth_method"`
		ClientSecretDigest      string   `json:"client_secret_digest"`
		Scope                   string   `json:"scope"`
	} `json:"clients"`
}

// loadClients reads and validates the clients file ("" means none).
func loadClients(path string, scopes *scopePolicy) (map[string]*client, error) {
	out := map[string]*client{}
	if path == "" {
		return out, nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, &FieldError{Field: "DORIS_OAUTH_CLIENTS_FILE", Err: err}
	}
	// The strict decoder (doris/schema): a repeated or case-variant key
	// (a second client_secret_digest, a Redirect_URIs) is an error, not a
	// value encoding/json would quietly pick.
	var cf clientsFile
	if err := schema.Decode(b, &cf, schema.Strict{MaxDepth: 16, Known: true}); err != nil {
		var se *schema.Error
		if errors.As(err, &se) && se.InName {
			err = fmt.Errorf("%s %q", se.Msg, clip(se.Name, 64))
		}
		return nil, &FieldError{Field: "DORIS_OAUTH_CLIENTS_FILE", Err: fmt.Errorf("not a clients document: %w", err)}
	}
	var errs []error
	fail := func(i int, format string, args ...any) {
		errs = append(errs, &FieldError{Field: "DORIS_OAUTH_CLIENTS_FILE", Err: fmt.Errorf("client %d: "+format, append([]any{i}, args...)...)})
	}
	for i, fc := range cf.Clients {
		c := &client{ID: fc.ClientID, Name: fc.ClientName, RedirectURIs: fc.RedirectURIs, AuthMethod: fc.TokenEndpointAuthMethod, Source: "preconfigured"}
		switch {
		case c.ID == "" || len(c.ID) > 200 || !cleanText(c.ID) || strings.ContainsAny(c.ID, " \t"):
			fail(i, "client_id must be 1 to 200 printable characters without spaces")
		case strings.HasPrefix(c.ID, purposeClient.prefix) || strings.Contains(c.ID, "://"):
			fail(i, "client_id %q looks like a registered or metadata-document client", c.ID)
		case out[c.ID] != nil:
			fail(i, "client_id %q is repeated", c.ID)
		}
		if len(c.Name) > 200 || !cleanText(c.Name) {
			fail(i, "client_name must be at most 200 printable characters")
		}
		if len(c.RedirectURIs) == 0 || len(c.RedirectURIs) > 32 {
			fail(i, "needs 1 to 32 redirect_uris")
		}
		for _, u := range c.RedirectURIs {
			if err := checkRedirectURI(u); err != nil {
				fail(i, "redirect URI %q: %v", u, err)
			}
		}
		switch c.AuthMethod {
		case "", "none":
			c.AuthMethod = "none"
			if fc.ClientSecretDigest != "" {
				fail(i, "a public client (token_endpoint_auth_method none) has no client_secret_digest")
			}
		case "client_secret_post":
			alg, hexSum, _ := strings.Cut(fc.ClientSecretDigest, ":")
			sum, err := hex.DecodeString(hexSum)
			if err != nil || !(alg == "sha256" && len(sum) == 32 || alg == "sha512" && len(sum) == 64) {
				fail(i, "client_secret_digest must be sha256:<64 hex> or sha512:<128 hex>")
			}
			c.secretAlg, c.secretDigest = alg, sum
		default:
			fail(i, "token_endpoint_auth_method %q is not none or client_secret_post", c.AuthMethod)
		}
		if fc.Scope != "" {
			if _, err := scopes.grant(fc.Scope, true, nil); err != nil {
				fail(i, "scope %q: %v (only the scopes this server may grant)", fc.Scope, err)
			}
			c.Scopes, _ = parseScope(fc.Scope)
		}
		out[c.ID] = c
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return out, nil
}

// clip shortens a name from the clients file for an error message.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
