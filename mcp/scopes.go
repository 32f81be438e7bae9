package mcp

import (
	"net/http"
	"strings"

	"github.com/doris-mcp/doris-mcp-server/auth"
	"github.com/doris-mcp/doris-mcp-server/doris/schema"
)

// operationScopes returns the operation scopes a request needs (contract
// §4), none for discovery and the handshake. A domain tool call needs
// tool:list (which children it may reach is the catalog's decision, from
// the identity's child grants); the semantic domain and semantic resources
// also need semantic:read; a completion needs the scope of what it
// completes.
func operationScopes(c *call) []string {
	req := c.req
	var p struct{ Name, URI, RefType string }
	p.Name, _ = str(c.p.name, "name", false)
	p.URI, _ = str(c.p.uri, "uri", false)
	if c.p.ref != nil {
		schema.Members(c.p.ref, func(name string, v []byte) error {
			if name == "type" {
				p.RefType, _ = schema.Str(v)
			}
			return nil
		})
	}
	switch req.Method {
	case "tools/list":
		return []string{auth.ScopeToolList}
	case "tools/call":
		if p.Name == semanticDomain || strings.HasPrefix(p.Name, semanticDomain+"_") {
			return []string{auth.ScopeToolList, auth.ScopeSemanticRead}
		}
		return []string{auth.ScopeToolList}
	case "resources/list", "resources/templates/list":
		return []string{auth.ScopeResourceList}
	case "resources/read":
		if strings.HasPrefix(p.URI, semanticResources) {
			return []string{auth.ScopeResourceRead, auth.ScopeSemanticRead}
		}
		return []string{auth.ScopeResourceRead}
	case "prompts/list":
		return []string{auth.ScopePromptList}
	case "prompts/get":
		return []string{auth.ScopePromptGet}
	case "completion/complete":
		switch p.RefType {
		case "ref/prompt":
			return []string{auth.ScopePromptGet}
		case "ref/resource":
			return []string{auth.ScopeResourceRead}
		}
	}
	return nil
}

// The semantic domain's tool name (its flat children are prefixed with
// it) and resource URI prefix.
const (
	semanticDomain    = "doris_semantic"
	semanticResources = "doris://semantic/"
)

// checkScope refuses a request whose identity lacks an operation scope it
// needs, naming every missing one.
func checkScope(c *call) *Error {
	if c.req.Notification {
		return nil
	}
	var missing []string
	for _, s := range operationScopes(c) {
		if !c.id.Can(s) {
			missing = append(missing, s)
		}
	}
	if missing != nil {
		return scopeError(missing)
	}
	return nil
}

func scopeError(missing []string) *Error {
	return &Error{Code: CodeInvalidRequest, Message: "insufficient scope: the credential does not allow this operation",
		Data: map[string]any{"error": "insufficient_scope", "requiredScope": strings.Join(missing, " ")}}
}

// refuseScope answers an HTTP request whose identity lacks an operation
// scope: 403 with an insufficient_scope challenge naming the missing
// scopes (RFC 6750 §3.1, MCP authorization), and the JSON-RPC error with
// the request id.
func (s *Server) refuseScope(w http.ResponseWriter, r *http.Request, o HTTPOptions, c *call) bool {
	e := checkScope(c)
	if e == nil {
		return false
	}
	scope := e.Data.(map[string]any)["requiredScope"].(string)
	challenge := `Bearer error="insufficient_scope", scope="` + scope + `"`
	if o.ScopeChallenge != nil {
		challenge = o.ScopeChallenge(scope)
	}
	w.Header().Set("WWW-Authenticate", challenge)
	s.refuse(w, r, http.StatusForbidden, c.req.ID, e)
	return true
}
