package bridge

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// OAuth is the bridge's credential when the remote is an OAuth 2.1
// protected resource (Doris OAuth, or an external authorization server):
// the authorization code flow with PKCE S256, as the MCP authorization
// specification describes. It finds the authorization server from the
// remote's protected resource metadata (RFC 9728) and that server's
// metadata (RFC 8414), registers itself dynamically (RFC 7591) unless
// given a client id, listens for the redirect on a loopback port, prints
// the sign-in URL (and opens it in the person's browser when it can), and
// keeps the tokens in a 0600 file under Store, refreshing the access token
// before it expires. When a refresh fails it asks the person to sign in
// again.
type OAuth struct {
	// Resource is the canonical URL of the MCP endpoint (RFC 8707).
	Resource string
	HTTP     *http.Client
	// Store is the directory of the token files (created 0700); each file
	// is 0600 and named after the resource.
	Store string
	// ClientID is a preregistered public client; "" registers one.
	ClientID   string
	ClientName string
	// Scope to request; "" uses the challenge's, else the metadata's
	// scopes_supported.
	Scope string
	// CallbackPort is the loopback port of the redirect (0: any free one,
	// the registered one when a registration is reused).
	CallbackPort int
	// Prompt receives the sign-in instructions (stderr).
	Prompt io.Writer
	// Open opens a URL in the person's browser; nil only prints it.
	Open func(string) error
	Log  *slog.Logger
	// SignInTimeout bounds the wait for the person (default 5 minutes).
	SignInTimeout time.Duration
	// Now is the clock (time.Now by default).
	Now func() time.Time

	mu      sync.Mutex
	loaded  bool
	saved   savedTokens
	signing *signIn // the sign-in in progress, shared by every request
	hint    challenge
}

// ExpiryMargin is how close to its expiry an access token is refreshed
// before it is used.
const ExpiryMargin = 60 * time.Second

// savedTokens is the token file.
type savedTokens struct {
	Resource      string    `json:"resource"`
	Issuer        string    `json:"issuer,omitempty"`
	TokenEndpoint string    `json:"token_endpoint,omitempty"`
	ClientID      string    `json:"client_id,omitempty"`
	ClientSecret  string    `json:"client_secret,omitempty"`
	RedirectURI   string    `json:"redirect_uri,omitempty"`
	AccessToken   string    `json:"access_token,omitempty"`
	RefreshToken  string    `json:"refresh_token,omitempty"`
	ExpiresAt     time.Time `json:"expires_at,omitzero"`
	Scope         string    `json:"scope,omitempty"`
}

type signIn struct {
	done chan struct{}
	err  error
}

type challenge struct {
	resourceMetadata, scope string
}

func (o *OAuth) now() time.Time {
	if o.Now != nil {
		return o.Now()
	}
	return time.Now()
}

func (o *OAuth) prompt() io.Writer {
	if o.Prompt == nil {
		return io.Discard
	}
	return o.Prompt
}

func (o *OAuth) log() *slog.Logger {
	if o.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return o.Log
}

// Path is the token file of the resource.
func (o *OAuth) Path() string {
	sum := sha256.Sum256([]byte(o.Resource))
	return filepath.Join(o.Store, "tokens-"+hex.EncodeToString(sum[:8])+".json")
}

// Token returns a usable access token: the stored one, a refreshed one,
// or one from a new sign-in.
func (o *OAuth) Token(ctx context.Context) (string, error) {
	for {
		o.mu.Lock()
		o.load()
		if o.saved.AccessToken != "" && (o.saved.ExpiresAt.IsZero() || o.now().Add(ExpiryMargin).Before(o.saved.ExpiresAt)) {
			tok := o.saved.AccessToken
			o.mu.Unlock()
			return tok, nil
		}
		if o.signing == nil {
			s := &signIn{done: make(chan struct{})}
			o.signing = s
			o.mu.Unlock()
			go o.renew(s)
		} else {
			o.mu.Unlock()
		}
		o.mu.Lock()
		s := o.signing
		o.mu.Unlock()
		if s == nil {
			continue
		}
		select {
		case <-s.done:
		case <-ctx.Done():
			return "", &Error{Reason: ReasonAuthRequired, Message: "waiting for the sign-in to " + o.Resource + " (see the bridge's stderr for the URL)"}
		}
		if s.err != nil {
			return "", s.err
		}
	}
}

