package semanticprovider

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"sync"
)

// ProtocolVersion is the sidecar protocol the provider speaks.
const ProtocolVersion = "doris-mcp-metricflow/v1"

// Dialect is the only SQL dialect the provider writes.
const Dialect = "doris"

// Protocol bounds.
const (
	// MaxRequestBytes bounds the request read from stdin.
	MaxRequestBytes = 1 << 20
	// MaxResponseBytes bounds the response; collections are cut to fit
	// (with truncated=true), below the server's default output limit.
	MaxResponseBytes = 1 << 20
)

var requestLimits = jsonLimits{maxDepth: 16, maxString: 64 << 10, maxValues: 20000}

var reRequestID = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9._:-]{1,128}$`) })

// envelope is a protocol request.
type envelope struct {
	ProtocolVersion string          `json:"protocol_version"`
	RequestID       string          `json:"request_id"`
	Operation       string          `json:"operation"`
	Arguments       json.RawMessage `json:"arguments"`
}

// response is a protocol response: data on success, error otherwise.
type response struct {
	ProtocolVersion string         `json:"protocol_version"`
	RequestID       string         `json:"request_id"`
	OK              bool           `json:"ok"`
	Data            any            `json:"data,omitempty"`
	Error           *responseError `json:"error,omitempty"`
}

type responseError struct {
	ReasonCode string `json:"reason_code"`
}

// Serve reads one request from r (at most MaxRequestBytes), writes one
// response line to w and a one-line diagnostic of a refusal to diag. It
// returns an error only when the response cannot be written.
func (p *Provider) Serve(ctx context.Context, r io.Reader, w io.Writer, diag io.Writer) error {
	data, err := io.ReadAll(io.LimitReader(r, MaxRequestBytes+1))
	var out []byte
	switch {
	case err != nil:
		out = p.refuse("", fail(ReasonRequestInvalid, "cannot read the request"), diag)
	case len(data) > MaxRequestBytes:
		out = p.refuse("", fail(ReasonRequestTooLarge, "request larger than 1 MiB"), diag)
	default:
		out = p.Handle(ctx, data, diag)
	}
	if _, err := w.Write(append(out, '\n')); err != nil {
		return fmt.Errorf("semanticprovider: write response: %w", err)
	}
	return nil
}

// Handle answers one request document.
func (p *Provider) Handle(ctx context.Context, data []byte, diag io.Writer) []byte {
	if len(data) > MaxRequestBytes {
		return p.refuse("", fail(ReasonRequestTooLarge, "request larger than 1 MiB"), diag)
	}
	if msg := checkJSON(data, requestLimits); msg != "" {
		return p.refuse(salvageID(data), fail(ReasonRequestInvalid, msg), diag)
	}
	var env envelope
	if msg := decodeStrict(data, &env); msg != "" {
		return p.refuse(salvageID(data), fail(ReasonRequestInvalid, msg), diag)
	}
	if !reRequestID().MatchString(env.RequestID) {
		return p.refuse("", fail(ReasonRequestInvalid, "request_id must be 1 to 128 of A-Z a-z 0-9 . _ : -"), diag)
	}
	if env.ProtocolVersion != ProtocolVersion {
		return p.refuse(env.RequestID, fail(ReasonProtocolUnsupported, "this provider speaks "+ProtocolVersion), diag)
	}
	if p.misconfigured != nil {
		return p.refuse(env.RequestID, p.misconfigured, diag)
	}
	if err := ctx.Err(); err != nil {
		return p.refuse(env.RequestID, fail(ReasonRequestInvalid, "cancelled"), diag)
	}
	result, ferr := p.dispatch(env.Operation, env.Arguments)
	if ferr != nil {
		return p.refuse(env.RequestID, ferr, diag)
	}
	out, err := marshal(response{ProtocolVersion: ProtocolVersion, RequestID: env.RequestID, OK: true, Data: result})
	if err != nil {
		return p.refuse(env.RequestID, fail(ReasonRequestInvalid, "cannot encode the response"), diag)
	}
	if len(out) > MaxResponseBytes {
		return p.refuse(env.RequestID, fail(ReasonQueryTooComplex, "response larger than 1 MiB"), diag)
	}
	return out
}

// refuse writes a failure response and its diagnostic.
func (p *Provider) refuse(id string, e *Error, diag io.Writer) []byte {
	if diag != nil {
		fmt.Fprintln(diag, "metricflow-provider:", e.Error())
	}
	out, _ := marshal(response{ProtocolVersion: ProtocolVersion, RequestID: id, OK: false, Error: &responseError{ReasonCode: e.Reason}})
	return out
}

// marshal encodes v without HTML escaping, so that SQL operators such as
// "<=" stay readable in the response.
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// salvageID returns the request_id of a request that is JSON but not a
// valid request, so that the refusal still correlates: the value of the
// one top-level key spelled exactly "request_id", or "" when there is none,
// more than one, or it is not a valid id.
func salvageID(data []byte) string {
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return ""
	}
	id, n := "", 0
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return ""
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return ""
		}
		if tok == "request_id" {
			n++
			if json.Unmarshal(v, &id) != nil {
				return ""
			}
		}
	}
	if n != 1 || !reRequestID().MatchString(id) {
		return ""
	}
	return id
}

// decodeArgs decodes operation arguments strictly; a missing or null
// arguments object is an empty one.
func decodeArgs(raw json.RawMessage, v any) *Error {
	if len(raw) == 0 || string(raw) == "null" {
		raw = json.RawMessage("{}")
	}
	if msg := decodeStrict(raw, v); msg != "" {
		return fail(ReasonRequestInvalid, "arguments: "+msg)
	}
	return nil
}
