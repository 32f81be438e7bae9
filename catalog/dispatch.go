package catalog

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/doris-mcp/doris-mcp-server/auth"
	"github.com/doris-mcp/doris-mcp-server/doris"
	"github.com/doris-mcp/doris-mcp-server/doris/schema"
)

// argumentLimits bound the work one argument document may cause, whatever
// its schema says.
var argumentLimits = schema.Limits{MaxDepth: 32, MaxNodes: 10000}

// CallTool runs a tools/call. Protocol-level failures (no such tool for this
// caller) are errors; everything that reached a domain comes back as an
// envelope: a manifest, a result, or a deterministic error. The arguments
// are read once, in place: the domain's three members by hand, the child's
// arguments by its compiled schema.
func (s *Surface) CallTool(ctx context.Context, id auth.Identity, name string, args json.RawMessage, progress Progress) (*ToolResult, error) {
	tg, ok := s.byTool[name]
	if !ok {
		return nil, ErrToolNotFound
	}
	if tg.child != nil { // flat
		if !id.CanDiscover(tg.domain.Name, tg.child.Name) {
			return nil, ErrToolNotFound
		}
		return s.execChild(ctx, id, tg.domain, tg.child.Name, args, "", progress), nil
	}
	d := tg.domain
	outer, v := decodeDomainCall(args)
	if len(v) > 0 {
		return (&errorEnvelope{Mode: "error", Domain: d.Name, Error: envelopeError{
			Code: CodeArgumentsInvalid, Message: "the domain call is malformed: " + v[0].Message +
				" (call with {} to discover, or with child_tool and arguments)",
			Details: errorDetails{Violations: v}, TraceID: traceID(ctx),
		}}).result(), nil
	}
	if outer.child == "" {
		return s.discover(ctx, id, d), nil
	}
	if outer.arguments == nil {
		outer.arguments = json.RawMessage("{}")
	}
	return s.execChild(ctx, id, d, outer.child, outer.arguments, outer.manifestVersion, progress), nil
}

// domainCall is the input of a domain tool in hierarchical mode.
type domainCall struct {
	child, manifestVersion string
	arguments              json.RawMessage
}

// decodeDomainCall reads {child_tool?, arguments?, manifest_version?}, the
// domain input schema, by hand: it is small, fixed and on every call.
func decodeDomainCall(args json.RawMessage) (domainCall, []schema.Violation) {
	var dc domainCall
	var v []schema.Violation
	bad := func(path, kw, msg string) {
		v = append(v, schema.Violation{InstancePath: path, Keyword: kw, Message: msg})
	}
	if schema.KindOf(args) != schema.Object {
		bad("", "type", "the arguments must be an object")
		return dc, v
	}
	var hasChild, hasArgs, hasVersion bool
	str := func(name string, val []byte) string {
		s, ok := schema.Str(val)
		switch {
		case !ok:
			bad("/"+name, "type", name+" must be a string")
		case s == "":
			bad("/"+name, "minLength", name+" must not be empty")
		case len(s) > 128:
			bad("/"+name, "maxLength", name+" is longer than 128 characters")
		}
		return s
	}
	err := schema.Members(args, func(name string, val []byte) error {
		switch name {
		case "child_tool":
			hasChild, dc.child = true, str(name, val)
		case "manifest_version":
			hasVersion, dc.manifestVersion = true, str(name, val)
		case "arguments":
			hasArgs = true
			if schema.KindOf(val) != schema.Object {
				bad("/arguments", "type", "arguments must be an object")
			}
			dc.arguments = json.RawMessage(val)
		default:
			msg := "a member is not a known argument of a domain tool (child_tool, arguments, manifest_version)"
			if len(name) <= 64 {
				msg = fmt.Sprintf("%q is not a known argument of a domain tool (child_tool, arguments, manifest_version)", name)
			}
			bad("", "additionalProperties", msg)
		}
		return nil
	})
	if err != nil {
		return dc, []schema.Violation{{Keyword: "json", Message: "the arguments are not well-formed JSON"}}
	}
	if !hasChild && (hasArgs || hasVersion) {
		bad("", "dependentRequired", "child_tool is required with arguments or manifest_version")
	}
	if len(v) > maxViolations {
		v = v[:maxViolations]
	}
	return dc, v
}

