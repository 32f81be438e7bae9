package mcp

import (
	"encoding/json"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/doris-mcp/doris-mcp-server/catalog"
	"github.com/doris-mcp/doris-mcp-server/mcp/metrics"
)

// Telemetry observes every request the server serves: the call metrics of
// GET /metrics and the invocation audit log. It is optional (nil: off)
// and never fails or slows a call beyond atomic adds and, with the audit
// log on, one encoded line handed to a queue.
type Telemetry struct {
	o    TelemetryOptions
	once sync.Once

	// Label sets, fixed at attach.
	methods, codes, children, outcomes, domains, reasons, transports, statuses *metrics.Labels

	requests    *metrics.CounterVec   // method, code
	reqDuration *metrics.HistogramVec // method
	inFlight    [3]atomic.Int64       // by transport index (writeInFlight)
	calls       *metrics.CounterVec   // child, outcome
	callDur     *metrics.HistogramVec // child
	rows, bytes *metrics.CounterVec   // child
	truncated   *metrics.CounterVec   // child
	discoveries *metrics.CounterVec   // domain
	refusals    *metrics.CounterVec   // guard reason
	httpRefused *metrics.CounterVec   // status
}

// TelemetryOptions configure Telemetry.
type TelemetryOptions struct {
	// Registry receives the call metrics; nil: no metrics.
	Registry *metrics.Registry
	// Audit receives one JSON line per request; nil: no audit log.
	Audit AuditSink
	// AuditArguments adds each tool call's arguments to its audit line,
	// through Redact (AUDIT_LOG_ARGUMENTS=redacted).
	AuditArguments bool
	// Redact masks arguments for the audit line and says whether it
	// shortened them; required with AuditArguments.
	Redact func(json.RawMessage) (json.RawMessage, bool)
}

// AuditSink takes audit lines without blocking (package mcp/audit).
type AuditSink interface {
	// Write queues one line (it is copied); it never blocks or fails.
	Write(line []byte)
	// Close writes what is queued and closes the log.
	Close() error
}

// NewTelemetry returns the telemetry to give Options.Telemetry.
func NewTelemetry(o TelemetryOptions) *Telemetry { return &Telemetry{o: o} }

// transports are the values of the transport label and audit field.
var transports = []string{"stdio", "http"}

// rpcCodes are the JSON-RPC error codes the server answers with.
var rpcCodes = []int{CodeParseError, CodeInvalidRequest, CodeMethodNotFound, CodeInvalidParams, CodeInternalError,
	CodeHeaderMismatch, CodeMissingClientCapability, CodeUnsupportedVersion}

// attach builds the label sets from the server's method table and
// registers the call metrics; once per Telemetry.
func (t *Telemetry) attach(methods []string) {
	t.once.Do(func() {
		codes := []string{"ok"}
		for _, c := range rpcCodes {
			codes = append(codes, strconv.Itoa(c))
		}
		t.methods = metrics.NewLabels("method", methods)
		t.codes = metrics.NewLabels("code", codes)
		t.children = metrics.NewLabels("child", catalog.ChildNames())
		t.outcomes = metrics.NewLabels("outcome", catalog.Outcomes())
		t.domains = metrics.NewLabels("domain", catalog.DomainNames())
		t.reasons = metrics.NewLabels("reason", catalog.GuardReasons())
		t.transports = metrics.NewLabels("transport", transports)
		t.statuses = metrics.NewLabels("status", []string{"400", "401", "403", "404", "405", "406", "413", "415", "429", "503"})
		r := t.o.Registry
		if r == nil {
			r = metrics.NewRegistry() // counted but not served
		}
		t.requests = r.Counter("doris_mcp_requests_total",
			"MCP requests served, by JSON-RPC method and outcome (ok, or the JSON-RPC error code).", false, t.methods, t.codes)
		t.reqDuration = r.Histogram("doris_mcp_request_duration_seconds",
			"Time to serve an MCP request, by JSON-RPC method, in seconds.", nil, t.methods)
		r.Collect("doris_mcp_requests_in_flight", t.writeInFlight)
		t.calls = r.Counter("doris_mcp_tool_calls_total",
			"Child tool calls, by domain.child and envelope outcome (OK or the error code).", false, t.children, t.outcomes)
		t.callDur = r.Histogram("doris_mcp_tool_call_duration_seconds",
			"Time to serve a child tool call, by domain.child, in seconds.", nil, t.children)
		t.rows = r.Counter("doris_mcp_tool_result_rows_total",
			"Data rows returned by child calls (query rows, collection items), by domain.child.", false, t.children)
		t.bytes = r.Counter("doris_mcp_tool_result_bytes_total",
			"Bytes of child call envelopes returned, by domain.child.", false, t.children)
		t.truncated = r.Counter("doris_mcp_tool_results_truncated_total",
			"Child call results cut by a row or byte budget, by domain.child.", false, t.children)
		t.discoveries = r.Counter("doris_mcp_tool_discoveries_total",
			"Domain discoveries (a domain tool called with {}), by domain.", false, t.domains)
		t.refusals = r.Counter("doris_mcp_guard_refusals_total",
			"Calls whose SQL the read-only guard refused, by the guard's reason.", false, t.reasons)
		t.httpRefused = r.Counter("doris_mcp_http_requests_refused_total",
			"HTTP requests to an MCP endpoint refused before they were served (Host or Origin, authentication, "+
				"media types, headers, size), by HTTP status.", false, t.statuses)
	})
}

