package mcp

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/doris-mcp/doris-mcp-server/auth"
)

// HTTPOptions configure the Streamable HTTP transport.
type HTTPOptions struct {
	// Policy validates Host and Origin (DNS-rebinding protection). Required.
	Policy *auth.HostPolicy
	// Legacy serves the handshake-era adapter at /mcp/legacy.
	Legacy bool
	// ModernOnly restricts /mcp to MCP 2026-07-28. By default /mcp serves
	// each request in the era it speaks, as the 2026-07-28 backward
	// compatibility rules allow: today's Hosts open with a handshake-era
	// initialize and are served as on /mcp/legacy.
	ModernOnly bool
	// Ready is the bounded readiness check behind GET /ready (nil: always
	// ready).
	Ready func(ctx context.Context) error
	// ReadyTimeout bounds Ready (default 2 s).
	ReadyTimeout time.Duration
	// Identify authenticates a request to an MCP endpoint before its body
	// is read: the identity to serve it as, or an error. An *auth.Error is
	// answered with its status and WWW-Authenticate challenge; any other
	// error with 401. nil serves every request as auth.Anonymous().
	Identify func(r *http.Request) (auth.Identity, error)
	// Mount adds handlers beside the MCP endpoints (OAuth metadata and
	// endpoints, sign-in pages), keyed by http.ServeMux pattern. They get
	// no Host/Origin check from this package: each does its own.
	Mount map[string]http.Handler
	// ScopeChallenge returns the WWW-Authenticate value of the 403 sent
	// when the identity lacks operation scopes a request needs (scope is
	// space-delimited; nil: a bare insufficient_scope challenge naming it).
	ScopeChallenge func(scope string) string
}

// Handler returns the HTTP handler of the server: POST /mcp (MCP
// 2026-07-28, stateless, and the handshake era per request unless
// ModernOnly), POST /mcp/legacy when enabled, and the health endpoints GET
// /live, /ready and /health. Everything else is 404.
func (s *Server) Handler(o HTTPOptions) http.Handler {
	if o.ReadyTimeout <= 0 {
		o.ReadyTimeout = 2 * time.Second
	}
	mux := http.NewServeMux()
	mcpEra := either
	if o.ModernOnly {
		mcpEra = modern
	}
	mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) { s.serveHTTP(w, r, o, mcpEra) })
	if o.Legacy {
		mux.HandleFunc("/mcp/legacy", func(w http.ResponseWriter, r *http.Request) { s.serveHTTP(w, r, o, legacy) })
	} else {
		mux.HandleFunc("/mcp/legacy", func(w http.ResponseWriter, r *http.Request) {
			writeJSON(w, http.StatusNotFound, map[string]string{"error": "legacy_adapter_disabled",
				"message": "the endpoint for MCP 2025-03-26, 2025-06-18 and 2025-11-25 clients is off; " +
					"the server's operator enables it with ENABLE_LEGACY_HTTP_ADAPTER=true"})
		})
	}
	for pattern, h := range o.Mount {
		mux.Handle(pattern, h)
	}
	mux.HandleFunc("GET /live", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{"status": "alive", "service": s.info.Name, "version": s.info.Version,
			"checks": map[string]string{"process": "alive"}})
	})
	mux.HandleFunc("GET /ready", func(w http.ResponseWriter, r *http.Request) {
		status, doris, code := "ready", "ok", http.StatusOK
		if s.Draining() {
			// Taken out of rotation first: no new work is accepted.
			w.Header().Set("Retry-After", strconv.Itoa(retryAfterSeconds))
			writeJSON(w, http.StatusServiceUnavailable, map[string]any{"status": "draining",
				"checks": map[string]string{"service": "shutting_down"}})
			return
		}
		reason := ""
		if o.Ready != nil {
			ctx, cancel := context.WithTimeout(r.Context(), o.ReadyTimeout)
			defer cancel()
			if err := o.Ready(ctx); err != nil {
				status, doris, code = "not_ready", "unavailable", http.StatusServiceUnavailable
				reason = readyReason(err)
			}
		}
		body := map[string]any{"status": status, "checks": map[string]string{"service": "ok", "doris": doris},
			"timeout_seconds": o.ReadyTimeout.Seconds()}
		if reason != "" {
			body["reason"] = reason
		}
		writeJSON(w, code, body)
	})
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{"status": "healthy", "service": s.info.Name, "version": s.info.Version})
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusNotFound, map[string]string{"error": "not_found"})
	})
	return mux
}

