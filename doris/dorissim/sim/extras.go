package sim

import (
	"regexp"
	"strings"
)

// ---------------------------------------------------------------- SHOW GRANTS

func (p profile) grantsCols() []string {
	c := []string{"UserIdentity", "Comment", "Password"}
	if p.atLeast("4.0") {
		c = append(c, "RequireSan")
	}
	c = append(c, "Roles", "GlobalPrivs", "CatalogPrivs", "DatabasePrivs", "TablePrivs", "ColPrivs", "ResourcePrivs")
	if p.atLeast("3.0") {
		c = append(c, "CloudClusterPrivs", "CloudStagePrivs", "StorageVaultPrivs")
	}
	c = append(c, "WorkloadGroupPrivs")
	if p.atLeast("4.0") {
		c = append(c, "ComputeGroupPrivs")
	}
	return c
}

var (
	reGrant  = regexp.MustCompile("^GRANT (.+?) ON (\\S+) TO [`']([^`']*)[`']@[`']([^`']*)[`']")
	privRank = []string{"Node_priv", "Admin_priv", "Grant_priv", "Select_priv", "Load_priv", "Alter_priv",
		"Create_priv", "Drop_priv", "Usage_priv", "Show_view_priv"}
)

func dorisPrivs(list string, grantOpt bool) []string {
	set := map[string]bool{}
	for _, pr := range strings.Split(list, ",") {
		switch strings.ToUpper(strings.TrimSpace(pr)) {
		case "ALL PRIVILEGES", "ALL":
			for _, x := range []string{"Select_priv", "Load_priv", "Alter_priv", "Create_priv", "Drop_priv", "Show_view_priv"} {
				set[x] = true
			}
		case "SELECT":
			set["Select_priv"] = true
		case "INSERT", "UPDATE", "DELETE":
			set["Load_priv"] = true
		case "CREATE", "CREATE VIEW", "CREATE TEMPORARY TABLES":
			set["Create_priv"] = true
		case "DROP":
			set["Drop_priv"] = true
		case "ALTER", "INDEX":
			set["Alter_priv"] = true
		case "SHOW VIEW":
			set["Show_view_priv"] = true
		}
	}
	if grantOpt {
		set["Grant_priv"] = true
	}
	var out []string
	for _, r := range privRank {
		if set[r] {
			out = append(out, r)
		}
	}
	return out
}

// showGrants turns MariaDB's GRANT lines into Doris's SHOW GRANTS row.
func (c *conn) showGrants(sql string, ts []token) error {
	p := c.s.profile()
	q := "SHOW GRANTS"
	for k, t := range ts {
		if t.is("FOR") {
			q += " " + tailAfter(sql, k)
			break
		}
	}
	r, sent, err := c.upQuery(q, sql, 1000)
	if sent || err != nil {
		return err
	}
	user, host := c.user, "%"
	var global, dbs, tables []string
	admin := false
	for _, row := range r.rows {
		line := deref(row[0])
		m := reGrant.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		user = m[3]
		privs := dorisPrivs(m[1], strings.Contains(line, "WITH GRANT OPTION"))
		target := strings.ReplaceAll(m[2], "`", "")
		switch {
		case target == "*.*":
			if strings.HasPrefix(m[1], "ALL PRIVILEGES") {
				admin = true
				global = append(global, "Node_priv", "Admin_priv")
			} else if len(privs) > 0 {
				global = append(global, privs...)
			}
		case strings.HasSuffix(target, ".*"):
			db := strings.TrimSuffix(target, ".*")
			if db == simSchema {
				continue
			}
			if len(privs) > 0 {
				dbs = append(dbs, "internal."+db+": "+strings.Join(privs, ","))
			}
		default:
			if len(privs) > 0 {
				tables = append(tables, "internal."+target+": "+strings.Join(privs, ","))
			}
		}
	}
	dbs = append(dbs, "internal.information_schema: Select_priv")
	nullIfEmpty := func(xs []string, sep string) any {
		if len(xs) == 0 {
			return nil
		}
		return strings.Join(xs, sep)
	}
	roles := ""
	if admin {
		roles = "admin"
		if user == "root" {
			roles = "operator"
		}
	}
	vals := map[string]any{
		"UserIdentity": "'" + user + "'@'" + host + "'", "Comment": "", "Password": "Yes", "RequireSan": "",
		"Roles": roles, "GlobalPrivs": nullIfEmpty(global, ","), "CatalogPrivs": nil,
		"DatabasePrivs": nullIfEmpty(dbs, "; "), "TablePrivs": nullIfEmpty(tables, "; "), "ColPrivs": nil,
		"ResourcePrivs": nil, "CloudClusterPrivs": nil, "CloudStagePrivs": nil, "StorageVaultPrivs": nil,
		"WorkloadGroupPrivs": "normal: Usage_priv", "ComputeGroupPrivs": nil,
	}
	cols := p.grantsCols()
	row := make([]any, len(cols))
	for i, col := range cols {
		row[i] = vals[col]
	}
	return c.sendResult(cols, [][]any{row})
}

