package semantic

import "github.com/doris-mcp/doris-mcp-server/doris"

const semanticPrefix = "SEMANTIC"

// semanticScope refuses a principal without the semantic:read scope.
func semanticScope(c *doris.Call) error {
	if !c.Identity.Can("semantic:read") {
		return &doris.Error{Kind: doris.KindFailed, Reason: "SEMANTIC_SCOPE_REQUIRED", Status: 403,
			Message: "the semantic layer needs the semantic:read scope, which this principal does not have"}
	}
	return nil
}
