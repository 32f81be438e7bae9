package cluster

import (
	"context"
	"encoding/json"
	"slices"
	"sort"
	"strings"

	"github.com/doris-mcp/doris-mcp-server/doris"
)

// Workload groups (SHOW WORKLOAD GROUPS, in both of its shapes) and the
// compute groups of a cloud deployment (SHOW COMPUTE GROUPS, with members
// and usage from SHOW BACKENDS).

// maxGroupRows bounds SHOW WORKLOAD GROUPS, which up to 3.0 prints one
// row per property (about 17 per group).
const maxGroupRows = 20000

// workloadUsage are the SHOW WORKLOAD GROUPS items that are usage, not
// settings.
var workloadUsage = []string{"running_query_num", "waiting_query_num"}

// GetWorkloadGroupStatus runs doris_cluster get_workload_group_status.
func GetWorkloadGroupStatus(ctx context.Context, c *doris.Call) (*doris.Result, error) {
	r := kitOf(c)
	var a struct {
		Name         string `json:"name"`
		IncludeUsage bool   `json:"include_usage"`
	}
	if err := doris.DecodeArgs(c, &a); err != nil {
		return nil, err
	}
	rt, err := r.Route(c.Identity)
	if err != nil {
		return nil, err
	}
	t, err := r.Text(ctx, rt, "SHOW WORKLOAD GROUPS", maxGroupRows, clusterPrefix)
	if err != nil {
		return nil, err
	}
	type group struct {
		id    string
		props map[string]any
		usage map[string]any
	}
	groups := map[string]*group{}
	var order []string
	get := func(id, name string) *group {
		g := groups[name]
		if g == nil {
			g = &group{id: id, props: map[string]any{}, usage: map[string]any{}}
			groups[name] = g
			order = append(order, name)
		}
		return g
	}
	put := func(g *group, key, value string) {
		if slices.Contains(workloadUsage, strings.ToLower(key)) {
			g.usage[strings.ToLower(key)] = numberOrString(value)
			return
		}
		g.props[strings.ToLower(key)] = value
	}
	byItem := t.Has("Item") && t.Has("Value") // 2.1 / 3.0: one row per property
	for _, row := range t.Rows {
		name := t.Get(row, "Name")
		if a.Name != "" && name != a.Name {
			continue
		}
		g := get(t.Get(row, "Id"), name)
		if byItem {
			put(g, t.Get(row, "Item"), t.Get(row, "Value"))
			continue
		}
		for i, col := range t.Cols {
			if !strings.EqualFold(col, "Id") && !strings.EqualFold(col, "Name") {
				put(g, col, row[i].String)
			}
		}
	}
	sort.Strings(order)
	items := []map[string]any{}
	for _, name := range order {
		g := groups[name]
		it := map[string]any{"id": doris.StrOrNil(g.id, g.id != ""), "name": name, "properties": g.props, "usage": nil}
		if a.IncludeUsage {
			it["usage"] = g.usage
		}
		items = append(items, it)
	}
	res := &doris.Result{Status: "success", Source: "SHOW WORKLOAD GROUPS", Truncated: t.Truncated,
		Data: doris.Collection{Items: items, Truncated: t.Truncated}}
	if a.Name != "" && len(items) == 0 {
		res.Warnings = append(res.Warnings, "No workload group of that name is visible to this account (Doris shows the groups an account may use).")
	}
	if t.Truncated {
		res.Warnings = append(res.Warnings, "SHOW WORKLOAD GROUPS returned more rows than the server reads; filter by name.")
	}
	return res, nil
}

// GetComputeGroupStatus runs doris_cluster get_compute_group_status.
func GetComputeGroupStatus(ctx context.Context, c *doris.Call) (*doris.Result, error) {
	r := kitOf(c)
	var a struct {
		Name         string `json:"name"`
		IncludeNodes bool   `json:"include_nodes"`
		IncludeUsage bool   `json:"include_usage"`
	}
	if err := doris.DecodeArgs(c, &a); err != nil {
		return nil, err
	}
	rt, err := r.Route(c.Identity)
	if err != nil {
		return nil, err
	}
	t, err := r.Text(ctx, rt, "SHOW COMPUTE GROUPS", doris.MaxCatalogRows, clusterPrefix)
	if err != nil {
		return nil, err
	}
	res := &doris.Result{Status: "success", Source: "SHOW COMPUTE GROUPS"}
	// Members come from SHOW BACKENDS, whose Tag names each backend's
	// compute group; it needs ADMIN.
	members := map[string][]map[string]any{}
	ids := map[string]string{}
	be, beErr := r.Text(ctx, rt, "SHOW BACKENDS", 4096, clusterPrefix)
	if beErr == nil {
		for _, row := range be.Rows {
			var tag map[string]string
			if json.Unmarshal([]byte(be.Get(row, "Tag")), &tag) != nil || tag["compute_group_name"] == "" {
				continue
			}
			cg := tag["compute_group_name"]
			ids[cg] = tag["compute_group_id"]
			members[cg] = append(members[cg], map[string]any{
				"backend_id": doris.Nullable(be, row, "BackendId"), "host": be.Get(row, "Host"), "alive": doris.Boolish(be.Get(row, "Alive")),
				"tablets": doris.AtoiOrNil(be.Get(row, "TabletNum")), "running_tasks": doris.AtoiOrNil(be.Get(row, "RunningTasks")),
				"status": doris.StrOrNil(tag["compute_group_status"], tag["compute_group_status"] != ""),
			})
		}
	} else if a.IncludeNodes || a.IncludeUsage {
		res.Status = "partial"
		res.Warnings = append(res.Warnings, "Members and usage need SHOW BACKENDS, which this account may not run ("+
			doris.Classify(clusterPrefix, beErr, ctx).Reason+").")
	}
	items := []map[string]any{}
	for _, row := range t.Rows {
		name := t.Get(row, "Name")
		if a.Name != "" && name != a.Name {
			continue
		}
		it := map[string]any{"name": name, "id": doris.StrOrNil(ids[name], ids[name] != ""),
			"is_current": doris.Boolish(t.Get(row, "IsCurrent")), "users": doris.Nullable(t, row, "Users"),
			"backend_count": doris.AtoiOrNil(t.Get(row, "BackendNum")), "nodes": nil, "usage": nil}
		if beErr == nil && a.IncludeNodes {
			it["nodes"] = doris.OrEmpty(members[name])
		}
		if beErr == nil && a.IncludeUsage {
			alive, tablets, running := 0, int64(0), int64(0)
			for _, m := range members[name] {
				if m["alive"] == true {
					alive++
				}
				n, _ := m["tablets"].(int64)
				tablets += n
				n, _ = m["running_tasks"].(int64)
				running += n
			}
			it["usage"] = map[string]any{"alive_backends": alive, "tablets": tablets, "running_tasks": running}
		}
		items = append(items, it)
	}
	sort.SliceStable(items, func(i, j int) bool { return items[i]["name"].(string) < items[j]["name"].(string) })
	if a.Name != "" && len(items) == 0 {
		res.Warnings = append(res.Warnings, "No compute group of that name is visible to this account.")
	}
	res.Data = doris.Collection{Items: items, Truncated: t.Truncated}
	res.Truncated = t.Truncated
	return res, nil
}