// Refused forgets a refused access token; the next Token refreshes it (or
// asks for a sign-in).
func (o *OAuth) Refused(_ context.Context, token, wwwAuthenticate string) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.hint = parseChallenge(wwwAuthenticate)
	if o.saved.AccessToken == token {
		o.saved.AccessToken = ""
	}
	return true
}

// Login signs in now unless a usable token is stored.
func (o *OAuth) Login(ctx context.Context) error {
	_, err := o.Token(ctx)
	return err
}

// renew refreshes the tokens, or signs in when there is nothing to
// refresh or the refresh is refused; one at a time.
func (o *OAuth) renew(s *signIn) {
	timeout := o.SignInTimeout
	if timeout <= 0 {
		timeout = 5 * time.Minute
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	o.mu.Lock()
	saved := o.saved
	o.mu.Unlock()
	var err error
	if saved.RefreshToken != "" && saved.TokenEndpoint != "" {
		if err = o.refresh(ctx, saved); err == nil {
			o.finish(s, nil)
			return
		}
		o.log().Warn("the refresh token was refused: the person must sign in again", "resource", o.Resource, "err", err)
		fmt.Fprintf(o.prompt(), "doris-mcp-server: the session with %s ended (%v); sign in again.\n", o.Resource, err)
	}
	err = o.signIn(ctx)
	if err != nil {
		o.log().Warn("OAuth sign-in failed", "resource", o.Resource, "err", err)
		err = &Error{Reason: ReasonAuthRequired, Message: "sign-in to " + o.Resource + " did not complete: " + err.Error() +
			"; retry the request to start a new sign-in, or run: doris-mcp-server bridge --oauth --login " + o.Resource}
	}
	o.finish(s, err)
}

func (o *OAuth) finish(s *signIn, err error) {
	o.mu.Lock()
	s.err = err
	o.signing = nil
	o.mu.Unlock()
	close(s.done)
}

// load reads the token file once (o.mu held).
func (o *OAuth) load() {
	if o.loaded {
		return
	}
	o.loaded = true
	b, err := os.ReadFile(o.Path())
	if err != nil {
		return
	}
	var s savedTokens
	if json.Unmarshal(b, &s) == nil && s.Resource == o.Resource {
		o.saved = s
	}
}

// save writes the token file atomically, 0600, in a 0700 directory.
func (o *OAuth) save(s savedTokens) error {
	if err := os.MkdirAll(o.Store, 0o700); err != nil {
		return err
	}
	b, _ := json.MarshalIndent(s, "", "  ")
	tmp, err := os.CreateTemp(o.Store, ".tokens-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return err
	}
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), o.Path()); err != nil {
		return err
	}
	o.mu.Lock()
	o.saved, o.loaded = s, true
	o.mu.Unlock()
	return nil
}

// tokenResponse is an OAuth token endpoint answer.
type tokenResponse struct {
	AccessToken  string `json:"access_token"`
	TokenType    string `json:"token_type"`
	RefreshToken string `json:"refresh_token"`
	ExpiresIn    int64  `json:"expires_in"`
	Scope        string `json:"scope"`
	Error        string `json:"error"`
	Description  string `json:"error_description"`
}

func (o *OAuth) refresh(ctx context.Context, s savedTokens) error {
	form := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {s.RefreshToken}, "client_id": {s.ClientID}, "resource": {o.Resource}}
	if s.ClientSecret != "" {
		form.Set("client_secret", s.ClientSecret)
	}
	tr, err := o.tokenRequest(ctx, s.TokenEndpoint, form)
	if err != nil {
		return err
	}
	o.apply(&s, tr)
	o.log().Info("refreshed the OAuth access token", "resource", o.Resource, "expires_at", s.ExpiresAt)
	return o.save(s)
}

func (o *OAuth) apply(s *savedTokens, tr tokenResponse) {
	s.AccessToken = tr.AccessToken
	if tr.RefreshToken != "" {
		s.RefreshToken = tr.RefreshToken // rotated
	}
	s.ExpiresAt = time.Time{}
	if tr.ExpiresIn > 0 {
		s.ExpiresAt = o.now().Add(time.Duration(tr.ExpiresIn) * time.Second)
	}
	if tr.Scope != "" {
		s.Scope = tr.Scope
	}
}

