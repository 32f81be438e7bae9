package dorisoauth

import "net/http"

// serveASMetadata answers RFC 8414 authorization server metadata.
func (s *Server) serveASMetadata(w http.ResponseWriter, r *http.Request) {
	m := map[string]any{
		"issuer":                                         s.issuer,
		"authorization_endpoint":                         s.issuer + "/oauth/authorize",
		"token_endpoint":                                 s.issuer + "/oauth/token",
		"revocation_endpoint":                            s.issuer + "/oauth/revoke",
		"scopes_supported":                               s.scopes.all,
		"response_types_supported":                       []string{"code"},
		"response_modes_supported":                       []string{"query"},
		"grant_types_supported":                          []string{"authorization_code", "refresh_token"},
		"code_challenge_methods_supported":               []string{"S256"},
		"token_endpoint_auth_methods_supported":          []string{"none", "client_secret_post"},
		"revocation_endpoint_auth_methods_supported":     []string{"none", "client_secret_post"},
		"authorization_response_iss_parameter_supported": true,
		"client_id_metadata_document_supported":          true,
	}
	if s.dcr {
		m["registration_endpoint"] = s.issuer + "/oauth/register"
	}
	writeJSON(w, http.StatusOK, m)
}

// servePRMetadata answers RFC 9728 protected resource metadata for /mcp,
// at the root and at the path-suffixed well-known URI.
func (s *Server) servePRMetadata(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{
		"resource":                 s.resource,
		"authorization_servers":    []string{s.issuer},
		"scopes_supported":         s.scopes.defaults,
		"bearer_methods_supported": []string{"header"},
		"resource_name":            "Apache Doris MCP Server",
	})
}