// writeInFlight writes the in-flight gauge.
func (t *Telemetry) writeInFlight(w *metrics.Writer) {
	w.Family("doris_mcp_requests_in_flight", "MCP requests being served now, by transport.", "gauge")
	for i := 0; i < t.transports.Len(); i++ {
		w.Sample("doris_mcp_requests_in_flight", float64(t.inFlight[i].Load()), "transport", t.transports.Value(i))
	}
}

// begin counts a request in flight.
func (t *Telemetry) begin(c *call) {
	if t == nil {
		return
	}
	t.inFlight[t.transports.Index(c.transport)].Add(1)
}

// end records a served request: metrics, then its audit line.
func (t *Telemetry) end(c *call, start, now time.Time, result any, rerr *Error) {
	if t == nil {
		return
	}
	t.inFlight[t.transports.Index(c.transport)].Add(-1)
	d := now.Sub(start)
	m := t.methods.Index(c.req.Method)
	code := 0 // "ok"
	if rerr != nil {
		code = t.codes.Index(strconv.Itoa(rerr.Code))
	}
	t.requests.Inc2(m, code)
	t.reqDuration.Observe1(m, d)
	size, isErr := 0, false
	if r, ok := result.(*callToolResult); ok {
		size, isErr = len(r.StructuredContent), r.IsError
	}
	if ci := c.info; ci != nil {
		ch := t.children.Index(ci.Child)
		t.calls.Inc2(ch, t.outcomes.Index(ci.Outcome))
		t.callDur.Observe1(ch, d)
		t.rows.Add1(ch, uint64(ci.Rows))
		t.bytes.Add1(ch, uint64(size))
		if ci.Truncated {
			t.truncated.Inc1(ch)
		}
		if ci.GuardReason != "" {
			t.refusals.Inc1(t.reasons.Index(ci.GuardReason))
		}
	} else if c.req.Method == "tools/call" && rerr == nil && size > 0 {
		if isErr {
			// A malformed domain call: refused before any child.
			t.calls.Inc2(t.children.Index(metrics.Other), t.outcomes.Index(catalog.CodeArgumentsInvalid))
		} else if name, _ := str(c.p.name, "name", false); name != "" {
			t.discoveries.Inc1(t.domains.Index(name))
		}
	}
	if t.o.Audit != nil && !c.req.Notification {
		t.o.Audit.Write(t.auditLine(c, start, d, size, isErr, rerr))
	}
}

// refused counts an HTTP request refused before it was served.
func (t *Telemetry) refused(status int) {
	if t == nil {
		return
	}
	t.httpRefused.Inc1(t.statuses.Index(strconv.Itoa(status)))
}