// execChild is the exact dispatcher: resolve, authorize, rebuild the
// manifest, reject a stale generation or a non-callable child, validate
// the arguments, run the handler, wrap its result.
func (s *Surface) execChild(ctx context.Context, id auth.Identity, d *compiledDomain, child string, args json.RawMessage, wantVersion string, progress Progress) *ToolResult {
	x := &execution{s: s, d: d, child: child, start: s.now(), reqID: newRequestID(), traceID: traceID(ctx)}
	ch := d.child(child)
	// An unknown child and one the caller may not see or run are the same
	// answer: the name is not disclosed.
	if ch == nil || !id.CanDiscover(d.Name, child) || !id.CanCall(d.Name, child) {
		return x.fail(CodeToolNotFound, "no such child in this domain; call the domain with {} to discover its children", false,
			errorDetails{Rediscover: true})
	}
	input, err := ch.inputSchema()
	if err != nil {
		s.log.Error("contract schema does not compile", "child", d.Name+"."+child, "err", err)
		return x.fail(CodeResultInvalid, "this child's contract is broken in this build", false, errorDetails{ReasonCode: "CONTRACT_INVALID"})
	}
	m := s.buildManifest(ctx, id, d)
	if wantVersion != "" && wantVersion != m.version {
		x.manifestVersion = m.version
		return x.fail(CodeManifestStale, "the manifest changed since discovery; rediscover the domain and use the new manifest_version",
			true, errorDetails{Rediscover: true})
	}
	avail := m.entry(child).Availability
	if !avail.Callable {
		return x.fail(CodeCapabilityUnavailable, "this child cannot run now: "+strings.ToLower(strings.ReplaceAll(avail.ReasonCode, "_", " ")),
			transientReason(avail.ReasonCode), errorDetails{Rediscover: true, ReasonCode: avail.ReasonCode})
	}
	handler := s.rt.Handler(d.Name, child)
	if handler == nil {
		return x.fail(CodeCapabilityUnavailable, "this child is not implemented by this build", false,
			errorDetails{Rediscover: true, ReasonCode: "HANDLER_NOT_BOUND"})
	}
	if v := input.Validate(args, argumentLimits, maxViolations); len(v) > 0 {
		return x.fail(CodeArgumentsInvalid, "the arguments do not match the child's input schema: "+v[0].Message, false,
			errorDetails{Violations: v})
	}
	x.argNames = memberNames(args)
	callCtx, cancel := context.WithTimeout(ctx, s.cfg.CallTimeout)
	defer cancel()
	res, err := runHandler(callCtx, handler, &doris.Call{
		Domain: d.Name, Child: child, Identity: id, Args: args,
		Variant: avail.ActiveVariant, Snapshot: m.snap, Progress: progress,
	})
	if err != nil {
		code, msg, retryable, det := classify(err, callCtx)
		r := x.fail(code, msg, retryable, det)
		r.Call.GuardReason = doris.GuardReason(err) // metrics
		return r
	}
	return x.result(ch, m.version, avail.ActiveVariant, res)
}

// execution is one child call on its way to an envelope.
type execution struct {
	s               *Surface
	d               *compiledDomain
	child           string
	start           time.Time
	reqID           string
	manifestVersion string
	argNames        []string
	traceID         string // the call's trace id, or ""
}

func (x *execution) info(outcome, reason string) *CallInfo {
	return &CallInfo{Child: x.d.Name + "." + x.child, RequestID: x.reqID, Outcome: outcome, Reason: reason, ArgumentNames: x.argNames}
}

