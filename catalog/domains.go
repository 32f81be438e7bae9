package catalog

import (
	"github.com/doris-mcp/doris-mcp-server/doris"
	"github.com/doris-mcp/doris-mcp-server/doris/cluster"
	"github.com/doris-mcp/doris-mcp-server/doris/governance"
	"github.com/doris-mcp/doris-mcp-server/doris/lakehouse"
	"github.com/doris-mcp/doris-mcp-server/doris/metadata"
	"github.com/doris-mcp/doris-mcp-server/doris/pipeline"
	"github.com/doris-mcp/doris-mcp-server/doris/query"
	"github.com/doris-mcp/doris-mcp-server/doris/search"
)

// domains is the contract table in the reference server's order.
var domains = []*Domain{
	&catalogDomain,
	&queryDomain,
	&clusterDomain,
	&pipelineDomain,
	&searchDomain,
	&governanceDomain,
	&lakehouseDomain,
	&semanticDomain,
}

// Handlers are the contract's handlers by "domain.child", for
// doris.Options.Handlers: the one place a handler is bound to its child
// is its row in the table.
func Handlers() map[string]doris.Handler {
	out := map[string]doris.Handler{}
	for _, d := range domains {
		for _, c := range d.Children {
			if c.Handler != nil {
				out[d.Name+"."+c.Name] = c.Handler
			}
		}
	}
	return out
}

// Probes are the domains' capability probes by id, for
// doris.Options.Probes. Each domain package declares its own beside its
// handlers; an id declared twice is a programming error.
func Probes() map[string]doris.Probe {
	out := map[string]doris.Probe{}
	for _, set := range []map[string]doris.Probe{metadata.Probes, query.Probes, cluster.Probes,
		pipeline.Probes, search.Probes, governance.Probes, lakehouse.Probes} {
		for id, p := range set {
			if _, dup := out[id]; dup {
				panic("catalog: probe " + id + " is declared twice")
			}
			out[id] = p
		}
	}
	return out
}
