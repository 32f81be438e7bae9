package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"slices"
	"time"

	"github.com/doris-mcp/doris-mcp-server/auth"
	"github.com/doris-mcp/doris-mcp-server/catalog"
	"github.com/doris-mcp/doris-mcp-server/handle"
)

// Protocol versions.
const (
	// Version is the modern, stateless revision this server speaks.
	Version = "2026-07-28"
)

// legacyVersions are the handshake-era revisions served through initialize
// (stdio, and /mcp/legacy over HTTP), newest first.
var legacyVersions = []string{"2025-11-25", "2025-06-18", "2025-03-26"}

// Backend is what the protocol serves: tools, resources, prompts and
// completions for one request identity. *catalog.Surface implements it.
type Backend interface {
	Tools(ctx context.Context, id auth.Identity) ([]catalog.Tool, error)
	CallTool(ctx context.Context, id auth.Identity, name string, args json.RawMessage, p catalog.Progress) (*catalog.ToolResult, error)
	Resources(ctx context.Context, id auth.Identity) ([]catalog.Resource, error)
	ResourceTemplates(ctx context.Context, id auth.Identity) ([]catalog.ResourceTemplate, error)
	ReadResource(ctx context.Context, id auth.Identity, uri string) (*catalog.ResourceContents, error)
	Prompts(ctx context.Context, id auth.Identity) ([]catalog.Prompt, error)
	GetPrompt(ctx context.Context, id auth.Identity, name string, args map[string]string) (*catalog.PromptResult, error)
	Complete(ctx context.Context, id auth.Identity, ref catalog.CompletionRef, arg, value string, context map[string]string) (*catalog.Completion, error)
}

// Options configure a Server.
type Options struct {
	// Name and Version identify the server in serverInfo.
	Name, Version string
	// Instructions is optional guidance returned by discovery.
	Instructions string
	// PageSize is the number of entries per list page (1..1000).
	PageSize int
	// Handles signs list cursors. Required.
	Handles *handle.Signer
	// Logger receives one line per request; nil discards.
	Logger *slog.Logger
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// ShutdownGrace bounds how long calls running when stdio reaches EOF
	// (or its context ends) may take to finish before they are aborted
	// (SHUTDOWN_GRACE_SECONDS); zero means DefaultShutdownGrace. Over
	// HTTP the program applies it (Drain, then Abort).
	ShutdownGrace time.Duration
	// Telemetry records metrics and the invocation audit log of every
	// request; nil: none (telemetry.go).
	Telemetry *Telemetry
}

// DefaultShutdownGrace leaves an orchestrator's usual 30 s termination
// period room for the abort and the exit.
const DefaultShutdownGrace = 25 * time.Second

// AbortWait bounds how long aborted calls take to answer: their queries
// are killed inside Doris within about a second, whatever the backend
// does.
const AbortWait = 5 * time.Second

// Server is the transport-independent MCP server: a flat method table over
// a Backend. It keeps no per-client state; every request carries what it
// needs. It is safe for concurrent use.
type Server struct {
	backend Backend
	opts    Options
	log     *slog.Logger
	methods map[string]*method
	info    implementation
	life    lifecycle
}