// serveHTTP serves one POST to an MCP endpoint of era e: admit it (policy,
// identity, body, headers), then answer it.
func (s *Server) serveHTTP(w http.ResponseWriter, r *http.Request, o HTTPOptions, e era) {
	if s.Draining() {
		s.refuse(w, r, http.StatusServiceUnavailable, ID{}, errShuttingDown(false))
		return
	}
	c, ok := s.admit(w, r, o, e)
	if !ok {
		return
	}
	c.transport = "http" // telemetry.go
	// net/http cancels r.Context() when the client goes away and when
	// this handler returns; Abort cancels it through BaseContext.
	c.ctx = r.Context()
	switch {
	case c.req.Notification:
		s.serve(c)
		w.WriteHeader(http.StatusAccepted)
	case c.p.meta.ProgressToken != nil && c.req.Method == "tools/call":
		s.serveSSE(w, c)
	default:
		s.respond(w, c)
	}
}

// admit checks everything about a request before it is served, answering
// the first failure itself: the Host/Origin policy, the method, the
// caller's identity (before the body is read), the body, the media types,
// the envelope and, for the modern era, the MCP headers against the body.
func (s *Server) admit(w http.ResponseWriter, r *http.Request, o HTTPOptions, e era) (*call, bool) {
	if err := o.Policy.Check(r); err != nil {
		s.refuse(w, r, http.StatusForbidden, ID{}, errorf(CodeInvalidRequest, "forbidden: Host or Origin not allowed"))
		return nil, false
	}
	if r.Method != http.MethodPost {
		// No GET stream and no sessions to DELETE in either era.
		w.Header().Set("Allow", "POST")
		s.refuse(w, r, http.StatusMethodNotAllowed, ID{}, errorf(CodeInvalidRequest, "only POST is supported on this endpoint"))
		return nil, false
	}
	var version string
	if e == legacy {
		v, ok := legacyHeaderVersion(r)
		if !ok {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "legacy_adapter_only",
				"message": "this endpoint serves MCP 2025-03-26, 2025-06-18 and 2025-11-25; use /mcp for " + Version})
			return nil, false
		}
		version = v
	}
	identity := auth.Anonymous()
	if o.Identify != nil {
		got, err := o.Identify(r)
		if err != nil {
			s.refuseAuth(w, r, got, err)
			return nil, false
		}
		identity = got
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxMessageBytes))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			s.refuse(w, r, http.StatusRequestEntityTooLarge, ID{}, errorf(CodeInvalidRequest, "request body exceeds %d bytes", MaxMessageBytes))
			return nil, false
		}
		s.refuse(w, r, http.StatusBadRequest, ID{}, errorf(CodeInvalidRequest, "request body could not be read"))
		return nil, false
	}
	req, derr := DecodeRequest(body)
	id := ID{}
	if req != nil {
		id = req.ID
	}
	switch {
	case !isJSON(r.Header.Get("Content-Type")):
		s.refuse(w, r, http.StatusUnsupportedMediaType, id, errorf(CodeInvalidRequest, "Content-Type must be application/json"))
		return nil, false
	case !acceptsJSONAndSSE(r.Header.Values("Accept")):
		s.refuse(w, r, http.StatusNotAcceptable, id, errorf(CodeInvalidRequest, "Accept must include application/json and text/event-stream"))
		return nil, false
	case derr != nil:
		s.refuse(w, r, http.StatusBadRequest, id, derr)
		return nil, false
	}
	if e == either {
		e, version = eraOf(r, req)
	} else if e == modern && o.ModernOnly && handshakeEra(r, req) {
		s.refuse(w, r, http.StatusBadRequest, id, errModernOnly(requestedVersion(r, req)))
		return nil, false
	}
	var c *call
	if e == modern {
		c, derr = s.checkModernHeaders(r, req)
	} else {
		c, derr = newCall(req, e)
	}
	if derr != nil {
		s.refuse(w, r, statusFor(e, derr), id, derr)
		return nil, false
	}
	c.version, c.id = version, identity
	if s.refuseScope(w, r, o, c) {
		return nil, false
	}
	return c, true
}

