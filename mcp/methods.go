package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/doris-mcp/doris-mcp-server/auth"
	"github.com/doris-mcp/doris-mcp-server/catalog"
	"github.com/doris-mcp/doris-mcp-server/doris/schema"
)

// method is one entry of the flat method table.
type method struct {
	handler func(*Server, *call) (any, *Error)
	eras    eraSet
	// name says which params member the Mcp-Name header must equal.
	name nameSource
	// cache, when set, is the result's caching hint (modern era).
	cache *cachePolicy
	// requires lists client capabilities the method needs.
	requires []string
	// notification marks the methods a client sends without an id. Any
	// other method sent without an id is never run: it would have no one
	// to answer, and carries none of the checks a request must pass.
	notification bool
}

type eraSet uint8

const (
	modernOnly eraSet = 1 << modern
	legacyOnly eraSet = 1 << legacy
	bothEras          = modernOnly | legacyOnly
)

func (s eraSet) has(e era) bool { return s&(1<<e) != 0 }

type nameSource int

const (
	noName nameSource = iota
	paramName
	paramURI
)

type cachePolicy struct {
	ttl   time.Duration
	scope string
}

var (
	// Discovery does not depend on the caller.
	publicDiscovery = &cachePolicy{ttl: 5 * time.Minute, scope: "public"}
	// Lists and reads depend on the caller's authorization and on live
	// Doris state: cache only within the authorization context, and
	// re-fetch every time.
	privateNoStore = &cachePolicy{ttl: 0, scope: "private"}
)

// methodTable is every method the server answers. Capabilities declared by
// discovery and initialize are exactly the groups present here.
func (s *Server) methodTable() map[string]*method {
	return map[string]*method{
		"server/discover":           {handler: (*Server).discover, eras: modernOnly, cache: publicDiscovery},
		"initialize":                {handler: (*Server).initialize, eras: legacyOnly},
		"notifications/initialized": {handler: noop, eras: legacyOnly, notification: true},
		"notifications/cancelled":   {handler: noop, eras: bothEras, notification: true},
		"ping":                      {handler: ping, eras: legacyOnly},
		"tools/list":                {handler: (*Server).listTools, eras: bothEras, cache: privateNoStore},
		"tools/call":                {handler: (*Server).callTool, eras: bothEras, name: paramName},
		"resources/list":            {handler: (*Server).listResources, eras: bothEras, cache: privateNoStore},
		"resources/templates/list":  {handler: (*Server).listResourceTemplates, eras: bothEras, cache: privateNoStore},
		"resources/read":            {handler: (*Server).readResource, eras: bothEras, name: paramURI, cache: privateNoStore},
		"prompts/list":              {handler: (*Server).listPrompts, eras: bothEras, cache: privateNoStore},
		"prompts/get":               {handler: (*Server).getPrompt, eras: bothEras, name: paramName},
		"completion/complete":       {handler: (*Server).complete, eras: bothEras},
		// Handshake-era clients may set a log level and subscribe to
		// resources. The server accepts both and keeps nothing: it sends
		// no log messages and no resource updates (there is no stream to
		// carry them), which the 2025 revisions allow.
		"logging/setLevel":      {handler: (*Server).setLevel, eras: legacyOnly},
		"resources/subscribe":   {handler: (*Server).subscribe, eras: legacyOnly},
		"resources/unsubscribe": {handler: (*Server).subscribe, eras: legacyOnly},
	}
}

func noop(*Server, *call) (any, *Error) { return nil, nil }

type emptyResult struct {
	resultFields
}

func ping(*Server, *call) (any, *Error) { return &emptyResult{}, nil }

// capabilities is ServerCapabilities: exactly what the method table serves.
// List-changed notifications and resource subscriptions are not offered:
// the lists change only with authorization or a Doris upgrade, and a
// client re-lists when the cache hint (ttl 0) says so.
type capabilities struct {
	Tools       listChanged `json:"tools"`
	Resources   resourceCap `json:"resources"`
	Prompts     listChanged `json:"prompts"`
	Completions struct{}    `json:"completions"`
}

type listChanged struct {
	ListChanged bool `json:"listChanged"`
}

type resourceCap struct {
	Subscribe   bool `json:"subscribe"`
	ListChanged bool `json:"listChanged"`
}

type discoverResult struct {
	SupportedVersions []string     `json:"supportedVersions"`
	Capabilities      capabilities `json:"capabilities"`
	Instructions      string       `json:"instructions,omitempty"`
	resultFields
}

func (s *Server) discover(c *call) (any, *Error) {
	return &discoverResult{
		SupportedVersions: []string{Version},
		Instructions:      s.opts.Instructions,
	}, nil
}

