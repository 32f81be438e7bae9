package pipeline

import (
	"context"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/doris-mcp/doris-mcp-server/doris"
)

// dependencyEdge is one inferred data-flow edge: data of Source reaches
// Target.
type dependencyEdge struct {
	Source, Target  objectName
	Relation        string   // materialized_view, view, insert, ctas, ...
	EvidenceSources []string // mv_infos, views, audit_log (strongest first)
	ObservedAt      string   // newest audit statement, when from the audit log
	Statements      int      // audit statements behind the edge
}

// evidenceRank orders evidence sources, strongest first.
var evidenceRank = map[string]int{"mv_infos": 0, "views": 1, "audit_log": 2}

// dependencyGraph is the inferred graph around a database.
type dependencyGraph struct {
	edges     []*dependencyEdge
	evidence  []map[string]any
	warnings  []string
	truncated bool
}

// dependencyEdges reads materialized-view queries (of database), view
// definitions (of every visible database) and 30 days of INSERT, CTAS,
// CREATE VIEW and LOAD statements from the audit log, concurrently, and
// infers edges from them. It fails only when no source can be read.
func (r kit) dependencyEdges(ctx context.Context, rt *doris.Route, catalog, database string) (*dependencyGraph, error) {
	type source struct {
		name, sql string
		params    map[string]any
	}
	var sources []source
	if strings.EqualFold(catalog, "internal") {
		exclude := make([]string, len(doris.SystemDatabases))
		params := map[string]any{}
		for i, db := range doris.SystemDatabases {
			key := "s" + string(rune('a'+i))
			exclude[i] = "%(" + key + ")s"
			params[key] = db
		}
		sources = append(sources,
			source{"mv_infos", "SELECT Name, QuerySql FROM mv_infos(\"database\"=%(db)s) LIMIT 501", map[string]any{"db": database}},
			source{"views", "SELECT TABLE_SCHEMA, TABLE_NAME, VIEW_DEFINITION FROM information_schema.views WHERE TABLE_SCHEMA NOT IN (" +
				strings.Join(exclude, ", ") + ") LIMIT 501", params})
	}
	sources = append(sources, source{"audit_log", "SELECT `time`, db, stmt FROM " + doris.AuditTable +
		" WHERE `time` >= DATE_SUB(NOW(), INTERVAL 30 DAY) AND state <> 'ERR' AND (UPPER(stmt) LIKE '%INSERT%'" +
		" OR UPPER(stmt) LIKE '%CREATE%VIEW%' OR UPPER(stmt) LIKE '%CREATE%TABLE%' OR UPPER(stmt) LIKE '%LOAD%')" +
		" ORDER BY `time` DESC LIMIT 501", nil})

	var mu sync.Mutex // protects results and errs
	results := map[string]*doris.TextRows{}
	var errs []error
	steps := make([]doris.Step, len(sources))
	for i, s := range sources {
		steps[i] = doris.Step{Name: s.name, Run: func(ctx context.Context) (doris.Section, error) {
			q, err := doris.Bind(s.sql, s.params)
			if err != nil {
				return doris.Section{}, doris.Classify(pipelinePrefix, err, ctx)
			}
			t, err := r.Text(ctx, rt, q, pipelineMaxSourceRows, pipelinePrefix)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				if s.name == "audit_log" {
					err = auditUnavailable(err, ctx)
				}
				errs = append(errs, err)
				return doris.Section{}, err
			}
			results[s.name] = t
			return doris.Section{Status: "success", Source: s.name}, nil
		}}
	}
	p, err := r.RunPlan(ctx, steps)
	if err != nil {
		return nil, err
	}
	g := &dependencyGraph{}
	ok := 0
	for _, s := range sources {
		sec := p.Sections[s.name]
		n := 0
		if t := results[s.name]; t != nil {
			ok++
			n = len(t.Rows)
			if t.Truncated {
				g.truncated = true
				g.warnings = append(g.warnings, "Only the first 500 rows of "+s.name+" were read.")
			}
		} else {
			g.warnings = append(g.warnings, "The "+s.name+" evidence is unavailable ("+sec.ReasonCode+").")
		}
		ev := sourceEvidence(s.name, sec, n)
		ev["evidence_quality"] = "inferred"
		g.evidence = append(g.evidence, ev)
	}
	if ok == 0 {
		return nil, allFailed(errs, "PIPELINE_DEPENDENCY_EVIDENCE_UNAVAILABLE", "no dependency evidence of Doris could be read")
	}

	merged := map[string]*dependencyEdge{}
	addEdge := func(src, dst objectName, relation, evidence, at string) {
		if src.key() == dst.key() {
			return
		}
		k := src.key() + "\x00" + dst.key()
		e := merged[k]
		if e == nil {
			e = &dependencyEdge{Source: src, Target: dst, Relation: relation}
			merged[k] = e
		}
		if !slices.Contains(e.EvidenceSources, evidence) {
			e.EvidenceSources = append(e.EvidenceSources, evidence)
			sort.SliceStable(e.EvidenceSources, func(i, j int) bool {
				return evidenceRank[e.EvidenceSources[i]] < evidenceRank[e.EvidenceSources[j]]
			})
			if evidenceRank[evidence] <= evidenceRank[e.EvidenceSources[0]] {
				e.Relation = relation
			}
		}
		if evidence == "audit_log" {
			e.Statements++
			if at > e.ObservedAt {
				e.ObservedAt = at
			}
		}
	}
	declared := func(target objectName, query, relation, evidence string) {
		refs, ok := parseSQLRefs(query)
		if !ok {
			return
		}
		for _, s := range refs.Sources {
			if src, ok := resolveName(s, "internal", target.Database); ok {
				addEdge(src, target, relation, evidence, "")
			}
		}
	}
	if t := results["mv_infos"]; t != nil {
		for _, row := range t.Rows {
			declared(objectName{"internal", database, t.Get(row, "Name")}, t.Get(row, "QuerySql"), "materialized_view", "mv_infos")
		}
	}
	if t := results["views"]; t != nil {
		for _, row := range t.Rows {
			declared(objectName{"internal", t.Get(row, "TABLE_SCHEMA"), t.Get(row, "TABLE_NAME")}, t.Get(row, "VIEW_DEFINITION"), "view", "views")
		}
	}
	if t := results["audit_log"]; t != nil {
		for _, row := range t.Rows {
			refs, ok := parseSQLRefs(t.Get(row, "stmt"))
			if !ok || refs.Kind == "" || len(refs.Sources) == 0 {
				continue
			}
			db := t.Get(row, "db")
			target, ok := resolveName(refs.Target, "internal", db)
			if !ok {
				continue
			}
			for _, s := range refs.Sources {
				if src, ok := resolveName(s, "internal", db); ok {
					addEdge(src, target, refs.Kind, "audit_log", t.Get(row, "time"))
				}
			}
		}
	}
	for _, e := range merged {
		g.edges = append(g.edges, e)
	}
	sort.Slice(g.edges, func(i, j int) bool {
		a, b := g.edges[i], g.edges[j]
		if a.Source.key() != b.Source.key() {
			return a.Source.key() < b.Source.key()
		}
		return a.Target.key() < b.Target.key()
	})
	return g, nil
}