// respond serves a request and writes its JSON response.
func (s *Server) respond(w http.ResponseWriter, c *call) {
	result, rerr := s.serve(c)
	if rerr != nil {
		writeRPCError(w, statusFor(c.era, rerr), c.req.ID, rerr)
		return
	}
	b, merr := encodeResult(c.req.ID, result)
	if merr != nil {
		s.log.Error("result encoding failed", "method", c.req.Method, "err", merr)
		writeRPCError(w, statusFor(c.era, &Error{Code: CodeInternalError}), c.req.ID, errorf(CodeInternalError, "internal error"))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	if c.era == legacy && c.req.Method == "initialize" {
		// An opaque session id that nothing remembers: handshake-era
		// clients expect one, and echo it back, where it is ignored.
		w.Header().Set("Mcp-Session-Id", newSessionID())
	}
	w.WriteHeader(http.StatusOK)
	w.Write(b)
}

func newSessionID() string {
	var b [16]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// checkModernHeaders validates the request against the 2026-07-28 HTTP
// rules, in the order that lets each failure get its specified code:
// Mcp-Method, the method itself, _meta, MCP-Protocol-Version, the version,
// then Mcp-Name. It returns the call, with its params read once.
func (s *Server) checkModernHeaders(r *http.Request, req *Request) (*call, *Error) {
	methodHeader, err := mcpHeader(r, "Mcp-Method")
	if err != nil {
		return nil, err
	}
	if methodHeader != req.Method {
		return nil, errorf(CodeHeaderMismatch, "Mcp-Method header does not match the body's method")
	}
	m, known := s.methods[req.Method]
	if (!known || !m.eras.has(modern)) && !req.Notification {
		return nil, methodNotFound(req.Method)
	}
	c, err := newCall(req, modern)
	if err != nil {
		return nil, err
	}
	if req.Notification {
		return c, nil
	}
	meta := c.p.meta
	if err := checkModernMeta(meta); err != nil {
		return nil, err
	}
	versionHeader, err := mcpHeader(r, "MCP-Protocol-Version")
	if err != nil {
		return nil, err
	}
	if versionHeader != meta.ProtocolVersion {
		return nil, errorf(CodeHeaderMismatch, "MCP-Protocol-Version header does not match _meta protocolVersion")
	}
	if meta.ProtocolVersion != Version {
		return nil, unsupportedVersion(meta.ProtocolVersion)
	}
	if m.name != noName {
		raw, key := c.p.name, "name"
		if m.name == paramURI {
			raw, key = c.p.uri, "uri"
		}
		want, perr := str(raw, key, true)
		if perr != nil {
			return nil, perr
		}
		got, err := mcpHeader(r, "Mcp-Name")
		if err != nil {
			return nil, err
		}
		if got != want {
			return nil, errorf(CodeHeaderMismatch, "Mcp-Name header does not match the body")
		}
	}
	return c, nil
}

// mcpHeader returns the single value of an MCP header, with optional
// whitespace trimmed and the =?base64?...?= form decoded. A missing,
// repeated or malformed header is a HeaderMismatch.
func mcpHeader(r *http.Request, name string) (string, *Error) {
	vals := r.Header.Values(name)
	if len(vals) == 0 {
		return "", errorf(CodeHeaderMismatch, "the %s header is required", name)
	}
	if len(vals) > 1 {
		return "", errorf(CodeHeaderMismatch, "the %s header must appear once", name)
	}
	v, ok := decodeHeaderValue(vals[0])
	if !ok {
		return "", errorf(CodeHeaderMismatch, "the %s header is malformed", name)
	}
	return v, nil
}

// decodeHeaderValue trims optional whitespace, decodes the =?base64?…?=
// sentinel form (standard alphabet, padded, UTF-8), and otherwise requires
// visible ASCII.
func decodeHeaderValue(v string) (string, bool) {
	v = strings.Trim(v, " \t")
	if inner, ok := strings.CutPrefix(v, "=?base64?"); ok {
		inner, ok = strings.CutSuffix(inner, "?=")
		if !ok {
			return "", false
		}
		b, err := base64.StdEncoding.Strict().DecodeString(inner)
		if err != nil || !utf8.Valid(b) {
			return "", false
		}
		return string(b), true
	}
	for i := 0; i < len(v); i++ {
		if v[i] < 0x20 || v[i] > 0x7e {
			return "", false
		}
	}
	return v, true
}

// eraOf chooses the era of one request to /mcp, as the official go-sdk
// does: a 2026-07-28 (or unknown) MCP-Protocol-Version header, or _meta
// naming a protocol version, selects 2026-07-28, whose own checks then
// judge the request; a handshake-era version header (which such clients
// send after initialize), or none (their initialize, and every request of
// a 2025-03-26 client), without that _meta selects the handshake era.
// Either way the request goes through the same identity, scope, limit
// and read-only checks.
func eraOf(r *http.Request, req *Request) (era, string) {
	if handshakeEra(r, req) {
		v, _ := legacyHeaderVersion(r)
		return legacy, v
	}
	return modern, ""
}

// handshakeEra reports whether a request speaks a handshake-era revision
// (eraOf). A 2026-07-28 request with its version header costs no parse.
func handshakeEra(r *http.Request, req *Request) bool {
	if _, ok := legacyHeaderVersion(r); !ok {
		return false
	}
	p, err := readParams(req.Params)
	return err != nil || !p.meta.hasVersion
}

// errModernOnly refuses a handshake-era request on /mcp when the operator
// restricted it to 2026-07-28, saying where such clients are served.
func errModernOnly(requested string) *Error {
	return &Error{Code: CodeUnsupportedVersion, Message: "this endpoint serves MCP " + Version + " only (MCP_MODERN_ONLY=true); " +
		"clients of MCP 2025-03-26, 2025-06-18 and 2025-11-25 use /mcp/legacy, which the operator enables with ENABLE_LEGACY_HTTP_ADAPTER=true",
		Data: map[string]any{"supported": []string{Version}, "requested": requested}}
}

// requestedVersion is the handshake-era version a request asks for: its
// initialize's protocolVersion, else its version header (none: 2025-03-26).
func requestedVersion(r *http.Request, req *Request) string {
	if p, err := readParams(req.Params); err == nil && req.Method == "initialize" {
		if v, err := str(p.protocolVersion, "protocolVersion", true); err == nil {
			return v
		}
	}
	v, _ := legacyHeaderVersion(r)
	return v
}

// legacyHeaderVersion returns the handshake-era version a legacy request
// speaks. A missing header means 2025-03-26, as the 2025 revisions say.
func legacyHeaderVersion(r *http.Request) (string, bool) {
	vals := r.Header.Values("MCP-Protocol-Version")
	if len(vals) == 0 {
		return "2025-03-26", true
	}
	if len(vals) > 1 {
		return "", false
	}
	v := strings.TrimSpace(vals[0])
	return v, slices.Contains(legacyVersions, v)
}

// statusFor maps a JSON-RPC error to the HTTP status of its era. An error
// the server's own state caused (shutting down) is 503 in both eras.
// Modern: unknown or removed methods are 404, an internal failure is 500,
// and every other error, the request's own fault, is 400. Legacy: an error
// is an ordinary JSON-RPC response (200), except malformed messages.
func statusFor(e era, err *Error) int {
	if err.retryAfter > 0 {
		return http.StatusServiceUnavailable
	}
	if e == legacy {
		switch err.Code {
		case CodeParseError, CodeInvalidRequest:
			return http.StatusBadRequest
		}
		return http.StatusOK
	}
	switch err.Code {
	case CodeMethodNotFound:
		return http.StatusNotFound
	case CodeInternalError:
		return http.StatusInternalServerError
	}
	return http.StatusBadRequest
}

// serveSSE answers on a request-scoped event stream: progress
// notifications, then the response. The client closing the stream cancels
// the request's context (net/http cancels r.Context()), and nothing more is
// written for it.
func (s *Server) serveSSE(w http.ResponseWriter, c *call) {
	flusher, _ := w.(http.Flusher)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	if flusher != nil {
		flusher.Flush() // the client sees the stream open before any event
	}
	var mu sync.Mutex // protects w and done
	done := false
	send := func(b []byte) {
		mu.Lock()
		defer mu.Unlock()
		if done || c.ctx.Err() != nil {
			return
		}
		io.WriteString(w, "event: message\ndata: ")
		w.Write(b)
		io.WriteString(w, "\n\n")
		if flusher != nil {
			flusher.Flush()
		}
	}
	c.notify = func(method string, params any) {
		if b, err := encodeNotification(method, params); err == nil {
			send(b)
		}
	}
	result, rerr := s.serve(c)
	var b []byte
	if rerr != nil {
		b = encodeError(c.req.ID, rerr)
	} else if enc, err := encodeResult(c.req.ID, result); err == nil {
		b = enc
	} else {
		b = encodeError(c.req.ID, errorf(CodeInternalError, "internal error"))
	}
	send(b)
	mu.Lock()
	done = true
	mu.Unlock()
}

// refuse answers a request rejected before dispatch, and logs that it did:
// status, code and request id only, never the body or the error's text
// (which may quote a member name the client sent).
func (s *Server) refuse(w http.ResponseWriter, r *http.Request, status int, id ID, e *Error) {
	attrs := []slog.Attr{slog.Int("status", status), slog.Int("error_code", e.Code), slog.String("path", r.URL.Path)}
	if !id.IsZero() {
		attrs = append(attrs, slog.String("request_id", truncate(id.String(), 128)))
	}
	s.log.LogAttrs(r.Context(), slog.LevelWarn, "mcp request refused", attrs...)
	s.opts.Telemetry.refused(status) // telemetry.go
	writeRPCError(w, status, id, e)
}

// refuseAuth answers a request whose credential was refused: the status
// and challenge of an *auth.Error (401 otherwise), and a JSON-RPC error
// body without the id, since the body was never read.
func (s *Server) refuseAuth(w http.ResponseWriter, r *http.Request, _ auth.Identity, err error) {
	status, msg := http.StatusUnauthorized, "authentication required"
	var ae *auth.Error
	if errors.As(err, &ae) {
		if ae.Status != 0 {
			status = ae.Status
		}
		if ae.Challenge != "" {
			w.Header().Set("WWW-Authenticate", ae.Challenge)
		}
		if ae.Description != "" {
			msg = ae.Description
		}
	}
	s.refuse(w, r, status, ID{}, errorf(CodeInvalidRequest, "%s", msg))
}

func writeRPCError(w http.ResponseWriter, status int, id ID, e *Error) {
	setRetryAfter(w.Header(), e)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(encodeError(id, e))
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, _ := json.Marshal(v)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(b)
}

func isJSON(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && mt == "application/json"
}

// acceptsJSONAndSSE reports whether the Accept header admits both response
// forms (wildcards count).
func acceptsJSONAndSSE(values []string) bool {
	var json, sse bool
	for _, v := range values {
		for _, part := range strings.Split(v, ",") {
			mt, _, err := mime.ParseMediaType(strings.TrimSpace(part))
			if err != nil {
				continue
			}
			switch mt {
			case "*/*":
				json, sse = true, true
			case "application/*", "application/json":
				json = true
			case "text/*", "text/event-stream":
				sse = true
			}
		}
	}
	return json && sse
}

// readyReason is the reason code of a failed readiness check
// (DORIS_CONNECTION_FAILED, DORIS_AUTHENTICATION_FAILED, ...): what the
// error says through a ReasonCode method, else DORIS_UNAVAILABLE. The
// error's text (backend text) never reaches the body.
func readyReason(err error) string {
	var rc interface{ ReasonCode() string }
	if errors.As(err, &rc) && rc.ReasonCode() != "" {
		return rc.ReasonCode()
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return "DORIS_READY_TIMEOUT"
	}
	return "DORIS_UNAVAILABLE"
}