// legacyCapabilities are what initialize declares: the modern set plus the
// handshake-era logging and resource subscriptions.
type legacyCapabilities struct {
	Tools       listChanged `json:"tools"`
	Resources   resourceCap `json:"resources"`
	Prompts     listChanged `json:"prompts"`
	Completions struct{}    `json:"completions"`
	Logging     struct{}    `json:"logging"`
}

type initializeResult struct {
	ProtocolVersion string             `json:"protocolVersion"`
	Capabilities    legacyCapabilities `json:"capabilities"`
	ServerInfo      implementation     `json:"serverInfo"`
	Instructions    string             `json:"instructions,omitempty"`
	Meta            json.RawMessage    `json:"_meta,omitempty"`
}

// initialize answers the handshake of a legacy client: the client's version
// when it is one we serve, else our newest legacy version (the client then
// decides whether to continue).
func (s *Server) initialize(c *call) (any, *Error) {
	requested, err := str(c.p.protocolVersion, "protocolVersion", true)
	if err != nil {
		return nil, errorf(CodeInvalidParams, "initialize needs a string protocolVersion")
	}
	version := legacyVersions[0]
	if slices.Contains(legacyVersions, requested) {
		version = requested
	}
	c.version = version
	return &initializeResult{
		ProtocolVersion: version,
		Capabilities:    legacyCapabilities{Resources: resourceCap{Subscribe: true}},
		ServerInfo:      s.info,
		Instructions:    s.opts.Instructions,
	}, nil
}

var logLevels = []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

func (s *Server) setLevel(c *call) (any, *Error) {
	level, err := str(c.p.level, "level", true)
	if err != nil {
		return nil, err
	}
	if !slices.Contains(logLevels, level) {
		return nil, errorf(CodeInvalidParams, "params.level must be one of %s", strings.Join(logLevels, ", "))
	}
	return &emptyResult{}, nil
}

func (s *Server) subscribe(c *call) (any, *Error) {
	if _, err := str(c.p.uri, "uri", true); err != nil {
		return nil, err
	}
	return &emptyResult{}, nil
}

type listToolsResult struct {
	Tools      []json.RawMessage `json:"tools"`
	NextCursor string            `json:"nextCursor,omitempty"`
	resultFields
}

func (s *Server) listTools(c *call) (any, *Error) {
	tools, next, err := listPage(s, c, "tools", s.backend.Tools, func(t catalog.Tool) string { return t.Name })
	if err != nil {
		return nil, err
	}
	r := &listToolsResult{Tools: make([]json.RawMessage, len(tools)), NextCursor: next}
	for i, t := range tools {
		r.Tools[i] = t.JSON
	}
	return r, nil
}

func (r *listToolsResult) sizeHint() int {
	n := len(r.NextCursor)
	for _, t := range r.Tools {
		n += len(t) + 1
	}
	return n
}

func (r *listToolsResult) appendJSON(b []byte) ([]byte, error) {
	b = append(b, `{"tools":[`...)
	for i, t := range r.Tools {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, t...)
	}
	b = append(b, ']')
	if r.NextCursor != "" {
		b = append(b, `,"nextCursor":`...)
		b = appendJSONString(b, r.NextCursor)
	}
	b, err := appendObjectMembers(b, r.resultFields)
	return append(b, '}'), err
}

// callToolResult is a CallToolResult whose one text content is the JSON
// of its structured content; it is only ever written by appendJSON.
type callToolResult struct {
	StructuredContent json.RawMessage
	IsError           bool
	resultFields
}

type textContent struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

func (s *Server) callTool(c *call) (any, *Error) {
	name, err := str(c.p.name, "name", true)
	if err != nil {
		return nil, err
	}
	args := json.RawMessage(c.p.arguments)
	if args != nil && firstNonSpace(args) != '{' {
		return nil, errorf(CodeInvalidParams, "params.arguments must be an object")
	}
	if args == nil {
		args = json.RawMessage("{}")
	}
	var progress catalog.Progress
	if c.p.meta.ProgressToken != nil && c.notify != nil {
		progress = progressSender(c)
	}
	res, cerr := s.backend.CallTool(c.ctx, c.id, name, args, progress)
	if res != nil {
		c.info = res.Call
	}
	switch {
	case errors.Is(cerr, catalog.ErrToolNotFound):
		return nil, &Error{Code: CodeInvalidParams, Message: "unknown tool", Data: map[string]any{"toolErrorCode": "TOOL_NOT_FOUND", "name": truncate(name, 128)}}
	case c.ctx.Err() != nil && s.aborted():
		return nil, errShuttingDown(true)
	case c.ctx.Err() != nil:
		return nil, errorf(CodeInternalError, "request cancelled")
	case cerr != nil:
		s.log.ErrorContext(c.ctx, "tool call failed", "tool", truncate(name, 128), "err", cerr)
		return nil, errorf(CodeInternalError, "internal error")
	}
	return &callToolResult{StructuredContent: res.Structured, IsError: res.IsError}, nil
}