// hop is an edge reached by a traversal.
type hop struct {
	edge      *dependencyEdge
	direction string
	depth     int
}

// traverseDependencies walks the graph from root, breadth first, up to depth hops
// in the given direction(s), and returns the edges it crossed (at most
// pipelineMaxEdges; cut reports more).
func traverseDependencies(edges []*dependencyEdge, root objectName, direction string, depth int) (hops []hop, cut bool) {
	up := map[string][]*dependencyEdge{}
	down := map[string][]*dependencyEdge{}
	srcKey := make(map[*dependencyEdge]string, len(edges))
	dstKey := make(map[*dependencyEdge]string, len(edges))
	for _, e := range edges {
		s, d := e.Source.key(), e.Target.key()
		srcKey[e], dstKey[e] = s, d
		up[d] = append(up[d], e)
		down[s] = append(down[s], e)
	}
	seenEdge := map[*dependencyEdge]bool{}
	for _, dir := range []string{"upstream", "downstream"} {
		if direction != "both" && direction != dir {
			continue
		}
		adj := down
		if dir == "upstream" {
			adj = up
		}
		frontier := []string{root.key()}
		visited := map[string]bool{root.key(): true}
		for d := 1; d <= depth && len(frontier) > 0; d++ {
			var next []string
			for _, node := range frontier {
				for _, e := range adj[node] {
					if seenEdge[e] {
						continue
					}
					if len(hops) == pipelineMaxEdges {
						return hops, true
					}
					seenEdge[e] = true
					hops = append(hops, hop{e, dir, d})
					other := dstKey[e]
					if dir == "upstream" {
						other = srcKey[e]
					}
					if !visited[other] {
						visited[other] = true
						next = append(next, other)
					}
				}
			}
			frontier = next
		}
	}
	return hops, false
}

