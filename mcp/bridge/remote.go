// Package bridge is the client side of the binary: a connection to a
// remote MCP server over Streamable HTTP (TLS, a bearer token or OAuth 2.1
// with PKCE, bounded requests, errors classified), and the stdio bridge
// that a desktop Host starts as if it were the server, forwarding each
// message to the remote endpoint.
//
// It never reads the environment: the program (package main) configures
// it with typed values.
package bridge

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/doris-mcp/doris-mcp-server/mcp"
)

// Bounds of a request to the remote.
const (
	// DialTimeout bounds the TCP connect and, separately, the TLS
	// handshake: a remote that is down or unroutable is reported within it.
	DialTimeout = 10 * time.Second
	// DefaultTimeout bounds a whole request, from the POST to its final
	// response (the server's query ceiling is 300 s; it answers its own
	// timeout before this one).
	DefaultTimeout = 330 * time.Second
	// maxResponseBytes bounds one response or event read from the remote.
	maxResponseBytes = 4 * mcp.MaxMessageBytes
)

// Reasons of an *Error, in error.data.reason of the JSON-RPC error the
// bridge answers with.
const (
	ReasonUnreachable  = "REMOTE_UNREACHABLE"   // no connection could be made
	ReasonTimeout      = "REMOTE_TIMEOUT"       // no answer within the bound
	ReasonDisconnected = "REMOTE_DISCONNECTED"  // the connection broke mid-request
	ReasonTLS          = "REMOTE_TLS_FAILED"    // the certificate was not trusted
	ReasonUnauthorized = "REMOTE_UNAUTHORIZED"  // the credential was refused (401)
	ReasonAuthRequired = "REMOTE_AUTH_REQUIRED" // a person must sign in (OAuth)
	ReasonHTTP         = "REMOTE_HTTP_ERROR"    // an answer that is not JSON-RPC
	ReasonProtocol     = "REMOTE_PROTOCOL_ERROR"
)

// Error is a failure to get an answer from the remote. Its message never
// holds a credential.
type Error struct {
	Reason    string
	Message   string
	Status    int // the HTTP status, when there was one
	Retryable bool
}

func (e *Error) Error() string { return e.Message }

// RPC is the JSON-RPC error the bridge answers a request with.
func (e *Error) RPC(remote string) *mcp.Error {
	data := map[string]any{"reason": e.Reason, "retryable": e.Retryable, "remote": remote}
	if e.Status != 0 {
		data["http_status"] = e.Status
	}
	return &mcp.Error{Code: mcp.CodeInternalError, Message: e.Message, Data: data}
}

// Credentials supply the bearer token of each request.
type Credentials interface {
	// Token returns the token to send; "" sends none.
	Token(ctx context.Context) (string, error)
	// Refused is told that the remote answered 401 to token, with its
	// WWW-Authenticate challenge. It returns true when a new Token is worth
	// one retry (a refresh or a sign-in happened).
	Refused(ctx context.Context, token, challenge string) bool
}

// StaticToken is a bearer token given once (a file, the environment).
type StaticToken string

// Token returns the token.
func (s StaticToken) Token(context.Context) (string, error) { return string(s), nil }

// Refused never retries: the token will not change.
func (StaticToken) Refused(context.Context, string, string) bool { return false }

// TLSConfig builds the client TLS configuration: the system roots plus the
// PEM certificates of caFile (when given). Verification cannot be turned
// off.
func TLSConfig(caFile string) (*tls.Config, error) {
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if caFile == "" {
		return cfg, nil
	}
	pem, err := os.ReadFile(caFile)
	if err != nil {
		return nil, fmt.Errorf("--ca-file: %w", err)
	}
	pool, err := x509.SystemCertPool()
	if err != nil || pool == nil {
		pool = x509.NewCertPool()
	}
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("--ca-file %s holds no PEM certificate", caFile)
	}
	cfg.RootCAs = pool
	return cfg, nil
}

