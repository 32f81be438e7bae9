package auth

import (
	"context"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// StaticToken is one configured bearer token. The server knows it only by
// its digest: a tokens file never holds a token in clear.
type StaticToken struct {
	ID          string
	Algorithm   string // "sha256" or "sha512"
	Sum         []byte // the digest of the token
	Description string
	ExpiresAt   time.Time // zero: never expires
	Disabled    bool      // revoked: refused with invalid_token
	Permissions Permissions
	// Doris, when set, is the token's own Doris account: its requests run
	// on a pool of that account and never on the global one.
	Doris *DorisRoute
}

// DorisRoute is the Doris account bound to a token.
type DorisRoute struct {
	User         string   `json:"user"`
	PasswordEnv  string   `json:"password_env,omitempty"`  // the variable holding the password
	PasswordFile string   `json:"password_file,omitempty"` // or a file holding it (trailing newline trimmed)
	Hosts        []string `json:"hosts,omitempty"`         // FE query addresses host:port; empty: the global DORIS_HOST(S)
	Database     string   `json:"database,omitempty"`      // empty: DORIS_DATABASE
	// Password is resolved from PasswordEnv or PasswordFile at load time.
	Password string `json:"-"`
}

// Reserved token IDs prefixes: a Doris-OAuth access token starts with
// "doa_" and a static token may never look like one.
const dorisOAuthTokenPrefix = "doa_"

// tokenFile is the tokens file (TOKEN_FILE_PATH), version 2.
type tokenFile struct {
	Version int         `json:"version"`
	Tokens  []fileToken `json:"tokens"`
	// Comment is free text for the operator.
	Comment any `json:"comment,omitempty"`
}

type fileToken struct {
	ID          string          `json:"id"`
	Digest      string          `json:"digest"`
	Description string          `json:"description,omitempty"`
	ExpiresAt   string          `json:"expires_at,omitempty"`
	Disabled    bool            `json:"disabled,omitempty"`
	Permissions *[]string       `json:"permissions,omitempty"`
	Doris       *fileRoute      `json:"doris,omitempty"`
	Token       *string         `json:"token,omitempty"`           // refused: plaintext
	Legacy      json.RawMessage `json:"database_config,omitempty"` // refused: the version-1 form
}

type fileRoute struct {
	DorisRoute
	Password *string `json:"password,omitempty"` // refused: plaintext
}

// Bounds of a tokens file.
const (
	maxTokenFileBytes = 1 << 20
	maxTokens         = 10000
)

// ParseTokenFile parses a version-2 tokens file: {"version": 2, "tokens":
// [{"id", "digest": "sha256:<hex>"|"sha512:<hex>", "description",
// "expires_at" (RFC 3339), "disabled", "permissions": [...], "doris":
// {"user", "password_env"|"password_file", "hosts", "database"}}]}. It
// refuses unknown and duplicate members, plaintext tokens and passwords,
// duplicate IDs and digests. It reads no environment and no file: Doris
// passwords are resolved separately.
func ParseTokenFile(b []byte) ([]StaticToken, error) {
	if len(b) > maxTokenFileBytes {
		return nil, fmt.Errorf("the tokens file is larger than %d bytes", maxTokenFileBytes)
	}
	var f tokenFile
	if err := decodeStrict(b, &f, true); err != nil {
		return nil, fmt.Errorf("the tokens file is not valid JSON of version 2: %w", err)
	}
	if f.Version != 2 {
		return nil, fmt.Errorf("the tokens file has version %d; only version 2 (digests only) is read", f.Version)
	}
	if len(f.Tokens) > maxTokens {
		return nil, fmt.Errorf("the tokens file lists %d tokens; at most %d are allowed", len(f.Tokens), maxTokens)
	}
	var errs []error
	out := make([]StaticToken, 0, len(f.Tokens))
	for i, ft := range f.Tokens {
		st, err := ft.token()
		if err != nil {
			errs = append(errs, fmt.Errorf("tokens[%d]: %w", i, err))
			continue
		}
		out = append(out, st)
	}
	if err := checkUnique(out); err != nil {
		errs = append(errs, err)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return out, nil
}

func (ft fileToken) token() (StaticToken, error) {
	if ft.Token != nil {
		return StaticToken{}, errors.New(`holds a plaintext "token"; store only its digest as "digest": "sha256:<hex>"`)
	}
	if ft.Legacy != nil {
		return StaticToken{}, errors.New(`"database_config" is the version-1 form; use "doris" with "password_env" or "password_file"`)
	}
	if !isTokenID(ft.ID) {
		return StaticToken{}, fmt.Errorf("id %q is not 1-64 letters, digits, '_', '-' or '.'", truncateString(ft.ID, 80))
	}
	alg, sum, err := parseDigest(ft.Digest)
	if err != nil {
		return StaticToken{}, fmt.Errorf("%s: %w", ft.ID, err)
	}
	st := StaticToken{ID: ft.ID, Algorithm: alg, Sum: sum, Description: ft.Description, Disabled: ft.Disabled}
	if ft.ExpiresAt != "" {
		t, err := time.Parse(time.RFC3339, ft.ExpiresAt)
		if err != nil {
			return StaticToken{}, fmt.Errorf("%s: expires_at %q is not an RFC 3339 time", ft.ID, truncateString(ft.ExpiresAt, 40))
		}
		st.ExpiresAt = t
	}
	if ft.Permissions != nil {
		if len(*ft.Permissions) == 0 {
			return StaticToken{}, fmt.Errorf("%s: permissions is empty; omit it for an unrestricted token", ft.ID)
		}
		p, err := ParsePermissions(*ft.Permissions)
		if err != nil {
			return StaticToken{}, fmt.Errorf("%s: %w", ft.ID, err)
		}
		st.Permissions = p
	}
	if ft.Doris != nil {
		if ft.Doris.Password != nil {
			return StaticToken{}, fmt.Errorf(`%s: doris.password holds a password in clear; use "password_env" or "password_file"`, ft.ID)
		}
		r := ft.Doris.DorisRoute
		if err := r.check(); err != nil {
			return StaticToken{}, fmt.Errorf("%s: doris: %w", ft.ID, err)
		}
		if (r.PasswordEnv == "") == (r.PasswordFile == "") {
			return StaticToken{}, fmt.Errorf(`%s: doris needs exactly one of "password_env" and "password_file"`, ft.ID)
		}
		st.Doris = &r
	}
	return st, nil
}

// check validates a route's user, hosts and database.
func (r *DorisRoute) check() error {
	if r.User == "" || len(r.User) > 128 || strings.ContainsAny(r.User, "\x00\n\r") {
		return errors.New("user must be 1-128 characters")
	}
	if len(r.Hosts) > 16 {
		return errors.New("at most 16 hosts")
	}
	for _, h := range r.Hosts {
		host, port, err := net.SplitHostPort(h)
		n, perr := strconv.Atoi(port)
		if err != nil || host == "" || perr != nil || n < 1 || n > 65535 {
			return fmt.Errorf("host %q is not host:port", truncateString(h, 80))
		}
	}
	if len(r.Database) > 64 || strings.ContainsAny(r.Database, "\x00`\n\r") {
		return errors.New("database must be at most 64 characters without backticks")
	}
	return nil
}

// resolvePassword reads the route's password from its variable or file.
func (r *DorisRoute) resolvePassword(getenv func(string) (string, bool)) error {
	switch {
	case r.PasswordEnv != "":
		v, ok := getenv(r.PasswordEnv)
		if !ok {
			return fmt.Errorf("password_env names %s, which is not set", r.PasswordEnv)
		}
		r.Password = v
	case r.PasswordFile != "":
		b, err := os.ReadFile(r.PasswordFile)
		if err != nil {
			return fmt.Errorf("password_file: %w", err)
		}
		r.Password = strings.TrimRight(string(b), "\r\n")
	}
	return nil
}

func isTokenID(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

// parseDigest parses "sha256:<64 hex>" or "sha512:<128 hex>".
func parseDigest(s string) (string, []byte, error) {
	alg, h, ok := strings.Cut(s, ":")
	want := map[string]int{"sha256": sha256.Size, "sha512": sha512.Size}[alg]
	if !ok || want == 0 {
		return "", nil, errors.New(`digest must be "sha256:<hex>" or "sha512:<hex>"`)
	}
	sum, err := hex.DecodeString(h)
	if err != nil || len(sum) != want {
		return "", nil, fmt.Errorf("digest is not %d hex digits of %s", 2*want, alg)
	}
	return alg, sum, nil
}

// Digest returns the self-describing digest of a token ("sha256:<hex>"),
// the form a tokens file stores.
func Digest(alg, token string) (string, error) {
	switch alg {
	case "sha256":
		s := sha256.Sum256([]byte(token))
		return "sha256:" + hex.EncodeToString(s[:]), nil
	case "sha512":
		s := sha512.Sum512([]byte(token))
		return "sha512:" + hex.EncodeToString(s[:]), nil
	}
	return "", fmt.Errorf("unknown digest algorithm %q", alg)
}

func checkUnique(tokens []StaticToken) error {
	ids := map[string]bool{}
	sums := map[string]bool{}
	var errs []error
	for _, t := range tokens {
		if ids[strings.ToLower(t.ID)] {
			errs = append(errs, fmt.Errorf("token id %q appears twice", t.ID))
		}
		ids[strings.ToLower(t.ID)] = true
		k := t.Algorithm + ":" + string(t.Sum)
		if sums[k] {
			errs = append(errs, fmt.Errorf("token %q has the same digest as another token", t.ID))
		}
		sums[k] = true
	}
	return errors.Join(errs...)
}

// active reports whether t may authenticate at now.
func (t *StaticToken) active(now time.Time) bool {
	return !t.Disabled && (t.ExpiresAt.IsZero() || now.Before(t.ExpiresAt))
}

// identity is the Identity a request authenticated by t gets.
func (t *StaticToken) identity() Identity {
	id := Identity{Method: "token", Subject: t.ID, Route: "global", Scopes: t.Permissions.Scopes, Grants: t.Permissions.Grants}
	if r := t.Doris; r != nil {
		id.Route = "token:" + t.ID
		id.Credential = &Credential{User: r.User, Password: r.Password, Addrs: r.Hosts, Database: r.Database}
	}
	return id
}

// tokenStore authenticates static bearer tokens: those from TOKEN_<ID>
// variables (fixed for the process) and those of the tokens file, which is
// re-read when it changes (checked at most once per reload interval), so
// an edit revokes or adds tokens without a restart.
type tokenStore struct {
	env      []StaticToken
	path     string // "" when no tokens file is used
	reload   time.Duration
	getenv   func(string) (string, bool)
	now      func() time.Time
	log      *slog.Logger
	mu       sync.Mutex // protects file, stamp, checked
	file     []StaticToken
	stamp    fileStamp
	checked  time.Time
	fileErrs int // consecutive reload failures, for the log
}

type fileStamp struct {
	mod  time.Time
	size int64
}

// loadTokenFile reads, parses and resolves the tokens file at path.
func loadTokenFile(path string, getenv func(string) (string, bool)) ([]StaticToken, fileStamp, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fileStamp{}, err
	}
	if fi.Mode().Perm()&0o022 != 0 {
		return nil, fileStamp{}, fmt.Errorf("%s is writable by group or others (mode %v); anyone who can write it can add a token", path, fi.Mode().Perm())
	}
	if fi.Size() > maxTokenFileBytes {
		return nil, fileStamp{}, fmt.Errorf("%s is larger than %d bytes", path, maxTokenFileBytes)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fileStamp{}, err
	}
	tokens, err := ParseTokenFile(b)
	if err != nil {
		return nil, fileStamp{}, err
	}
	var errs []error
	for i := range tokens {
		if r := tokens[i].Doris; r != nil {
			if err := r.resolvePassword(getenv); err != nil {
				errs = append(errs, fmt.Errorf("%s: doris: %w", tokens[i].ID, err))
			}
		}
	}
	return tokens, fileStamp{fi.ModTime(), fi.Size()}, errors.Join(errs...)
}

// authenticate returns the identity of a static token, errNotRecognized
// when no configured token has its digest, or an *Error for a revoked or
// expired one. Every configured digest is compared in constant time,
// without stopping at a match.
func (s *tokenStore) authenticate(_ context.Context, token string) (Identity, error) {
	if strings.HasPrefix(token, dorisOAuthTokenPrefix) {
		return Identity{}, errNotRecognized
	}
	now := s.now()
	file := s.current(now)
	sum256 := sha256.Sum256([]byte(token))
	var sum512 [sha512.Size]byte
	var match *StaticToken
	for _, set := range [][]StaticToken{s.env, file} {
		for i := range set {
			t := &set[i]
			var got []byte
			switch t.Algorithm {
			case "sha256":
				got = sum256[:]
			default:
				if sum512 == ([sha512.Size]byte{}) {
					sum512 = sha512.Sum512([]byte(token))
				}
				got = sum512[:]
			}
			if subtle.ConstantTimeCompare(got, t.Sum) == 1 {
				match = t
			}
		}
	}
	switch {
	case match == nil:
		return Identity{}, errNotRecognized
	case match.Disabled:
		return Identity{}, invalidToken("the token has been revoked")
	case !match.active(now):
		return Identity{}, invalidToken("the token has expired")
	}
	return match.identity(), nil
}

// current returns the tokens of the file, re-reading it when it changed
// and the reload interval has passed. A file that became invalid keeps the
// previous tokens (an edit in progress must not lock everyone out) and is
// logged; a file that was removed revokes all of its tokens.
func (s *tokenStore) current(now time.Time) []StaticToken {
	if s.path == "" {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.reload <= 0 || now.Sub(s.checked) < s.reload {
		return s.file
	}
	s.checked = now
	fi, err := os.Stat(s.path)
	if errors.Is(err, os.ErrNotExist) {
		if s.file != nil {
			s.log.Warn("the tokens file was removed: its tokens are revoked", "path", s.path)
		}
		s.file, s.stamp = nil, fileStamp{}
		return nil
	}
	if err == nil && (fileStamp{fi.ModTime(), fi.Size()}) == s.stamp {
		return s.file
	}
	tokens, stamp, err := loadTokenFile(s.path, s.getenv)
	if err != nil {
		s.fileErrs++
		s.log.Error("the tokens file could not be reloaded; keeping the previous tokens", "path", s.path, "err", err, "failures", s.fileErrs)
		return s.file
	}
	s.fileErrs = 0
	s.file, s.stamp = tokens, stamp
	s.log.Info("tokens file reloaded", "path", s.path, "tokens", len(tokens))
	return s.file
}
