package semantic

import "github.com/doris-mcp/doris-mcp-server/doris"

// kit is the core's kit for handlers as this domain sees it: the
// runtime's exported methods, and the domain's own helpers beside them.
type kit struct{ *doris.Runtime }

// kitOf is the kit of the runtime the call runs on.
func kitOf(c *doris.Call) kit { return kit{c.Runtime()} }