// NewHTTPClient is the HTTP client of a Remote: bounded dial and TLS
// handshake, no redirects followed (a redirect would carry the token
// elsewhere), proxies from the environment as net/http reads them.
func NewHTTPClient(tlsConfig *tls.Config) *http.Client {
	tr := &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           (&net.Dialer{Timeout: DialTimeout, KeepAlive: 30 * time.Second}).DialContext,
		TLSClientConfig:       tlsConfig,
		TLSHandshakeTimeout:   DialTimeout,
		MaxIdleConnsPerHost:   16,
		IdleConnTimeout:       90 * time.Second,
		ExpectContinueTimeout: time.Second,
		ForceAttemptHTTP2:     true,
	}
	return &http.Client{Transport: tr, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// Remote is an MCP endpoint reached over Streamable HTTP.
type Remote struct {
	// URL is the MCP endpoint, e.g. https://doris-mcp.example.com/mcp.
	URL *url.URL
	// HTTP is the client (NewHTTPClient).
	HTTP *http.Client
	// Creds supplies the bearer token; nil sends none.
	Creds Credentials
	// Timeout bounds a whole request (DefaultTimeout when zero).
	Timeout time.Duration
	// UserAgent is sent on every request.
	UserAgent string

	mu      sync.Mutex
	session string // Mcp-Session-Id a handshake-era initialize returned
}

// Redacted is the endpoint without userinfo or query, for messages.
func (r *Remote) Redacted() string {
	u := *r.URL
	u.User, u.RawQuery, u.Fragment = nil, "", ""
	return u.String()
}

// Message is one JSON-RPC message for the remote.
type Message struct {
	Body         []byte
	Method       string
	Notification bool
	// Modern sends the 2026-07-28 headers: MCP-Protocol-Version (Version),
	// Mcp-Method and, when Name is set, Mcp-Name.
	Modern  bool
	Version string // the protocol version of the message ("" for none)
	Name    string // Mcp-Name: params.name or params.uri
	// Traceparent is sent as the W3C traceparent header too.
	Traceparent string
}

// Send posts m and returns the JSON-RPC response to it (nil for an
// accepted notification), calling notify with each notification the
// remote streams before it. It gives up at the request bound or when ctx
// ends (a cancellation: the stream is closed, which stops the call in the
// remote). Errors are *Error.
func (r *Remote) Send(ctx context.Context, m Message, notify func([]byte)) ([]byte, error) {
	timeout := r.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeoutCause(ctx, timeout, errBound)
	defer cancel()
	token, err := r.token(ctx)
	if err != nil {
		return nil, err
	}
	resp, err := r.post(ctx, m, token)
	if err != nil {
		return nil, r.classify(ctx, err, timeout)
	}
	if resp.StatusCode == http.StatusUnauthorized && r.Creds != nil {
		challenge := resp.Header.Get("WWW-Authenticate")
		drain(resp)
		if !r.Creds.Refused(ctx, token, challenge) {
			return nil, r.unauthorized(token)
		}
		if token, err = r.token(ctx); err != nil {
			return nil, err
		}
		if resp, err = r.post(ctx, m, token); err != nil {
			return nil, r.classify(ctx, err, timeout)
		}
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusUnauthorized {
		drain(resp)
		return nil, r.unauthorized(token)
	}
	if sid := resp.Header.Get("Mcp-Session-Id"); sid != "" && m.Method == "initialize" {
		r.mu.Lock()
		r.session = sid
		r.mu.Unlock()
	}
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch {
	case m.Notification && resp.StatusCode < 300:
		drain(resp)
		return nil, nil
	case mt == "text/event-stream":
		b, err := readStream(resp.Body, notify)
		if err != nil {
			return nil, r.classify(ctx, err, timeout)
		}
		if b == nil {
			return nil, &Error{Reason: ReasonDisconnected, Retryable: true,
				Message: "the remote closed the response stream before it answered; the request may not have completed"}
		}
		return b, nil
	case mt == "application/json":
		b, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes))
		if err != nil {
			return nil, r.classify(ctx, err, timeout)
		}
		if isResponse(b) {
			return b, nil
		}
		return nil, httpError(resp.StatusCode, b)
	}
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
	if m.Notification {
		return nil, nil // a notification's answer is not the Host's concern
	}
	return nil, httpError(resp.StatusCode, b)
}