// AnalyzeDataDependencies runs doris_pipeline analyze_data_dependencies.
func AnalyzeDataDependencies(ctx context.Context, c *doris.Call) (*doris.Result, error) {
	r := kitOf(c)
	a := struct {
		Object    string `json:"object"`
		Catalog   string `json:"catalog"`
		Database  string `json:"database"`
		Direction string `json:"direction"`
		Depth     int    `json:"depth"`
	}{Direction: "both", Depth: 3}
	if err := doris.DecodeArgs(c, &a); err != nil {
		return nil, err
	}
	rt, err := r.Route(c.Identity)
	if err != nil {
		return nil, err
	}
	root, err := r.resolveObject(ctx, rt, a.Object, a.Catalog, a.Database)
	if err != nil {
		return nil, err
	}
	g, err := r.dependencyEdges(ctx, rt, root.Catalog, root.Database)
	if err != nil {
		return nil, err
	}
	return dependencyResult(g, root, a.Direction, a.Depth), nil
}

// resolveObject reads the object argument, completing it with catalog,
// database and the session database.
func (r kit) resolveObject(ctx context.Context, rt *doris.Route, object, catalog, database string) (objectName, error) {
	parts, ok := parseObjectArg(object)
	if !ok {
		return objectName{}, doris.ArgError(pipelinePrefix, "OBJECT_INVALID", "object must be a table, view or materialized view name, optionally qualified as database.name or catalog.database.name")
	}
	if e := doris.CheckOptionalIdents(pipelinePrefix, doris.Arg("catalog", catalog)); e != nil {
		return objectName{}, e
	}
	o := objectName{Catalog: "internal", Table: parts[len(parts)-1]}
	if catalog != "" {
		o.Catalog = catalog
	}
	switch len(parts) {
	case 3:
		o.Catalog, o.Database = parts[0], parts[1]
	case 2:
		o.Database = parts[0]
	default:
		db, err := r.resolveDatabase(ctx, rt, database)
		if err != nil {
			return objectName{}, err
		}
		o.Database = db
	}
	if database != "" && len(parts) > 1 && !strings.EqualFold(database, o.Database) {
		return objectName{}, doris.ArgError(pipelinePrefix, "OBJECT_INVALID", "object names a different database than the database argument")
	}
	return o, nil
}

// dependencyResult renders the traversal of g from root.
func dependencyResult(g *dependencyGraph, root objectName, direction string, depth int) *doris.Result {
	hops, cut := traverseDependencies(g.edges, root, direction, depth)
	edges := make([]map[string]any, 0, len(hops))
	nodes := []string{root.String()}
	for _, h := range hops {
		e := h.edge
		var at any
		if e.ObservedAt != "" {
			at = dorisTime(e.ObservedAt)
		}
		edges = append(edges, map[string]any{"source": e.Source.String(), "target": e.Target.String(), "relation": e.Relation,
			"evidence_source": e.EvidenceSources[0], "evidence_sources": e.EvidenceSources, "observed_at": at,
			"audit_statements": e.Statements, "direction": h.direction, "hop": h.depth})
		for _, n := range []string{e.Source.String(), e.Target.String()} {
			if !slices.Contains(nodes, n) {
				nodes = append(nodes, n)
			}
		}
	}
	truncated := g.truncated || cut
	warnings := slices.Clone(g.warnings)
	if cut {
		warnings = append(warnings, "The traversal stopped at 500 edges; lower depth or pick one direction.")
	}
	if len(edges) == 0 {
		warnings = append(warnings, "No recorded evidence links this object to another; dependencies that never ran through a view, materialized view or audited statement are not seen.")
	}
	status := "success"
	for _, ev := range g.evidence {
		if ev["status"] != "success" {
			status = "partial"
		}
	}
	return &doris.Result{Status: status, Warnings: warnings, Evidence: g.evidence, Truncated: truncated, Data: map[string]any{
		"root": root.String(), "direction": direction, "depth": depth, "evidence_quality": "inferred",
		"edges": edges, "nodes": nodes, "truncated": truncated,
	}}
}