func (r *callToolResult) sizeHint() int {
	// The text content escapes every quote of the envelope.
	return len(r.StructuredContent) * 5 / 2
}

func (r *callToolResult) appendJSON(b []byte) ([]byte, error) {
	b = append(b, `{"content":[{"type":"text","text":`...)
	b = appendJSONString(b, r.StructuredContent)
	b = append(b, `}]`...)
	if r.StructuredContent != nil {
		b = append(b, `,"structuredContent":`...)
		b = append(b, r.StructuredContent...)
	}
	if r.IsError {
		b = append(b, `,"isError":true`...)
	}
	b, err := appendObjectMembers(b, r.resultFields)
	return append(b, '}'), err
}

// progressSender returns a Progress that emits notifications/progress for
// the call, dropping any value that does not increase.
func progressSender(c *call) catalog.Progress {
	last := -1.0
	return func(progress, total float64, message string) {
		if progress <= last || c.ctx.Err() != nil {
			return
		}
		last = progress
		params := map[string]any{"progressToken": json.RawMessage(c.p.meta.ProgressToken), "progress": progress}
		if total > 0 {
			params["total"] = total
		}
		if message != "" {
			params["message"] = message
		}
		c.notify("notifications/progress", params)
	}
}

type listResourcesResult struct {
	Resources  []catalog.Resource `json:"resources"`
	NextCursor string             `json:"nextCursor,omitempty"`
	resultFields
}

func (s *Server) listResources(c *call) (any, *Error) {
	list, next, err := listPage(s, c, "resources", s.backend.Resources, func(r catalog.Resource) string { return r.URI })
	if err != nil {
		return nil, err
	}
	return &listResourcesResult{Resources: list, NextCursor: next}, nil
}

type listTemplatesResult struct {
	ResourceTemplates []catalog.ResourceTemplate `json:"resourceTemplates"`
	NextCursor        string                     `json:"nextCursor,omitempty"`
	resultFields
}

func (s *Server) listResourceTemplates(c *call) (any, *Error) {
	list, next, err := listPage(s, c, "resource-templates", s.backend.ResourceTemplates,
		func(t catalog.ResourceTemplate) string { return t.URITemplate })
	if err != nil {
		return nil, err
	}
	return &listTemplatesResult{ResourceTemplates: list, NextCursor: next}, nil
}

type readResourceResult struct {
	Contents []catalog.ResourceContents `json:"contents"`
	resultFields
}

func (s *Server) readResource(c *call) (any, *Error) {
	uri, err := str(c.p.uri, "uri", true)
	if err != nil {
		return nil, err
	}
	rc, rerr := s.backend.ReadResource(c.ctx, c.id, uri)
	var lerr *catalog.ListError
	switch {
	case errors.Is(rerr, catalog.ErrResourceNotFound):
		return nil, &Error{Code: CodeInvalidParams, Message: "resource not found", Data: map[string]any{"uri": truncate(uri, 1024)}}
	case errors.As(rerr, &lerr):
		return nil, listFailure(rerr)
	case rerr != nil:
		s.log.Error("resource read failed", "err", rerr)
		return nil, errorf(CodeInternalError, "internal error")
	}
	return &readResourceResult{Contents: []catalog.ResourceContents{*rc}}, nil
}

type listPromptsResult struct {
	Prompts    []catalog.Prompt `json:"prompts"`
	NextCursor string           `json:"nextCursor,omitempty"`
	resultFields
}

func (s *Server) listPrompts(c *call) (any, *Error) {
	list, next, err := listPage(s, c, "prompts", s.backend.Prompts, func(p catalog.Prompt) string { return p.Name })
	if err != nil {
		return nil, err
	}
	return &listPromptsResult{Prompts: list, NextCursor: next}, nil
}

type getPromptResult struct {
	Description string          `json:"description,omitempty"`
	Messages    []promptMessage `json:"messages"`
	resultFields
}

type promptMessage struct {
	Role    string      `json:"role"`
	Content textContent `json:"content"`
}

