package sim

import (
	"fmt"
	"strings"
)

// The lakehouse part of rewrite: table references into external catalogs
// become their backing tables; the system tables t$snapshots and
// t$partitions and the iceberg_meta() table function read the snapshot
// table and the data; VARIANT path access and VARIANT_TYPE() become JSON
// functions. It runs before the rest of rewrite.

// sysTablesSince is the release that answers table$snapshots and
// table$partitions (Doris 3.1; earlier releases have iceberg_meta() only).
const sysTablesSince = "3.1.0"

// variantTypeMark starts a value that is to become a VARIANT_TYPE() map
// after the query ran (see relayVariantTypes).
const variantTypeMark = "\x1fVARIANT_TYPE\x1f"

// tableContext reports a position where a table name is expected.
func tableContext(prev token) bool {
	return prev.is("FROM") || prev.is("JOIN") || prev.is("INTO") || prev.is("UPDATE") || prev.is("TABLE")
}

// lakeRewrite returns sql with the lakehouse translations applied, and
// whether its results carry VARIANT_TYPE() values to finish.
func (c *conn) lakeRewrite(sql string) (string, bool, *dorisErr) {
	out := sql
	if c.s.lake.hasCreated() || c.currentExt() != nil || strings.Contains(strings.ToLower(sql), "iceberg_meta") {
		var derr *dorisErr
		if out, derr = c.rewriteExtRefs(sql); derr != nil {
			return "", false, derr
		}
	}
	if !strings.Contains(out, "[") && !strings.Contains(strings.ToLower(out), "variant_type") {
		return out, false, nil
	}
	out, vt := rewriteVariant(out)
	return out, vt, nil
}

// rewriteExtRefs replaces external table references and system tables.
func (c *conn) rewriteExtRefs(sql string) (string, *dorisErr) {
	all := lex(sql)
	idx := sigIndexes(all)
	changed := false
	for k := 0; k < len(idx); k++ {
		t := all[idx[k]]
		if !t.isIdent() || k == 0 || all[idx[k-1]].isP(".") {
			continue
		}
		prev := all[idx[k-1]]
		// iceberg_meta("table" = "c.db.t", "query_type" = "snapshots")
		if (prev.is("FROM") || prev.is("JOIN")) && strings.EqualFold(t.ident(), "iceberg_meta") && k+1 < len(idx) && all[idx[k+1]].isP("(") {
			end := k + 1
			for end < len(idx) && !all[idx[end]].isP(")") {
				end++
			}
			if end >= len(idx) {
				continue
			}
			var args []token
			for j := k + 2; j < end; j++ {
				args = append(args, all[idx[j]])
			}
			derived, derr := c.icebergMeta(args)
			if derr != nil {
				return "", derr
			}
			all[idx[k]].text = derived + aliasIfNone(all, idx, end, "iceberg_meta")
			for j := idx[k] + 1; j <= idx[end]; j++ {
				all[j].text = ""
			}
			changed = true
			k = end
			continue
		}
		if !tableContext(prev) {
			continue
		}
		n := chainLen(all, idx, k)
		var r extRef
		switch {
		case n == 3:
			cat := c.extCatalogOf(t.ident())
			if cat == nil {
				continue
			}
			if derr := cat.usable(); derr != nil {
				return "", derr
			}
			r = extRef{cat: cat, db: all[idx[k+2]].ident(), table: all[idx[k+4]].ident()}
		case n == 2 || n == 1:
			cat := c.currentExt()
			if cat == nil {
				continue
			}
			r = extRef{cat: cat, table: all[idx[k+2*(n-1)]].ident()}
			if n == 2 {
				r.db = t.ident()
			} else if !strings.Contains(r.table, "$") {
				continue // unqualified: the upstream session uses the backing database
			} else {
				r.db, _, _ = c.snapshot()
			}
		default:
			continue
		}
		last := k + 2*(n-1)
		repl, derr := c.extRelation(r, all, idx, last)
		if derr != nil {
			return "", derr
		}
		all[idx[k]].text = repl
		for j := idx[k] + 1; j <= idx[last]; j++ {
			all[j].text = ""
		}
		changed = true
		k = last
	}
	if !changed {
		return sql, nil
	}
	return join(all), nil
}

// aliasIfNone is " AS `name`" when the table reference ending at sig
// position last has no alias of its own (derived tables need one).
func aliasIfNone(all []token, idx []int, last int, name string) string {
	if last+1 < len(idx) {
		nt := all[idx[last+1]]
		if nt.is("AS") || (nt.isIdent() && !clauseWords[strings.ToUpper(nt.text)]) {
			return ""
		}
	}
	return " AS " + quoteIdent(name)
}

// extRelation is what the table reference r (ending at sig position last)
// becomes upstream.
func (c *conn) extRelation(r extRef, all []token, idx []int, last int) (string, *dorisErr) {
	base, sys, isSys := strings.Cut(r.table, "$")
	if !isSys {
		return qualified(r.backing(), r.table), nil
	}
	p := c.s.profile()
	missing := newDorisErr(1105, "HY000", fmt.Sprintf("Table [%s] does not exist in database [%s].", r.table, r.db))
	if !p.versionAtLeast(sysTablesSince) {
		return "", missing
	}
	b := extRef{cat: r.cat, db: r.db, table: base}
	m := c.s.lake.table(b.backing(), base)
	format := b.format(m)
	switch strings.ToLower(sys) {
	case "snapshots":
		if format != "iceberg" && format != "paimon" {
			return "", missing
		}
		return qualified(b.backing(), base+"$snapshots"), nil
	case "partitions":
		derived := partitionsDerived(b, m, format)
		if derived == "" {
			return "", missing
		}
		return derived + aliasIfNone(all, idx, last, r.table), nil
	}
	return "", missing
}