func (o *OAuth) tokenRequest(ctx context.Context, endpoint string, form url.Values) (tokenResponse, error) {
	var tr tokenResponse
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return tr, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	resp, err := o.HTTP.Do(req)
	if err != nil {
		return tr, fmt.Errorf("token endpoint: %s", shortNetErr(err))
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err := json.Unmarshal(b, &tr); err != nil {
		return tr, fmt.Errorf("token endpoint answered HTTP %d without JSON", resp.StatusCode)
	}
	if resp.StatusCode != http.StatusOK || tr.AccessToken == "" {
		msg := tr.Error
		if msg == "" {
			msg = "HTTP " + strconv.Itoa(resp.StatusCode)
		}
		if tr.Description != "" {
			msg += ": " + truncate(tr.Description, 200)
		}
		return tr, errors.New("the token endpoint refused: " + msg)
	}
	if !strings.EqualFold(tr.TokenType, "bearer") && tr.TokenType != "" {
		return tr, fmt.Errorf("the token endpoint issued a %q token, not a bearer token", tr.TokenType)
	}
	return tr, nil
}

// metadata is what the bridge reads of the two metadata documents.
type metadata struct {
	// protected resource (RFC 9728)
	AuthorizationServers []string `json:"authorization_servers"`
	ScopesSupported      []string `json:"scopes_supported"`
	// authorization server (RFC 8414)
	Issuer                string   `json:"issuer"`
	AuthorizationEndpoint string   `json:"authorization_endpoint"`
	TokenEndpoint         string   `json:"token_endpoint"`
	RegistrationEndpoint  string   `json:"registration_endpoint"`
	CodeChallengeMethods  []string `json:"code_challenge_methods_supported"`
	ResponseIssParameter  bool     `json:"authorization_response_iss_parameter_supported"`
}

func (o *OAuth) getJSON(ctx context.Context, u string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := o.HTTP.Do(req)
	if err != nil {
		return errors.New(shortNetErr(err))
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s answered HTTP %d", u, resp.StatusCode)
	}
	return json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(v)
}

// discover finds the authorization server of the resource.
func (o *OAuth) discover(ctx context.Context) (metadata, []string, error) {
	var prm metadata
	res, err := url.Parse(o.Resource)
	if err != nil {
		return prm, nil, err
	}
	o.mu.Lock()
	hint := o.hint
	o.mu.Unlock()
	candidates := []string{}
	if hint.resourceMetadata != "" {
		candidates = append(candidates, hint.resourceMetadata)
	}
	origin := res.Scheme + "://" + res.Host
	candidates = append(candidates, origin+"/.well-known/oauth-protected-resource"+strings.TrimSuffix(res.Path, "/"),
		origin+"/.well-known/oauth-protected-resource")
	var errs []error
	found := false
	for _, c := range candidates {
		if err := o.getJSON(ctx, c, &prm); err != nil {
			errs = append(errs, err)
			continue
		}
		found = true
		break
	}
	if !found {
		return prm, nil, fmt.Errorf("no protected resource metadata for %s: %w", o.Resource, errors.Join(errs...))
	}
	if len(prm.AuthorizationServers) == 0 {
		return prm, nil, errors.New("the protected resource metadata names no authorization server")
	}
	issuer := prm.AuthorizationServers[0]
	iu, err := url.Parse(issuer)
	if err != nil || iu.Scheme == "" {
		return prm, nil, fmt.Errorf("authorization server %q is not a URL", issuer)
	}
	ipath := strings.TrimSuffix(iu.Path, "/")
	iorigin := iu.Scheme + "://" + iu.Host
	var as metadata
	errs = nil
	found = false
	for _, c := range []string{iorigin + "/.well-known/oauth-authorization-server" + ipath, iorigin + "/.well-known/openid-configuration" + ipath,
		strings.TrimSuffix(issuer, "/") + "/.well-known/openid-configuration"} {
		if err := o.getJSON(ctx, c, &as); err != nil {
			errs = append(errs, err)
			continue
		}
		found = true
		break
	}
	if !found {
		return as, nil, fmt.Errorf("no metadata for the authorization server %s: %w", issuer, errors.Join(errs...))
	}
	if as.Issuer != issuer {
		return as, nil, fmt.Errorf("the authorization server's metadata names issuer %q, not %q", as.Issuer, issuer)
	}
	if !slices.Contains(as.CodeChallengeMethods, "S256") {
		return as, nil, errors.New("the authorization server does not offer PKCE S256 (code_challenge_methods_supported); the bridge will not sign in without it")
	}
	if as.AuthorizationEndpoint == "" || as.TokenEndpoint == "" {
		return as, nil, errors.New("the authorization server's metadata lacks its authorization or token endpoint")
	}
	return as, prm.ScopesSupported, nil
}

// signIn runs the authorization code flow with the person.
func (o *OAuth) signIn(ctx context.Context) error {
	as, scopes, err := o.discover(ctx)
	if err != nil {
		return err
	}
	o.mu.Lock()
	saved, hint := o.saved, o.hint
	o.mu.Unlock()
	port := o.CallbackPort
	if port == 0 && saved.ClientID != "" && saved.Issuer == as.Issuer && saved.RedirectURI != "" {
		if u, err := url.Parse(saved.RedirectURI); err == nil {
			port, _ = strconv.Atoi(u.Port()) // the registered redirect, when it is free
		}
	}
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil && port != 0 && o.CallbackPort == 0 {
		ln, err = net.Listen("tcp", "127.0.0.1:0")
	}
	if err != nil {
		return fmt.Errorf("the redirect listener: %w", err)
	}
	defer ln.Close()
	redirect := "http://127.0.0.1:" + strconv.Itoa(ln.Addr().(*net.TCPAddr).Port) + "/callback"

	s := savedTokens{Resource: o.Resource, Issuer: as.Issuer, TokenEndpoint: as.TokenEndpoint, RedirectURI: redirect}
	switch {
	case o.ClientID != "":
		s.ClientID = o.ClientID
	case saved.ClientID != "" && saved.Issuer == as.Issuer && saved.RedirectURI == redirect:
		s.ClientID, s.ClientSecret = saved.ClientID, saved.ClientSecret
	case as.RegistrationEndpoint != "":
		if s.ClientID, s.ClientSecret, err = o.register(ctx, as.RegistrationEndpoint, redirect); err != nil {
			return err
		}
	default:
		return errors.New("the authorization server offers no dynamic registration; give the bridge a registered --client-id")
	}
	scope := o.Scope
	if scope == "" {
		scope = hint.scope
	}
	if scope == "" {
		scope = strings.Join(scopes, " ")
	}
	verifier := randomString(32)
	sum := sha256.Sum256([]byte(verifier))
	state := randomString(16)
	q := url.Values{"response_type": {"code"}, "client_id": {s.ClientID}, "redirect_uri": {redirect},
		"code_challenge": {base64.RawURLEncoding.EncodeToString(sum[:])}, "code_challenge_method": {"S256"},
		"state": {state}, "resource": {o.Resource}}
	if scope != "" {
		q.Set("scope", scope)
	}
	authURL := as.AuthorizationEndpoint
	if strings.Contains(authURL, "?") {
		authURL += "&" + q.Encode()
	} else {
		authURL += "?" + q.Encode()
	}

	type result struct {
		code string
		err  error
	}
	got := make(chan result, 1)
	srv := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/callback" {
			http.NotFound(w, r)
			return
		}
		qs := r.URL.Query()
		var res result
		switch {
		case qs.Get("state") != state:
			http.Error(w, "this sign-in response does not belong to the bridge's sign-in (state mismatch)", http.StatusBadRequest)
			return // not ours: keep waiting
		case qs.Get("error") != "":
			res.err = fmt.Errorf("the authorization server refused: %s %s", qs.Get("error"), truncate(qs.Get("error_description"), 200))
		case (as.ResponseIssParameter || qs.Has("iss")) && qs.Get("iss") != as.Issuer:
			res.err = fmt.Errorf("the sign-in response came from issuer %q, not %q (RFC 9207)", qs.Get("iss"), as.Issuer)
		case qs.Get("code") == "":
			res.err = errors.New("the sign-in response has no code")
		default:
			res.code = qs.Get("code")
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		if res.err != nil {
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprintf(w, "<!doctype html><title>Sign-in failed</title><h1>Sign-in failed</h1><p>%s</p>", html.EscapeString(res.err.Error()))
		} else {
			fmt.Fprint(w, "<!doctype html><title>Signed in</title><h1 id=\"signed-in\">Signed in</h1><p>doris-mcp-server has the sign-in. You may close this window.</p>")
		}
		select {
		case got <- res:
		default:
		}
	})}
	go srv.Serve(ln)
	defer srv.Close()

	fmt.Fprintf(o.prompt(), "doris-mcp-server: sign in to %s in your browser:\n\n    %s\n\n(waiting for the sign-in on %s)\n", o.Resource, authURL, redirect)
	if o.Open != nil {
		if err := o.Open(authURL); err != nil {
			fmt.Fprintf(o.prompt(), "doris-mcp-server: could not open a browser (%v); open the URL above yourself.\n", err)
		}
	}
	var res result
	select {
	case res = <-got:
	case <-ctx.Done():
		return errors.New("no sign-in within the bound")
	}
	if res.err != nil {
		return res.err
	}
	form := url.Values{"grant_type": {"authorization_code"}, "code": {res.code}, "redirect_uri": {redirect},
		"client_id": {s.ClientID}, "code_verifier": {verifier}, "resource": {o.Resource}}
	if s.ClientSecret != "" {
		form.Set("client_secret", s.ClientSecret)
	}
	tr, err := o.tokenRequest(ctx, as.TokenEndpoint, form)
	if err != nil {
		return err
	}
	o.apply(&s, tr)
	if err := o.save(s); err != nil {
		return fmt.Errorf("saving the tokens: %w", err)
	}
	o.log().Info("signed in with OAuth", "resource", o.Resource, "issuer", as.Issuer, "scope", s.Scope, "token_file", o.Path())
	fmt.Fprintf(o.prompt(), "doris-mcp-server: signed in to %s.\n", o.Resource)
	return nil
}