var errBound = errors.New("request bound reached")

func (r *Remote) token(ctx context.Context) (string, error) {
	if r.Creds == nil {
		return "", nil
	}
	tok, err := r.Creds.Token(ctx)
	if err != nil {
		var e *Error
		if errors.As(err, &e) {
			return "", e
		}
		return "", &Error{Reason: ReasonAuthRequired, Message: "no credential for " + r.Redacted() + ": " + err.Error()}
	}
	return tok, nil
}

func (r *Remote) unauthorized(token string) *Error {
	msg := "the remote refused the request without a credential (401); give the bridge a token (--token-file, MCP_BRIDGE_TOKEN) or --oauth"
	if token != "" {
		msg = "the remote refused the bridge's credential (401): the token is wrong, expired or revoked"
		if _, ok := r.Creds.(StaticToken); !ok {
			msg += "; sign in again (doris-mcp-server bridge --oauth --login " + r.Redacted() + ")"
		}
	}
	return &Error{Reason: ReasonUnauthorized, Status: http.StatusUnauthorized, Message: msg}
}

func (r *Remote) post(ctx context.Context, m Message, token string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, r.URL.String(), bytes.NewReader(m.Body))
	if err != nil {
		return nil, err
	}
	h := req.Header
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "application/json, text/event-stream")
	if r.UserAgent != "" {
		h.Set("User-Agent", r.UserAgent)
	}
	if token != "" {
		h.Set("Authorization", "Bearer "+token)
	}
	if m.Version != "" {
		h.Set("MCP-Protocol-Version", m.Version)
	}
	if m.Traceparent != "" {
		h.Set("Traceparent", m.Traceparent)
	}
	if m.Modern {
		h.Set("Mcp-Method", headerValue(m.Method))
		if m.Name != "" {
			h.Set("Mcp-Name", headerValue(m.Name))
		}
	} else {
		r.mu.Lock()
		if r.session != "" && m.Method != "initialize" {
			h.Set("Mcp-Session-Id", r.session)
		}
		r.mu.Unlock()
	}
	return r.HTTP.Do(req)
}

// headerValue encodes an MCP header value as 2026-07-28 says: plain when
// it is visible ASCII without surrounding space, else =?base64?...?=.
func headerValue(v string) string {
	plain := v != "" && v == strings.TrimSpace(v) && !strings.HasPrefix(v, "=?base64?")
	for i := 0; plain && i < len(v); i++ {
		if v[i] < 0x20 || v[i] > 0x7e {
			plain = false
		}
	}
	if plain || v == "" {
		return v
	}
	return "=?base64?" + b64(v) + "?="
}

// classify turns a transport failure into an *Error.
func (r *Remote) classify(ctx context.Context, err error, timeout time.Duration) *Error {
	if t, ok := r.HTTP.Transport.(*http.Transport); ok {
		t.CloseIdleConnections() // the next request dials afresh
	}
	if errors.Is(context.Cause(ctx), errBound) {
		return &Error{Reason: ReasonTimeout, Retryable: true,
			Message: fmt.Sprintf("the remote %s did not answer within %s (the bridge's --timeout)", r.Redacted(), timeout)}
	}
	if ctx.Err() != nil {
		return &Error{Reason: "CANCELLED", Message: "the request was cancelled"}
	}
	var ue *x509.UnknownAuthorityError
	var he x509.HostnameError
	var ce *tls.CertificateVerificationError
	if errors.As(err, &ue) || errors.As(err, &he) || errors.As(err, &ce) {
		return &Error{Reason: ReasonTLS, Message: "the remote's TLS certificate is not trusted (" + tlsReason(err) +
			"); give its CA with --ca-file"}
	}
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" || errors.Is(err, syscall.ECONNREFUSED) {
		return &Error{Reason: ReasonUnreachable, Retryable: true,
			Message: "cannot connect to the remote " + r.Redacted() + ": " + shortNetErr(err)}
	}
	var dns *net.DNSError
	if errors.As(err, &dns) {
		return &Error{Reason: ReasonUnreachable, Retryable: true, Message: "cannot resolve the remote's host " + r.URL.Hostname()}
	}
	return &Error{Reason: ReasonDisconnected, Retryable: true,
		Message: "the connection to the remote " + r.Redacted() + " broke before it answered (" + shortNetErr(err) + "); the request may not have completed"}
}

