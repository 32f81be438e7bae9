package catalog

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/kaptinlin/jsonschema"

	"github.com/doris-mcp/doris-mcp-server/auth"
	"github.com/doris-mcp/doris-mcp-server/doris"
)

// CallTool runs a tools/call. Protocol-level failures (no such tool for this
// caller) are errors; everything that reached a domain comes back as an
// envelope: a manifest, a result, or a deterministic error.
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
	if v := validate(d.input, args); len(v) > 0 {
		return (&errorEnvelope{Mode: "error", Domain: d.Name, Error: envelopeError{
			Code: CodeArgumentsInvalid, Message: "the domain call does not match its input schema: use {} to discover, or child_tool with arguments",
			Details: errorDetails{Violations: v},
		}}).result(), nil
	}
	var outer struct {
		ChildTool       string          `json:"child_tool"`
		Arguments       json.RawMessage `json:"arguments"`
		ManifestVersion string          `json:"manifest_version"`
	}
	if err := json.Unmarshal(args, &outer); err != nil {
		return nil, fmt.Errorf("catalog: validated domain arguments did not decode: %w", err)
	}
	if outer.ChildTool == "" {
		return s.discover(ctx, id, d), nil
	}
	if outer.Arguments == nil {
		outer.Arguments = json.RawMessage("{}")
	}
	return s.execChild(ctx, id, d, outer.ChildTool, outer.Arguments, outer.ManifestVersion, progress), nil
}