// auditLine renders one invocation audit line (see the README's
// "Metrics, audit log and trace ids"): never a token, an argument value
// (unless redacted arguments are on) or backend text.
func (t *Telemetry) auditLine(c *call, start time.Time, d time.Duration, size int, isErr bool, rerr *Error) []byte {
	b := make([]byte, 0, 512)
	b = append(b, `{"time":`...)
	b = appendJSONString(b, start.UTC().Format("2006-01-02T15:04:05.000Z07:00"))
	b = append(b, `,"principal":`...)
	b = appendJSONString(b, truncate(principal(c), 256))
	b = append(b, `,"transport":`...)
	b = appendJSONString(b, transportName(c.transport))
	b = append(b, `,"method":`...)
	b = appendJSONString(b, truncate(c.req.Method, 128))
	if name := callTarget(c); name != "" {
		b = append(b, `,"target":`...)
		b = appendJSONString(b, name)
	}
	ci := c.info
	if ci != nil {
		b = append(b, `,"child":`...)
		b = appendJSONString(b, ci.Child)
	}
	b = append(b, `,"duration_ms":`...)
	b = strconv.AppendFloat(b, float64(d.Microseconds())/1000, 'f', -1, 64)
	outcome := "ok"
	if rerr != nil || isErr || ci != nil && ci.Outcome != "OK" {
		outcome = "error"
	}
	b = append(b, `,"outcome":`...)
	b = appendJSONString(b, outcome)
	switch {
	case rerr != nil:
		b = append(b, `,"code":`...)
		b = appendJSONString(b, "JSONRPC_"+strconv.Itoa(rerr.Code))
		b = append(b, `,"rpc_error":`...)
		b = strconv.AppendInt(b, int64(rerr.Code), 10)
	case ci != nil:
		b = append(b, `,"code":`...)
		b = appendJSONString(b, ci.Outcome)
		if ci.Reason != "" {
			b = append(b, `,"reason":`...)
			b = appendJSONString(b, ci.Reason)
		}
	case isErr:
		b = append(b, `,"code":`...)
		b = appendJSONString(b, catalog.CodeArgumentsInvalid)
	}
	rows, truncated := 0, false
	if ci != nil {
		rows, truncated = ci.Rows, ci.Truncated
	}
	b = append(b, `,"rows":`...)
	b = strconv.AppendInt(b, int64(rows), 10)
	b = append(b, `,"bytes":`...)
	b = strconv.AppendInt(b, int64(size), 10)
	b = append(b, `,"truncated":`...)
	b = strconv.AppendBool(b, truncated)
	if !c.req.ID.IsZero() {
		b = append(b, `,"request_id":`...)
		b = appendJSONString(b, truncate(c.req.ID.String(), 128))
	}
	if ci != nil {
		b = append(b, `,"call_id":`...)
		b = appendJSONString(b, ci.RequestID)
		b = append(b, `,"argument_names":[`...)
		for i, n := range ci.ArgumentNames {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, n)
		}
		b = append(b, ']')
	}
	b = append(b, `,"trace_id":`...)
	b = appendJSONString(b, c.trace.ID)
	if t.o.AuditArguments && t.o.Redact != nil && ci != nil && c.p.arguments != nil {
		args, cut := t.o.Redact(json.RawMessage(c.p.arguments))
		b = append(b, `,"arguments":`...)
		b = append(b, args...)
		if cut {
			b = append(b, `,"arguments_truncated":true`...)
		}
	}
	return append(b, '}', '\n')
}

// principal identifies who made the call: the authentication method and
// the principal's subject (a token id, a JWT subject, a Doris user),
// never a credential.
func principal(c *call) string {
	if c.id.Subject == "" {
		return c.id.Method
	}
	return c.id.Method + ":" + c.id.Subject
}

func transportName(t string) string {
	if t == "" {
		return "unknown"
	}
	return t
}

// Close writes what the invocation audit log still holds and closes it.
func (s *Server) Close() error {
	if t := s.opts.Telemetry; t != nil && t.o.Audit != nil {
		return t.o.Audit.Close()
	}
	return nil
}

// Telemetry returns the server's telemetry (nil when it has none).
func (s *Server) Telemetry() *Telemetry { return s.opts.Telemetry }

// Registry returns the registry the call metrics are in, or nil.
func (t *Telemetry) Registry() *metrics.Registry {
	if t == nil {
		return nil
	}
	return t.o.Registry
}
