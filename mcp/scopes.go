package mcp

import (
	"encoding/json"
	"net/http"

	"github.com/doris-mcp/doris-mcp-server/auth"
)

// operationScope returns the operation scope a request needs (contract
// §4), or "" when it needs none. A domain tool call needs tool:list;
// which children it may reach is the catalog's decision, from the
// identity's child grants. A completion needs the scope of what it
// completes.
func operationScope(req *Request) string {
	switch req.Method {
	case "tools/list", "tools/call":
		return auth.ScopeToolList
	case "resources/list", "resources/templates/list":
		return auth.ScopeResourceList
	case "resources/read":
		return auth.ScopeResourceRead
	case "prompts/list":
		return auth.ScopePromptList
	case "prompts/get":
		return auth.ScopePromptGet
	case "completion/complete":
		var p struct {
			Ref struct {
				Type string `json:"type"`
			} `json:"ref"`
		}
		json.Unmarshal(req.Params, &p)
		switch p.Ref.Type {
		case "ref/prompt":
			return auth.ScopePromptGet
		case "ref/resource":
			return auth.ScopeResourceRead
		}
	}
	return ""
}

// checkScope refuses a request whose identity lacks its operation scope.
func checkScope(c *call) *Error {
	if c.req.Notification {
		return nil
	}
	if scope := operationScope(c.req); scope != "" && !c.id.Can(scope) {
		return scopeError(scope)
	}
	return nil
}

func scopeError(scope string) *Error {
	return &Error{Code: CodeInvalidRequest, Message: "insufficient scope: the credential does not allow this operation",
		Data: map[string]any{"error": "insufficient_scope", "requiredScope": scope}}
}

// refuseScope answers an HTTP request whose identity lacks the operation
// scope: 403 with an insufficient_scope challenge naming it (RFC 6750
// §3.1, MCP authorization), and the JSON-RPC error with the request id.
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