func tlsReason(err error) string {
	var he x509.HostnameError
	if errors.As(err, &he) {
		return "it is not valid for " + he.Host
	}
	return "signed by an unknown authority"
}

func shortNetErr(err error) string {
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.Is(err, syscall.ECONNRESET):
		return "connection reset"
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return "connection closed"
	}
	var op *net.OpError
	if errors.As(err, &op) && op.Err != nil {
		return op.Err.Error()
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err.Error()
	}
	return err.Error()
}

func drain(resp *http.Response) {
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
}

// isResponse reports whether b is a JSON-RPC response (it has a result or
// an error).
func isResponse(b []byte) bool {
	var m struct {
		JSONRPC string          `json:"jsonrpc"`
		Result  json.RawMessage `json:"result"`
		Error   json.RawMessage `json:"error"`
	}
	return json.Unmarshal(b, &m) == nil && m.JSONRPC == "2.0" && (m.Result != nil || m.Error != nil)
}

// httpError reports an answer that is not JSON-RPC: its status, and the
// error member of a JSON body when it has one.
func httpError(status int, body []byte) *Error {
	msg := fmt.Sprintf("the remote answered HTTP %d without a JSON-RPC response", status)
	var m struct {
		Error   string `json:"error"`
		Message string `json:"message"`
	}
	if json.Unmarshal(body, &m) == nil && (m.Error != "" || m.Message != "") {
		msg += ": " + strings.TrimSpace(m.Error+" "+m.Message)
	}
	return &Error{Reason: ReasonHTTP, Status: status, Message: truncate(msg, 400), Retryable: status >= 500}
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

// readStream reads a request-scoped SSE stream: each notification goes to
// notify, and the first response ends it. It returns nil, nil when the
// stream ended without a response.
func readStream(body io.Reader, notify func([]byte)) ([]byte, error) {
	br := bufio.NewReaderSize(body, 64<<10)
	var data bytes.Buffer
	for {
		line, err := readSSELine(br)
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil, nil
			}
			return nil, err
		}
		if len(line) == 0 { // the end of an event
			if data.Len() == 0 {
				continue
			}
			ev := bytes.Clone(data.Bytes())
			data.Reset()
			if isResponse(ev) {
				return ev, nil
			}
			if notify != nil && json.Valid(ev) {
				notify(ev)
			}
			continue
		}
		if v, ok := bytes.CutPrefix(line, []byte("data:")); ok {
			if data.Len() > 0 {
				data.WriteByte('\n')
			}
			data.Write(bytes.TrimPrefix(v, []byte(" ")))
			if data.Len() > maxResponseBytes {
				return nil, &Error{Reason: ReasonProtocol, Message: "an event from the remote exceeds the size bound"}
			}
		}
	}
}

func readSSELine(br *bufio.Reader) ([]byte, error) {
	var buf []byte
	for {
		chunk, err := br.ReadSlice('\n')
		buf = append(buf, chunk...)
		if errors.Is(err, bufio.ErrBufferFull) {
			if len(buf) > maxResponseBytes {
				return nil, &Error{Reason: ReasonProtocol, Message: "a line from the remote exceeds the size bound"}
			}
			continue
		}
		if err != nil && len(buf) == 0 {
			return nil, err
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, err
		}
		return bytes.TrimRight(buf, "\r\n"), nil
	}
}
