package sim

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"
)

// profile is one simulated Doris release. Shapes differ per family
// ("2.1", "3.0", "4.0"); the build string is a real Doris build. Doris 4.1
// keeps 4.0's information_schema, SHOW and audit shapes, so its releases
// belong to the "4.0" family; what 4.1 adds is gated on the release with
// versionAtLeast.
type profile struct {
	family  string // "2.1", "3.0" or "4.0" (4.1 releases too)
	version string // "3.0.4"
	build   string // "doris-3.0.4-rc02-39f9074cec"
}

// knownProfiles maps accepted names to profiles. The short family names pick
// one representative real build.
var knownProfiles = map[string]profile{
	"2.1":    {"2.1", "2.1.7", "doris-2.1.7-rc03-443e87e203"},
	"2.1.7":  {"2.1", "2.1.7", "doris-2.1.7-rc03-443e87e203"},
	"2.1.11": {"2.1", "2.1.11", "doris-2.1.11-rc01-97b77e6cda"},
	"3.0":    {"3.0", "3.0.4", "doris-3.0.4-rc02-39f9074cec"},
	"3.0.4":  {"3.0", "3.0.4", "doris-3.0.4-rc02-39f9074cec"},
	"3.0.8":  {"3.0", "3.0.8", "doris-3.0.8-rc01-09b0cc49a6"},
	"4.0":    {"4.0", "4.0.7", "doris-4.0.7-rc02-35854e7e92a"},
	"4.0.7":  {"4.0", "4.0.7", "doris-4.0.7-rc02-35854e7e92a"},
	"4.1":    {"4.0", "4.1.4", "doris-4.1.4-rc04-ad35a140c7f"},
	"4.1.1":  {"4.0", "4.1.1", "doris-4.1.1-rc01-b10073ad9ca"},
	"4.1.3":  {"4.0", "4.1.3", "doris-4.1.3-rc02-7126cf65d96"},
	"4.1.4":  {"4.0", "4.1.4", "doris-4.1.4-rc04-ad35a140c7f"},
}