func (x *execution) fail(code, msg string, retryable bool, det errorDetails) *ToolResult {
	r := (&errorEnvelope{Mode: "error", Domain: x.d.Name, ChildTool: x.child, ManifestVersion: x.manifestVersion,
		Error: envelopeError{Code: code, Message: msg, Retryable: retryable, Details: det, TraceID: x.traceID}}).result()
	r.Call = x.info(code, det.ReasonCode)
	return r
}

// result wraps a handler's result in the envelope, written by hand: the
// child's data is rendered once (rows were rendered while they streamed)
// and copied in, never re-encoded.
func (x *execution) result(ch *compiledChild, manifestVersion, variant string, res *doris.Result) *ToolResult {
	data, err := childResultJSON(ch, variant, res)
	if err != nil {
		x.s.log.Error("child result did not encode", "request_id", x.reqID, "child", x.d.Name+"."+x.child, "err", err)
		return x.fail(CodeResultInvalid, "the child produced a result that could not be encoded", false, errorDetails{})
	}
	// Handlers are held to their output schemas by the tests (and in
	// production only when MCP_VALIDATE_RESULTS asks for it): a result is
	// the server's own output, not a boundary.
	if x.s.cfg.ValidateResults {
		output, err := ch.outputSchema()
		if err != nil {
			x.s.log.Error("contract schema does not compile", "child", x.d.Name+"."+x.child, "err", err)
			return x.fail(CodeResultInvalid, "this child's contract is broken in this build", false, errorDetails{ReasonCode: "CONTRACT_INVALID"})
		}
		if v := output.Validate(data, schema.Limits{}, maxViolations); len(v) > 0 {
			x.s.log.Error("child result violates its output schema", "request_id", x.reqID, "child", x.d.Name+"."+x.child, "violations", v)
			return x.fail(CodeResultInvalid, "the child produced a result that does not match its output schema", false,
				errorDetails{Violations: v})
		}
	}
	source := res.Source
	if source == "" {
		source = "doris_mysql"
	}
	b := make([]byte, 0, len(data)+320) // room for the envelope around data, trace_id included
	b = append(b, `{"mode":"result","domain":`...)
	b = appendQuoted(b, x.d.Name)
	b = append(b, `,"child_tool":`...)
	b = appendQuoted(b, x.child)
	if manifestVersion != "" {
		b = append(b, `,"manifest_version":`...)
		b = appendQuoted(b, manifestVersion)
	}
	b = append(b, `,"data":`...)
	b = append(b, data...)
	meta, _ := json.Marshal(resultMetadata{RequestID: x.reqID, DurationMs: msSince(x.s.now(), x.start), Source: source,
		Truncated: res.Truncated, TraceID: x.traceID})
	b = append(b, `,"metadata":`...)
	b = append(b, meta...)
	b = append(b, `,"warnings":`...)
	b = appendStrings(b, uniq(res.Warnings))
	b = append(b, '}')
	info := x.info("OK", "")
	info.Truncated, info.Rows = res.Truncated, doris.ResultRows(res)
	return &ToolResult{Structured: b, Call: info}
}

// childResultJSON renders the child's own result:
// {"status","data","warnings","metadata"[,"evidence"]}.
func childResultJSON(ch *compiledChild, variant string, res *doris.Result) ([]byte, error) {
	status := res.Status
	if status == "" {
		status = "success"
	}
	b := make([]byte, 0, 512)
	b = append(b, `{"status":`...)
	b = appendQuoted(b, status)
	b = append(b, `,"data":`...)
	if a, ok := res.Data.(doris.JSONAppender); ok {
		b = a.AppendJSON(b)
	} else {
		d, err := json.Marshal(res.Data)
		if err != nil {
			return nil, err
		}
		b = append(b, d...)
	}
	b = append(b, `,"warnings":`...)
	b = appendStrings(b, uniq(res.Warnings))
	b = append(b, `,"metadata":{"active_variant":`...)
	b = appendQuoted(b, variant)
	if res.Masking != nil {
		m, err := json.Marshal(res.Masking)
		if err != nil {
			return nil, err
		}
		b = append(b, `,"masking":`...)
		b = append(b, m...)
	}
	b = append(b, '}')
	switch {
	case res.Evidence != nil:
		ev, err := json.Marshal(res.Evidence)
		if err != nil {
			return nil, err
		}
		b = append(b, `,"evidence":`...)
		b = append(b, ev...)
	case ch.Family == Diagnostic:
		b = append(b, `,"evidence":[]`...) // required, even when empty
	}
	return append(b, '}'), nil
}

