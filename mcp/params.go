package mcp

import (
	"encoding/json"
	"strings"

	"github.com/doris-mcp/doris-mcp-server/doris/schema"
)

// params is a request's params object, read once, in place: each member a
// method of this server reads, kept as its raw value (a sub-slice of the
// message), and _meta decoded. Methods take what they need from it with
// str and object; nothing decodes params a second time.
//
// Member names are exact. A member that differs from a known one only in
// case is refused (a lenient decoder elsewhere could read it as the known
// one); other unknown members are ignored, for forward compatibility.
type params struct {
	meta requestMeta
	// The members methods read; nil when absent.
	name, uri, cursor, arguments, level, protocolVersion, requestID []byte
	ref, argument, context                                          []byte
}

// paramNames are the params members of every method this server serves.
var paramNames = []string{"_meta", "name", "uri", "cursor", "arguments", "level", "protocolVersion", "capabilities",
	"clientInfo", "requestId", "reason", "ref", "argument", "context", "inputResponses", "requestState"}

// requestMeta is the part of params._meta the server reads.
type requestMeta struct {
	ProtocolVersion    string
	ClientCapabilities []string // the names of the declared capabilities
	ProgressToken      json.RawMessage
	// Traceparent is the W3C trace context the caller sent, unchecked
	// (catalog.StartTrace reads it; a malformed one is dropped).
	Traceparent string
	// has* record which members were present.
	hasMeta, hasVersion, hasCaps bool
}

var metaKeys = []string{
	"io.modelcontextprotocol/protocolVersion",
	"io.modelcontextprotocol/clientCapabilities",
	"io.modelcontextprotocol/clientInfo",
	"io.modelcontextprotocol/logLevel",
	"progressToken",
}

// readParams reads a request's params (nil: absent). It fails only on
// malformed members it reads and on case variants of known names.
func readParams(raw json.RawMessage) (*params, *Error) {
	p := &params{}
	if raw == nil {
		return p, nil
	}
	var perr *Error
	err := schema.Members(raw, func(name string, v []byte) error {
		switch name {
		case "_meta":
			p.meta, perr = readMeta(v)
		case "name":
			p.name = v
		case "uri":
			p.uri = v
		case "cursor":
			p.cursor = v
		case "arguments":
			p.arguments = v
		case "level":
			p.level = v
		case "protocolVersion":
			p.protocolVersion = v
		case "requestId":
			p.requestID = v
		case "ref":
			p.ref = v
		case "argument":
			p.argument = v
		case "context":
			p.context = v
		default:
			if caseVariant(name, paramNames) {
				perr = errorf(CodeInvalidParams, "case-variant member %q in params", truncate(name, 64))
			}
		}
		if perr != nil {
			return perr
		}
		return nil
	})
	if perr != nil {
		return nil, perr
	}
	if err != nil {
		return nil, errorf(CodeInvalidParams, "params must be an object")
	}
	return p, nil
}

func readMeta(raw []byte) (requestMeta, *Error) {
	m := requestMeta{hasMeta: true}
	if schema.KindOf(raw) != schema.Object {
		return m, errorf(CodeInvalidParams, "_meta must be an object")
	}
	var merr *Error
	err := schema.Members(raw, func(name string, v []byte) error {
		switch name {
		case "io.modelcontextprotocol/protocolVersion":
			s, ok := schema.Str(v)
			if !ok || s == "" {
				merr = errorf(CodeInvalidParams, "_meta protocolVersion must be a non-empty string")
				return merr
			}
			m.ProtocolVersion, m.hasVersion = s, true
		case "io.modelcontextprotocol/clientCapabilities":
			if schema.KindOf(v) != schema.Object {
				merr = errorf(CodeInvalidParams, "_meta clientCapabilities must be an object")
				return merr
			}
			m.hasCaps = true
			schema.Members(v, func(cap string, _ []byte) error {
				m.ClientCapabilities = append(m.ClientCapabilities, cap)
				return nil
			})
		case "traceparent":
			if s, ok := schema.Str(v); ok && len(s) <= 512 {
				m.Traceparent = s
			}
		case "progressToken":
			switch c := firstNonSpace(v); {
			case c == '"' || c == '-' || (c >= '0' && c <= '9'):
				m.ProgressToken = v
			default:
				merr = errorf(CodeInvalidParams, "progressToken must be a string or an integer")
				return merr
			}
		default:
			if caseVariant(name, metaKeys) {
				merr = errorf(CodeInvalidParams, "case-variant member %q in _meta", truncate(name, 64))
				return merr
			}
		}
		return nil
	})
	if merr != nil {
		return m, merr
	}
	if err != nil {
		return m, errorf(CodeInvalidParams, "_meta must be an object")
	}
	return m, nil
}

// caseVariant reports whether name differs only in case from one of known
// (and is not itself known).
func caseVariant(name string, known []string) bool {
	for _, k := range known {
		if name != k && strings.EqualFold(name, k) {
			return true
		}
	}
	return false
}

// str reads a string member: required, or optional ("" when absent).
func str(raw []byte, name string, required bool) (string, *Error) {
	if raw == nil {
		if required {
			return "", errorf(CodeInvalidParams, "params.%s is required", name)
		}
		return "", nil
	}
	s, ok := schema.Str(raw)
	if !ok {
		return "", errorf(CodeInvalidParams, "params.%s must be a string", name)
	}
	return s, nil
}

// exactObject reads an object member whose known members must be spelled
// exactly (unknown ones are ignored) into the string fields named by
// fields; other member types are an error.
func exactObject(raw []byte, what string, fields map[string]*string) *Error {
	if raw == nil || schema.KindOf(raw) != schema.Object {
		return errorf(CodeInvalidParams, "params.%s must be an object", what)
	}
	known := make([]string, 0, len(fields))
	for k := range fields {
		known = append(known, k)
	}
	var e *Error
	err := schema.Members(raw, func(name string, v []byte) error {
		if dst, ok := fields[name]; ok {
			s, good := schema.Str(v)
			if !good {
				e = errorf(CodeInvalidParams, "params.%s.%s must be a string", what, name)
				return e
			}
			*dst = s
		} else if caseVariant(name, known) {
			e = errorf(CodeInvalidParams, "params.%s: case-variant member %q", what, truncate(name, 64))
			return e
		}
		return nil
	})
	if e != nil {
		return e
	}
	if err != nil {
		return errorf(CodeInvalidParams, "params.%s must be an object", what)
	}
	return nil
}

// stringMap reads an object of strings (prompt arguments, completion
// context arguments).
func stringMap(raw []byte, what string) (map[string]string, *Error) {
	out := map[string]string{}
	if raw == nil {
		return out, nil
	}
	if schema.KindOf(raw) != schema.Object {
		return nil, errorf(CodeInvalidParams, "params.%s must be an object of strings", what)
	}
	bad := false
	err := schema.Members(raw, func(name string, v []byte) error {
		s, ok := schema.Str(v)
		if !ok {
			bad = true
			return errStopWalk
		}
		out[name] = s
		return nil
	})
	if bad || err != nil {
		return nil, errorf(CodeInvalidParams, "params.%s must be an object of strings", what)
	}
	return out, nil
}

type stopWalk struct{}

func (stopWalk) Error() string { return "stop" }

var errStopWalk error = stopWalk{}