// partitionsDerived computes table$partitions from the data: one row per
// partition value with its live record count (the simulator applies
// deletes to the data, so position delete counts are 0).
func partitionsDerived(b extRef, m *tableMeta, format string) string {
	var part []string
	if m != nil {
		part = m.partCols
	}
	var cols []string
	for _, p := range part {
		cols = append(cols, quoteIdent(p))
	}
	data := qualified(b.backing(), b.table)
	snaps := qualified(b.backing(), b.table+"$snapshots")
	group := ""
	if len(cols) > 0 {
		group = " GROUP BY " + strings.Join(cols, ", ")
	}
	switch format {
	case "iceberg":
		sel := "SELECT "
		if len(part) > 0 {
			var kv []string
			for _, p := range part {
				kv = append(kv, quoteString(p), quoteIdent(p))
			}
			sel += "JSON_OBJECT(" + strings.Join(kv, ", ") + ") AS `partition`, 0 AS `spec_id`, "
		}
		sel += "COUNT(*) AS `record_count`, 1 AS `file_count`, 1024 + 48 * COUNT(*) AS `total_data_file_size_in_bytes`, " +
			"0 AS `position_delete_record_count`, 0 AS `position_delete_file_count`, 0 AS `equality_delete_record_count`, " +
			"0 AS `equality_delete_file_count`, (SELECT MAX(committed_at) FROM " + snaps + ") AS `last_updated_at`, " +
			"(SELECT snapshot_id FROM " + snaps + " ORDER BY committed_at DESC LIMIT 1) AS `last_updated_snapshot_id` FROM " + data +
			group + " HAVING COUNT(*) > 0"
		return "(" + sel + ")"
	case "paimon":
		p := "'[]'"
		if len(cols) > 0 {
			p = "CONCAT('[', CONCAT_WS(', ', " + strings.Join(cols, ", ") + "), ']')"
		}
		return "(SELECT " + p + " AS `partition`, COUNT(*) AS `record_count`, 1024 + 48 * COUNT(*) AS `file_size_in_bytes`, " +
			"1 AS `file_count`, (SELECT MAX(commit_time) FROM " + snaps + ") AS `last_update_time` FROM " + data + group +
			" HAVING COUNT(*) > 0)"
	case "hive":
		if len(cols) == 0 {
			return ""
		}
		return "(SELECT DISTINCT " + strings.Join(cols, ", ") + " FROM " + data + ")"
	}
	return ""
}

// icebergMeta translates iceberg_meta("table" = "c.db.t", "query_type" =
// "snapshots") into a derived table over the snapshot table. Before 3.1 a
// snapshot without a parent shows parent_id -1, as the table function did.
func (c *conn) icebergMeta(args []token) (string, *dorisErr) {
	kv := map[string]string{}
	for i := 0; i < len(args); i += 4 {
		if i+2 >= len(args) || args[i].kind != tkString || !args[i+1].isP("=") || args[i+2].kind != tkString {
			return "", newDorisErr(1105, "HY000", "iceberg_meta: arguments must be \"key\" = \"value\" pairs")
		}
		kv[strings.ToLower(args[i].str())] = args[i+2].str()
	}
	if qt := strings.ToLower(kv["query_type"]); qt != "snapshots" {
		return "", newDorisErr(1105, "HY000", "Unsupported query type: "+kv["query_type"])
	}
	parts := strings.Split(kv["table"], ".")
	var r extRef
	switch len(parts) {
	case 3:
		cat := c.extCatalogOf(parts[0])
		if cat == nil {
			return "", newDorisErr(1105, "HY000", "Unknown catalog '"+parts[0]+"'")
		}
		r = extRef{cat: cat, db: parts[1], table: parts[2]}
	case 2:
		cat := c.currentExt()
		if cat == nil {
			return "", newDorisErr(1105, "HY000", "iceberg_meta: the table must be an Iceberg table: "+kv["table"])
		}
		r = extRef{cat: cat, db: parts[0], table: parts[1]}
	default:
		return "", newDorisErr(1105, "HY000", "Invalid iceberg table name: "+kv["table"])
	}
	if derr := r.cat.usable(); derr != nil {
		return "", derr
	}
	if r.format(c.s.lake.table(r.backing(), r.table)) != "iceberg" {
		return "", newDorisErr(1105, "HY000", "Catalog of "+r.cat.name+" is not an iceberg catalog")
	}
	parent := "parent_id"
	if !c.s.profile().versionAtLeast(sysTablesSince) {
		parent = "COALESCE(parent_id, -1) AS parent_id"
	}
	return "(SELECT committed_at, snapshot_id, " + parent + ", operation, manifest_list, summary FROM " +
		qualified(r.backing(), r.table+"$snapshots") + ")", nil
}