// appendStrings appends a JSON array of strings ([] for none).
func appendStrings(b []byte, ss []string) []byte {
	b = append(b, '[')
	for i, s := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendQuoted(b, s)
	}
	return append(b, ']')
}

// child returns the enabled child of that name, or nil.
func (d *compiledDomain) child(name string) *compiledChild {
	for _, c := range d.children {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// memberNames lists an object's member names for the invocation log
// (names only, never values), each cut to 64 bytes.
func memberNames(obj []byte) []string {
	names := make([]string, 0, 8)
	schema.Members(obj, func(name string, _ []byte) error {
		names = append(names, truncateName(name))
		return nil
	})
	return names
}

// runHandler runs h, turning a panic into an error: a bug in one child must
// never take the server down.
func runHandler(ctx context.Context, h doris.Handler, c *doris.Call) (res *doris.Result, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("catalog: handler panic: %v\n%s", r, debug.Stack())
		}
	}()
	res, err = h(ctx, c)
	if err == nil && res == nil {
		err = errors.New("catalog: handler returned no result")
	}
	return res, err
}

// classify maps a runtime failure to the error envelope: the error kind
// decides the code, the runtime's reason, status and retryability travel
// as they are.
func classify(err error, ctx context.Context) (code, msg string, retryable bool, det errorDetails) {
	var de *doris.Error
	if errors.As(err, &de) {
		det = errorDetails{ReasonCode: de.Reason, StatusCode: de.Status, Position: de.Position, Object: de.Object}
		switch de.Kind {
		case doris.KindArguments:
			return CodeArgumentsInvalid, de.Message, false, det
		case doris.KindTimeout:
			return CodeExecutionTimeout, de.Message, de.Retryable, det
		}
		return CodeExecutionFailed, de.Message, de.Retryable, det
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return CodeExecutionTimeout, "the call exceeded the server's time limit", true,
			errorDetails{ReasonCode: "CALL_TIMEOUT", StatusCode: 504}
	}
	if errors.Is(ctx.Err(), context.Canceled) {
		return CodeExecutionFailed, "the call was cancelled", true, errorDetails{ReasonCode: "CALL_CANCELLED", StatusCode: 499}
	}
	return CodeExecutionFailed, "internal error", false, errorDetails{ReasonCode: "INTERNAL_ERROR", StatusCode: 500}
}

// transientReason reports availability reasons that may clear on their own.
func transientReason(reason string) bool {
	switch reason {
	case doris.ReasonConnectionFailed, doris.ReasonSnapshotUnavailable, "CAPABILITY_PROBE_TIMEOUT", "CAPABILITY_PROBE_PENDING":
		return true
	}
	return false
}

// traceID is the call's W3C trace id (doris/trace.go), or "".
func traceID(ctx context.Context) string {
	t, _ := doris.TraceFrom(ctx)
	return t.ID
}

func truncateName(s string) string {
	if len(s) > 64 {
		return s[:64]
	}
	return s
}

func uniq(ws []string) []string {
	var out []string
	for _, w := range ws {
		if !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return out
}

func msSince(now, start time.Time) float64 {
	return float64(now.Sub(start).Microseconds()) / 1000
}