// ---------------------------------------------------------------- canned Doris SHOW statements

var (
	showLoadCols = []string{"JobId", "Label", "State", "Progress", "Type", "EtlInfo", "TaskInfo", "ErrorMsg",
		"CreateTime", "EtlStartTime", "EtlFinishTime", "LoadStartTime", "LoadFinishTime", "URL", "JobDetails",
		"TransactionId", "ErrorTablets", "User", "Comment"}
	showStreamLoadCols = []string{"Label", "Db", "Table", "ClientIp", "Status", "Message", "Url", "TotalRows",
		"LoadedRows", "FilteredRows", "UnselectedRows", "LoadBytes", "StartTime", "FinishTime", "User", "Comment"}
	showRoutineLoadCols = []string{"Id", "Name", "CreateTime", "PauseTime", "EndTime", "DbName", "TableName",
		"IsMultiTable", "State", "DataSourceType", "CurrentTaskNum", "JobProperties", "DataSourceProperties",
		"CustomProperties", "Statistic", "Progress", "Lag", "ReasonOfStateChanged", "ErrorLogUrls", "OtherMsg",
		"User", "Comment"}
	showAlterColumnCols = []string{"JobId", "TableName", "CreateTime", "FinishTime", "IndexName", "IndexId",
		"OriginIndexId", "SchemaVersion", "TransactionId", "State", "Msg", "Progress", "Timeout"}
	showAlterRollupCols = []string{"JobId", "TableName", "CreateTime", "FinishTime", "BaseIndexName",
		"RollupIndexName", "RollupId", "TransactionId", "State", "Msg", "Progress", "Timeout"}
	showBuildIndexCols = []string{"JobId", "TableName", "PartitionName", "AlterInvertedIndexes", "CreateTime",
		"FinishTime", "TransactionId", "State", "Msg", "Progress"}
	showBrokerCols = []string{"Name", "Host", "Port", "Alive", "LastStartTime", "LastUpdateTime", "ErrMsg"}
)

// cannedEmpty returns the columns of Doris statements about jobs the
// simulator never has (loads, schema changes, brokers): an empty result.
func cannedEmpty(ts []token) []string {
	at := func(i int) token {
		if i < len(ts) {
			return ts[i]
		}
		return token{}
	}
	switch {
	case at(0).is("LOAD"):
		return showLoadCols
	case at(0).is("STREAM") && at(1).is("LOAD"):
		return showStreamLoadCols
	case at(0).is("ROUTINE") && at(1).is("LOAD"), at(0).is("ALL") && at(1).is("ROUTINE") && at(2).is("LOAD"):
		if at(2).is("TASK") || at(3).is("TASK") {
			return nil
		}
		return showRoutineLoadCols
	case at(0).is("ALTER") && at(1).is("TABLE") && at(2).is("COLUMN"):
		return showAlterColumnCols
	case at(0).is("ALTER") && at(1).is("TABLE") && (at(2).is("ROLLUP") || at(2).is("MATERIALIZED")):
		return showAlterRollupCols
	case at(0).is("BUILD") && at(1).is("INDEX"):
		return showBuildIndexCols
	case at(0).is("BROKER"):
		return showBrokerCols
	}
	return nil
}