// Profiles lists the profile names SetProfile and Options.Profile accept.
func Profiles() []string {
	var out []string
	for k := range knownProfiles {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func lookupProfile(name string) (profile, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		name = "3.0"
	}
	if p, ok := knownProfiles[name]; ok {
		return p, nil
	}
	for _, p := range knownProfiles {
		if p.build == name || "Doris version "+p.build == name {
			return p, nil
		}
	}
	return profile{}, fmt.Errorf("sim: unknown profile %q (known: %s)", name, strings.Join(Profiles(), ", "))
}

func (p profile) versionComment() string { return "Doris version " + p.build }

// prefix is the table-name prefix of this family's tables in __doris_sim.
func (p profile) prefix() string { return "p" + strings.ReplaceAll(p.family, ".", "") + "_" }

func (p profile) atLeast(family string) bool { return p.family >= family }

// versionAtLeast compares the profile's release with a dotted version.
func (p profile) versionAtLeast(v string) bool {
	a, b := strings.Split(p.version, "."), strings.Split(v, ".")
	for i := 0; i < 3; i++ {
		x, y := 0, 0
		if i < len(a) {
			x, _ = strconv.Atoi(a[i])
		}
		if i < len(b) {
			y, _ = strconv.Atoi(b[i])
		}
		if x != y {
			return x > y
		}
	}
	return true
}

// topology is what the FE/BE rows describe.
type topology struct {
	feHost            string
	queryPort, feHTTP int
	beHost            string
	beHTTP            int
	started           time.Time
}

const (
	feName      = "fe_65a0c6f0_b31f_42ac_bd20_26d851299f1a"
	clusterID   = "840241689"
	backendID   = "10002"
	journalBase = 302891
)

func fmtTime(t time.Time) string { return t.Format("2006-01-02 15:04:05") }

// frontendsCols are the SHOW FRONTENDS columns (2.1.7 and later).
var frontendsCols = []string{"Name", "Host", "EditLogPort", "HttpPort", "QueryPort", "RpcPort", "ArrowFlightSqlPort",
	"Role", "IsMaster", "ClusterId", "Join", "Alive", "ReplayedJournalId", "LastStartTime", "LastHeartbeat", "IsHelper",
	"ErrMsg", "Version", "CurrentConnected"}

func (p profile) frontendRows(t topology, now time.Time) [][]any {
	journal := journalBase + int(now.Sub(t.started).Seconds())
	return [][]any{{feName, t.feHost, "9010", itoa(t.feHTTP), itoa(t.queryPort), "9020", "10030", "FOLLOWER", "true",
		clusterID, "true", "true", itoa(journal), fmtTime(t.started), fmtTime(later(t.started, now.Add(-2*time.Second))), "true", "",
		p.build, "Yes"}}
}

func (p profile) backendsCols() []string {
	c := []string{"BackendId", "Host", "HeartbeatPort", "BePort", "HttpPort", "BrpcPort", "ArrowFlightSqlPort",
		"LastStartTime", "LastHeartbeat", "Alive", "SystemDecommissioned", "TabletNum", "DataUsedCapacity",
		"TrashUsedCapacity", "AvailCapacity", "TotalCapacity", "UsedPct", "MaxDiskUsedPct", "RemoteUsedCapacity", "Tag",
		"ErrMsg", "Version", "Status", "HeartbeatFailureCounter"}
	if p.atLeast("3.0") {
		c = append(c, "CpuCores", "Memory", "RunningTasks")
	}
	return append(c, "NodeRole")
}

func (p profile) backendRows(t topology, now time.Time, running int) [][]any {
	status := fmt.Sprintf(`{"lastSuccessReportTabletsTime":"%s","lastStreamLoadTime":%d,"isQueryDisabled":false,"isLoadDisabled":false}`,
		fmtTime(now.Add(-41*time.Second)), t.started.Add(-3*time.Hour).UnixMilli())
	row := []any{backendID, t.beHost, "9050", "9060", itoa(t.beHTTP), "8060", "10040", fmtTime(t.started),
		fmtTime(later(t.started, now.Add(-3*time.Second))), "true", "false", "281", "9.690 MB", "0.000", "10.505 GB", "71.750 GB",
		"85.36 %", "85.36 %", "0.000", `{"location" : "default"}`, "", p.build, status, "0"}
	if p.atLeast("3.0") {
		row = append(row, "2", "23.48 GB", itoa(running))
	}
	return [][]any{append(row, "mix")}
}

var procRoot = []string{"auth", "backends", "bdbje", "binlog", "brokers", "catalogs", "cluster_balance",
	"cluster_health", "colocation_group", "current_backend_instances", "current_queries", "current_query_stmts",
	"dbs", "diagnose", "frontends", "jobs", "monitor", "resources", "routine_loads", "statistic", "stream_loads",
	"tasks", "transactions", "trash"}

var currentQueriesCols = []string{"QueryId", "ConnectionId", "Catalog", "Database", "User", "ExecTime", "SqlHash", "Statement"}

func (p profile) catalogsCols() []string {
	if p.atLeast("3.0") {
		return []string{"CatalogId", "CatalogName", "Type", "IsCurrent", "CreateTime", "LastUpdateTime", "Comment"}
	}
	return []string{"CatalogId", "CatalogName", "Type", "IsCurrent", "CreateTime", "Comment"}
}

// workloadGroup is one group; both shapes are derived from it.
type workloadGroup struct {
	id                          string
	name                        string
	cpuShare, memLimit          string
	maxConc, queueSize, queueTO string
	cpuHard, scanThreads        string
	minCPU, maxCPU              string
	minMem, maxMem              string
	lowWM, highWM               string
}

func (p profile) workloadGroups() []workloadGroup {
	base := "10343386"
	etl := "10343387"
	if p.atLeast("4.0") {
		base, etl = "1754728930516", "1754728930517"
	}
	return []workloadGroup{
		{id: base, name: "normal", cpuShare: "1024", memLimit: "30%", maxConc: "2147483647", queueSize: "0", queueTO: "0",
			cpuHard: "-1", scanThreads: "-1", minCPU: "0%", maxCPU: "100%", minMem: "0%", maxMem: "100%", lowWM: "75%", highWM: "85%"},
		{id: etl, name: "etl", cpuShare: "256", memLimit: "20%", maxConc: "4", queueSize: "16", queueTO: "30000",
			cpuHard: "30%", scanThreads: "16", minCPU: "20%", maxCPU: "30%", minMem: "0%", maxMem: "50%", lowWM: "75%", highWM: "85%"},
	}
}

// processlistCols are the SHOW PROCESSLIST columns per family.
func (p profile) processlistCols() []string {
	c := []string{"CurrentConnected", "Id", "User", "Host", "LoginTime", "Catalog", "Db", "Command", "Time", "State", "QueryId"}
	if p.atLeast("4.0") {
		return append(c, "TraceId", "Info", "FE", "CloudCluster")
	}
	return append(c, "Info")
}

func (p profile) timeoutMessage() string {
	if p.atLeast("3.0") {
		return "errCode = 2, detailMessage = query is timeout, killed by timeout checker"
	}
	return "errCode = 2, detailMessage = Timeout"
}

// dorisVariables are Doris session variables the simulator answers itself
// (name -> default value). query_timeout is handled per connection.
var dorisVariables = map[string]string{
	"query_timeout":                       "900",
	"insert_timeout":                      "14400",
	"enable_profile":                      "false",
	"session_context":                     "",
	"exec_mem_limit":                      "2147483648",
	"enable_nereids_planner":              "true",
	"enable_fallback_to_original_planner": "false",
	"parallel_pipeline_task_num":          "0",
	"runtime_filter_mode":                 "GLOBAL",
	"enable_sql_cache":                    "false",
	"enable_query_cache":                  "false",
	"enable_spill":                        "false",
	"show_all_fe_connection":              "false",
	"show_user_default_role":              "false",
	"workload_group":                      "",
	"enable_partition_cache":              "false",
	"profile_level":                       "1",
	"auto_profile_threshold_ms":           "-1",
	"enable_audit_plugin":                 "false", // a global (metadata.go)
	"audit_plugin_max_batch_interval_sec": "60",
	"audit_plugin_max_batch_bytes":        "52428800",
	"audit_plugin_max_sql_length":         "4096",
	"license":                             "Apache License, Version 2.0",
	"lower_case_table_names":              "0",
	"max_execution_time":                  "900000",
	"parallel_fragment_exec_instance_num": "8",
	"resource_group":                      "",
	"dry_run_query":                       "false",
	"enable_unique_key_partial_update":    "false",
}

func itoa(n int) string { return fmt.Sprint(n) }

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
