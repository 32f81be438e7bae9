package mcp

import "github.com/doris-mcp/doris-mcp-server/catalog"

// *catalog.Surface is the production Backend.
var _ Backend = (*catalog.Surface)(nil)
