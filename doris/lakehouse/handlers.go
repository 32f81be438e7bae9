package lakehouse

import "github.com/doris-mcp/doris-mcp-server/doris"

// Probes are the capability probes of this domain's children.
var Probes = map[string]doris.Probe{
	"lakehouse.show_catalogs": {SQL: "SHOW CATALOGS"},
}