// register registers the bridge as a public client (RFC 7591).
func (o *OAuth) register(ctx context.Context, endpoint, redirect string) (string, string, error) {
	body, _ := json.Marshal(map[string]any{"client_name": o.ClientName, "redirect_uris": []string{redirect},
		"grant_types": []string{"authorization_code", "refresh_token"}, "response_types": []string{"code"},
		"token_endpoint_auth_method": "none"})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, strings.NewReader(string(body)))
	if err != nil {
		return "", "", err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, err := o.HTTP.Do(req)
	if err != nil {
		return "", "", fmt.Errorf("registration: %s", shortNetErr(err))
	}
	defer resp.Body.Close()
	var r struct {
		ClientID     string `json:"client_id"`
		ClientSecret string `json:"client_secret"`
		Error        string `json:"error"`
		Description  string `json:"error_description"`
	}
	json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&r)
	if resp.StatusCode/100 != 2 || r.ClientID == "" {
		return "", "", fmt.Errorf("dynamic registration refused (HTTP %d %s %s); give the bridge a registered --client-id", resp.StatusCode, r.Error, truncate(r.Description, 200))
	}
	return r.ClientID, r.ClientSecret, nil
}

var challengeParam = regexp.MustCompile(`([a-zA-Z_]+)="([^"]*)"`)

func parseChallenge(h string) challenge {
	var c challenge
	for _, m := range challengeParam.FindAllStringSubmatch(h, -1) {
		switch m[1] {
		case "resource_metadata":
			c.resourceMetadata = m[2]
		case "scope":
			c.scope = m[2]
		}
	}
	return c
}

func randomString(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// CommandOpener opens URLs with a command line such as $BROWSER
// ("firefox", "xdg-open", "/path/script --flag"): the URL is its last
// argument; the command is not waited for.
func CommandOpener(command string) func(string) error {
	fields := strings.Fields(command)
	if len(fields) == 0 {
		return nil
	}
	return func(u string) error {
		cmd := exec.Command(fields[0], append(fields[1:], u)...)
		cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
		if err := cmd.Start(); err != nil {
			return err
		}
		go cmd.Wait()
		return nil
	}
}