// execChild is the exact dispatcher: resolve, authorize, rebuild the
// manifest, reject a stale generation or a non-callable child, validate
// the arguments, run the handler, validate its output, wrap it.
func (s *Surface) execChild(ctx context.Context, id auth.Identity, d *compiledDomain, child string, args json.RawMessage, wantVersion string, progress Progress) *ToolResult {
	start := s.now()
	reqID := newRequestID()
	fail := func(code, msg string, retryable bool, det errorDetails) *ToolResult {
		s.audit(ctx, d.Name, child, args, reqID, start, code)
		return (&errorEnvelope{Mode: "error", Domain: d.Name, ChildTool: child,
			Error: envelopeError{Code: code, Message: msg, Retryable: retryable, Details: det}}).result()
	}
	var ch *compiledChild
	for _, c := range d.children {
		if c.Name == child {
			ch = c
			break
		}
	}
	// An unknown child and one the caller may not see or run are the same
	// answer: the name is not disclosed.
	if ch == nil || !id.CanDiscover(d.Name, child) || !id.CanCall(d.Name, child) {
		return fail(CodeToolNotFound, "no such child in this domain; call the domain with {} to discover its children", false,
			errorDetails{Rediscover: true})
	}
	m := s.buildManifest(ctx, id, d)
	if wantVersion != "" && wantVersion != m.version {
		s.audit(ctx, d.Name, child, args, reqID, start, CodeManifestStale)
		return (&errorEnvelope{Mode: "error", Domain: d.Name, ChildTool: child, ManifestVersion: m.version,
			Error: envelopeError{Code: CodeManifestStale, Message: "the manifest changed since discovery; rediscover the domain and use the new manifest_version",
				Retryable: true, Details: errorDetails{Rediscover: true}}}).result()
	}
	entry := m.entry(child)
	avail := entry.Availability
	if !avail.Callable {
		return fail(CodeCapabilityUnavailable, "this child cannot run now: "+strings.ToLower(strings.ReplaceAll(avail.ReasonCode, "_", " ")),
			transientReason(avail.ReasonCode), errorDetails{Rediscover: true, ReasonCode: avail.ReasonCode})
	}
	handler := s.rt.Handler(d.Name, child)
	if handler == nil {
		return fail(CodeCapabilityUnavailable, "this child is not implemented by this build", false,
			errorDetails{Rediscover: true, ReasonCode: "HANDLER_NOT_BOUND"})
	}
	if v := validate(ch.input, args); len(v) > 0 {
		return fail(CodeArgumentsInvalid, "the arguments do not match the child's input schema", false,
			errorDetails{Violations: v})
	}
	callCtx, cancel := context.WithTimeout(ctx, s.cfg.CallTimeout)
	defer cancel()
	res, err := runHandler(callCtx, handler, &doris.Call{
		Domain: d.Name, Child: child, Identity: id, Args: args,
		Variant: avail.ActiveVariant, Snapshot: m.snap, Progress: progress,
	})
	if err != nil {
		code, msg, retryable, det := classify(err, callCtx)
		if code == CodeExecutionFailed || code == CodeExecutionTimeout {
			s.log.LogAttrs(ctx, slog.LevelWarn, "child failed", slog.String("request_id", reqID),
				slog.String("child", d.Name+"."+child), slog.String("reason", det.ReasonCode), slog.Any("err", err))
		}
		return fail(code, msg, retryable, det)
	}
	cr := childResult{Status: res.Status, Data: res.Data, Warnings: uniq(res.Warnings),
		Metadata: map[string]any{"active_variant": avail.ActiveVariant}}
	if cr.Status == "" {
		cr.Status = "success"
	}
	if cr.Warnings == nil {
		cr.Warnings = []string{}
	}
	if res.Masking != nil {
		cr.Metadata["masking"] = res.Masking
	}
	if res.Evidence != nil {
		cr.Evidence = res.Evidence
	} else if ch.Family == Diagnostic {
		cr.Evidence = []map[string]any{} // required, even when empty
	}
	data, err := json.Marshal(cr)
	if err != nil {
		s.log.Error("child result did not encode", "request_id", reqID, "child", d.Name+"."+child, "err", err)
		return fail(CodeResultInvalid, "the child produced a result that could not be encoded", false, errorDetails{})
	}
	// The result was produced within the runtime's row and byte budgets,
	// so only its schema is checked, not the argument instance limits.
	if v := schemaViolations(ch.output, data); len(v) > 0 {
		s.log.Error("child result violates its output schema", "request_id", reqID, "child", d.Name+"."+child, "violations", v)
		return fail(CodeResultInvalid, "the child produced a result that does not match its output schema", false,
			errorDetails{Violations: v})
	}
	source := res.Source
	if source == "" {
		source = "doris_mysql"
	}
	env := resultEnvelope{
		Mode: "result", Domain: d.Name, ChildTool: child, ManifestVersion: m.version, Data: data,
		Metadata: resultMetadata{RequestID: reqID, DurationMs: msSince(s.now(), start), Source: source, Truncated: res.Truncated},
		Warnings: cr.Warnings,
	}
	b, _ := json.Marshal(env)
	s.audit(ctx, d.Name, child, args, reqID, start, "OK")
	return &ToolResult{Structured: b}
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

// classify maps a runtime failure to the error envelope.
func classify(err error, ctx context.Context) (code, msg string, retryable bool, det errorDetails) {
	var de *doris.Error
	if errors.As(err, &de) {
		det = errorDetails{ReasonCode: de.Reason, StatusCode: de.Status, Position: de.Position}
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

// validate checks caller-supplied arguments: first the instance limits,
// which bound the work a hostile document can cause, then the schema.
func validate(schema *jsonschema.Schema, doc []byte) []violation {
	if err := instanceLimits(doc); err != nil {
		return []violation{{InstancePath: "", Keyword: err.Error()}}
	}
	return schemaViolations(schema, doc)
}

// schemaViolations returns at most maxViolations violations, sorted, with
// paths and keywords only.
func schemaViolations(schema *jsonschema.Schema, doc []byte) []violation {
	res := schema.ValidateJSON(doc)
	if res.IsValid() {
		return nil
	}
	seen := map[violation]bool{}
	var out []violation
	var walk func(r *jsonschema.EvaluationResult)
	walk = func(r *jsonschema.EvaluationResult) {
		for kw := range r.Errors {
			v := violation{InstancePath: r.InstanceLocation, Keyword: kw}
			if !seen[v] {
				seen[v] = true
				out = append(out, v)
			}
		}
		for _, d := range r.Details {
			walk(d)
		}
	}
	walk(res)
	sort.Slice(out, func(i, j int) bool {
		if out[i].InstancePath != out[j].InstancePath {
			return out[i].InstancePath < out[j].InstancePath
		}
		return out[i].Keyword < out[j].Keyword
	})
	if len(out) == 0 {
		out = []violation{{Keyword: "schema"}}
	}
	if len(out) > maxViolations {
		out = out[:maxViolations]
	}
	return out
}

// audit writes the invocation log line: who called what, how it ended and
// how long it took. Argument names only, never their values.
func (s *Surface) audit(ctx context.Context, domain, child string, args json.RawMessage, reqID string, start time.Time, outcome string) {
	var m map[string]json.RawMessage
	json.Unmarshal(args, &m)
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, truncateName(k))
	}
	slices.Sort(names)
	s.log.LogAttrs(ctx, slog.LevelInfo, "tool call",
		slog.String("event", "mcp.tool.call."+domain+"."+truncateName(child)),
		slog.String("request_id", reqID),
		slog.Any("argument_names", names),
		slog.String("outcome", outcome),
		slog.Float64("duration_ms", msSince(s.now(), start)))
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