func (s *Server) getPrompt(c *call) (any, *Error) {
	name, err := str(c.p.name, "name", true)
	if err != nil {
		return nil, err
	}
	args, err := stringMap(c.p.arguments, "arguments")
	if err != nil {
		return nil, err
	}
	pr, perr := s.backend.GetPrompt(c.ctx, c.id, name, args)
	var aerr *catalog.ArgumentError
	switch {
	case errors.Is(perr, catalog.ErrPromptNotFound):
		return nil, &Error{Code: CodeInvalidParams, Message: "unknown prompt", Data: map[string]any{"name": truncate(name, 128)}}
	case errors.As(perr, &aerr):
		return nil, errorf(CodeInvalidParams, "%s", aerr.Msg)
	case perr != nil:
		s.log.Error("prompt failed", "err", perr)
		return nil, errorf(CodeInternalError, "internal error")
	}
	r := &getPromptResult{Description: pr.Description}
	for _, m := range pr.Messages {
		r.Messages = append(r.Messages, promptMessage{Role: m.Role, Content: textContent{Type: "text", Text: m.Text}})
	}
	return r, nil
}

type completeResult struct {
	Completion completionValues `json:"completion"`
	resultFields
}

type completionValues struct {
	Values  []string `json:"values"`
	Total   int      `json:"total,omitempty"`
	HasMore bool     `json:"hasMore"`
}

func (s *Server) complete(c *call) (any, *Error) {
	var ref, arg struct{ Type, Name, URI, Value string }
	if err := exactObject(c.p.ref, "ref", map[string]*string{"type": &ref.Type, "name": &ref.Name, "uri": &ref.URI}); err != nil {
		return nil, err
	}
	if err := exactObject(c.p.argument, "argument", map[string]*string{"name": &arg.Name, "value": &arg.Value}); err != nil {
		return nil, err
	}
	var ctxArgs struct{ Arguments map[string]string }
	if c.p.context != nil {
		if schema.KindOf(c.p.context) != schema.Object {
			return nil, errorf(CodeInvalidParams, "params.context must be an object")
		}
		var cerr *Error
		schema.Members(c.p.context, func(name string, v []byte) error {
			switch {
			case name == "arguments":
				ctxArgs.Arguments, cerr = stringMap(v, "context.arguments")
			case caseVariant(name, []string{"arguments"}):
				cerr = errorf(CodeInvalidParams, "params.context: case-variant member %q", truncate(name, 64))
			}
			if cerr != nil {
				return cerr
			}
			return nil
		})
		if cerr != nil {
			return nil, cerr
		}
	}
	comp, cerr := s.backend.Complete(c.ctx, c.id, catalog.CompletionRef{Type: ref.Type, Name: ref.Name, URI: ref.URI}, arg.Name, arg.Value, ctxArgs.Arguments)
	var aerr *catalog.ArgumentError
	switch {
	case errors.Is(cerr, catalog.ErrCompletionRef):
		return nil, errorf(CodeInvalidParams, "params.ref names nothing that can be completed")
	case errors.As(cerr, &aerr):
		return nil, errorf(CodeInvalidParams, "%s", aerr.Msg)
	case cerr != nil:
		s.log.Warn("completion failed", "err", cerr)
		return nil, errorf(CodeInternalError, "completion is unavailable")
	}
	values := comp.Values
	if values == nil {
		values = []string{}
	}
	return &completeResult{Completion: completionValues{Values: values, Total: comp.Total, HasMore: comp.HasMore}}, nil
}

// listPage serves one page of a list method: it reads params.cursor,
// fetches the caller's whole (sorted) list from the backend, and cuts the
// page the cursor points at. id names an entry for the cursor.
func listPage[T any](s *Server, c *call, collection string, fetch func(context.Context, auth.Identity) ([]T, error), id func(T) string) ([]T, string, *Error) {
	cursor, err := str(c.p.cursor, "cursor", false)
	if err != nil {
		return nil, "", err
	}
	list, ferr := fetch(c.ctx, c.id)
	if ferr != nil {
		return nil, "", listFailure(ferr)
	}
	lo, hi, next, err := s.paginate(c, collection, len(list), func(i int) string { return id(list[i]) }, cursor)
	if err != nil {
		return nil, "", err
	}
	return list[lo:hi:hi], next, nil
}

// listFailure maps a backend list failure to a JSON-RPC error. A failing
// list is never an empty success.
func listFailure(err error) *Error {
	category := "internal_error"
	var le *catalog.ListError
	if errors.As(err, &le) {
		category = le.Category
	}
	return &Error{Code: CodeInternalError, Message: "the list could not be produced", Data: map[string]any{"listErrorCategory": category}}
}