// NewServer returns a Server serving b.
func NewServer(b Backend, opts Options) (*Server, error) {
	if opts.Handles == nil {
		return nil, errors.New("mcp: Options.Handles is required")
	}
	if opts.PageSize < 1 || opts.PageSize > 1000 {
		return nil, errors.New("mcp: PageSize must be 1..1000")
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.ShutdownGrace <= 0 {
		opts.ShutdownGrace = DefaultShutdownGrace
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Server{backend: b, opts: opts, log: log, info: implementation{Name: opts.Name, Version: opts.Version}, life: newLifecycle()}
	s.methods = s.methodTable()
	if opts.Telemetry != nil {
		names := make([]string, 0, len(s.methods))
		for name := range s.methods {
			names = append(names, name)
		}
		slices.Sort(names)
		opts.Telemetry.attach(names)
	}
	return s, nil
}

// era is the protocol generation of one request.
type era int

const (
	modern era = iota // 2026-07-28: stateless, _meta on every request
	legacy            // 2025-xx: after initialize
	// either is /mcp's: each request is served in the era it speaks
	// (eraOf). It is an endpoint's setting, never a call's.
	either
)

// call is one request being served.
type call struct {
	ctx     context.Context
	req     *Request
	p       *params // params, read once
	era     era
	version string // the protocol version the request speaks
	id      auth.Identity
	// notify sends a request-scoped notification (progress); nil when the
	// transport cannot deliver one for this request.
	notify func(method string, params any)
	// info, set by tools/call, is what the invocation log records of a
	// child call.
	info *catalog.CallInfo
	// trace is the call's W3C trace: the caller's traceparent from _meta
	// with a span of this server's, or a new trace.
	trace catalog.Trace
	// transport is "stdio" or "http", for the metrics and the audit log.
	transport string
}

// newCall reads req's params once and returns the call to serve.
func newCall(req *Request, e era) (*call, *Error) {
	p, err := readParams(req.Params)
	if err != nil {
		return nil, err
	}
	return &call{req: req, p: p, era: e}, nil
}

// serve runs one decoded request. It returns the result to send, or an
// error to send; for notifications both are nil.
func (s *Server) serve(c *call) (any, *Error) {
	start := s.opts.Now()
	c.trace = catalog.StartTrace(c.p.meta.Traceparent)
	c.ctx = catalog.WithTrace(c.ctx, c.trace)
	s.opts.Telemetry.begin(c)
	result, err := s.dispatch(c)
	now := s.opts.Now()
	s.logCall(c, start, now, err)
	s.opts.Telemetry.end(c, start, now, result, err)
	return result, err
}

func (s *Server) dispatch(c *call) (any, *Error) {
	m, ok := s.methods[c.req.Method]
	if c.req.Notification && (!ok || !m.notification) {
		return nil, nil // unknown notifications, and requests without an id, are ignored
	}
	if !ok || !m.eras.has(c.era) {
		return nil, methodNotFound(c.req.Method)
	}
	if c.era == modern && !c.req.Notification {
		if err := checkModernMeta(c.p.meta); err != nil {
			return nil, err
		}
		if c.p.meta.ProtocolVersion != Version {
			return nil, unsupportedVersion(c.p.meta.ProtocolVersion)
		}
	}
	if err := checkScope(c); err != nil {
		return nil, err
	}
	if missing := missingCapabilities(c.p.meta.ClientCapabilities, m.requires); missing != nil && c.era == modern {
		return nil, &Error{Code: CodeMissingClientCapability, Message: "the request needs client capabilities it did not declare",
			Data: map[string]any{"requiredCapabilities": missing}}
	}
	result, err := m.handler(s, c)
	if err != nil || c.req.Notification {
		return nil, err
	}
	if f, ok := result.(interface{ fields() *resultFields }); ok {
		s.finish(c, m, f.fields())
	}
	return result, nil
}

func checkModernMeta(m requestMeta) *Error {
	switch {
	case !m.hasMeta:
		return errorf(CodeInvalidParams, "params._meta is required in MCP %s", Version)
	case !m.hasVersion:
		return errorf(CodeInvalidParams, "_meta io.modelcontextprotocol/protocolVersion is required")
	case !m.hasCaps:
		return errorf(CodeInvalidParams, "_meta io.modelcontextprotocol/clientCapabilities is required")
	}
	return nil
}

func unsupportedVersion(requested string) *Error {
	return &Error{Code: CodeUnsupportedVersion, Message: "unsupported protocol version",
		Data: map[string]any{"supported": []string{Version}, "requested": requested}}
}

func methodNotFound(method string) *Error {
	e := &Error{Code: CodeMethodNotFound, Message: "method not found"}
	switch method {
	case "initialize":
		e.Message = "initialize is not part of MCP " + Version + "; handshake-era clients use the legacy endpoint"
		e.Data = map[string]any{"supportedVersions": []string{Version}}
	}
	return e
}

// missingCapabilities returns the required client capabilities the client
// did not declare, as a ClientCapabilities object, or nil.
func missingCapabilities(declared []string, required []string) map[string]any {
	var missing map[string]any
	for _, r := range required {
		if !slices.Contains(declared, r) {
			if missing == nil {
				missing = map[string]any{}
			}
			missing[r] = map[string]any{}
		}
	}
	return missing
}

// resultFields are the members every result of an era carries. Result types
// embed it; the server fills it after the handler runs.
type resultFields struct {
	ResultType string      `json:"resultType,omitempty"`
	TTLMs      *int64      `json:"ttlMs,omitempty"`
	CacheScope string      `json:"cacheScope,omitempty"`
	Meta       *resultMeta `json:"_meta,omitempty"`
}

func (f *resultFields) fields() *resultFields { return f }

type resultMeta struct {
	ServerInfo *implementation `json:"io.modelcontextprotocol/serverInfo,omitempty"`
}

type implementation struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// finish adds the era's mandatory result members: resultType, serverInfo
// and, for cacheable results, the cache hints.
func (s *Server) finish(c *call, m *method, f *resultFields) {
	if c.era != modern {
		return
	}
	f.ResultType = "complete"
	f.Meta = &resultMeta{ServerInfo: &s.info}
	if m.cache != nil {
		ttl := m.cache.ttl.Milliseconds()
		f.TTLMs = &ttl
		f.CacheScope = m.cache.scope
	}
}

// logCall writes the one log line of a request: method, duration and
// outcome, and for a child call its name, request id, outcome code and
// argument names (never values, never backend text).
func (s *Server) logCall(c *call, start, now time.Time, err *Error) {
	level := slog.LevelInfo
	if !s.log.Enabled(c.ctx, level) {
		return
	}
	attrs := make([]slog.Attr, 0, 11)
	attrs = append(attrs, slog.String("method", c.req.Method),
		slog.Float64("duration_ms", float64(now.Sub(start).Microseconds())/1000))
	if !c.req.ID.IsZero() {
		attrs = append(attrs, slog.String("request_id", truncate(c.req.ID.String(), 128)))
	}
	if name := callTarget(c); name != "" {
		attrs = append(attrs, slog.String("target", name))
	}
	if ci := c.info; ci != nil {
		attrs = append(attrs, slog.String("child", ci.Child), slog.String("call_id", ci.RequestID),
			slog.String("outcome", ci.Outcome), slog.Any("argument_names", ci.ArgumentNames))
		if ci.Reason != "" {
			attrs = append(attrs, slog.String("reason", ci.Reason))
		}
	}
	if err != nil {
		attrs = append(attrs, slog.Int("error_code", err.Code))
		level = slog.LevelWarn
	}
	attrs = append(attrs, slog.String("trace_id", c.trace.ID))
	s.log.LogAttrs(c.ctx, level, "mcp request", attrs...)
}

// callTarget returns params.name (tools/call, prompts/get) or params.uri
// (resources/read) for the log. Arguments never are.
func callTarget(c *call) string {
	if c.p == nil {
		return ""
	}
	if n, _ := str(c.p.name, "name", false); n != "" {
		return truncate(n, 128)
	}
	u, _ := str(c.p.uri, "uri", false)
	return truncate(u, 256)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n]
}
