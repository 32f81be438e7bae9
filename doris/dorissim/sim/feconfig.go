package sim

import (
	"sort"
	"strconv"
	"strings"
	"sync"
)

// FE configuration: SHOW FRONTEND CONFIG [LIKE 'pattern'] and ADMIN SET
// FRONTEND CONFIG ("key" = "value"). Both need the ADMIN privilege, as in
// Doris (ShowConfigCommand checks PrivPredicate.ADMIN and answers
// ERR_SPECIFIC_ACCESS_DENIED_ERROR). Values live per simulated FE, in
// memory, like a running FE's Config fields; Options.FEConfig stands for
// fe.conf.

// feConfigEntry is one Config field: its type name as ConfigBase reports
// it (the Java simple name) and whether ADMIN SET may change it.
type feConfigEntry struct {
	key, value, typ string
	mutable, master bool
	comment         string
}

// feConfigCols are the SHOW FRONTEND CONFIG columns (ShowConfigCommand
// FE_TITLE_NAMES).
var feConfigCols = []string{"Key", "Value", "Type", "IsMutable", "MasterOnly", "Comment"}

// baseFEConfig is the part of fe.conf the simulator knows, per profile.
// authentication_type and the ldap_* keys are the ones the MCP server's
// auth-mapping child reads; activate_lineage_plugin and
// lineage_event_queue_size exist from Doris 4.0.6 (the lineage plugin SPI).
func (p profile) baseFEConfig() []feConfigEntry {
	out := []feConfigEntry{
		{key: "authentication_type", value: "default", typ: "String"},
		{key: "check_java_version", value: "true", typ: "boolean"},
		{key: "enable_outfile_to_local", value: "false", typ: "boolean"},
		{key: "ldap_authentication_enabled", value: "false", typ: "boolean"},
		{key: "ldap_default_roles", value: "", typ: "String", mutable: true},
		{key: "ldap_use_ssl", value: "false", typ: "boolean"},
		{key: "max_running_txn_num_per_db", value: "1000", typ: "int", mutable: true, master: true},
		{key: "qe_max_connection", value: "1024", typ: "int"},
		{key: "query_port", value: "9030", typ: "int"},
		{key: "audit_log_dir", value: "/opt/apache-doris/fe/log", typ: "String"},
		{key: "enable_audit_plugin", value: "true", typ: "boolean", mutable: true},
	}
	if p.versionAtLeast("4.0.6") {
		out = append(out,
			feConfigEntry{key: "activate_lineage_plugin", value: "[]", typ: "String[]",
				comment: "Active lineage plugins. Specify the name returned by LineagePlugin.name()"},
			feConfigEntry{key: "lineage_event_queue_size", value: "50000", typ: "int"})
	}
	return out
}

// feConfig holds one FE's configuration values that differ from the
// profile's defaults (from Options.FEConfig or ADMIN SET FRONTEND CONFIG).
type feConfig struct {
	mu  sync.Mutex // protects set
	set map[string]string
}

func newFEConfig(initial map[string]string) *feConfig {
	f := &feConfig{set: map[string]string{}}
	for k, v := range initial {
		f.set[strings.ToLower(k)] = v
	}
	return f
}

// rows returns the SHOW FRONTEND CONFIG rows matching the LIKE pattern
// ("" matches all), sorted by key as ConfigBase sorts them.
func (f *feConfig) rows(p profile, pattern string) [][]any {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out [][]any
	for _, e := range p.baseFEConfig() {
		if pattern != "" && !likeMatch(pattern, e.key) {
			continue
		}
		v := e.value
		if s, ok := f.set[e.key]; ok {
			v = s
		}
		out = append(out, []any{e.key, v, e.typ, strconv.FormatBool(e.mutable), strconv.FormatBool(e.master), e.comment})
	}
	sort.Slice(out, func(i, j int) bool { return out[i][0].(string) < out[j][0].(string) })
	return out
}

// setMutable changes a mutable key, as ConfigBase.setMutableConfig does.
func (f *feConfig) setMutable(p profile, key, value string) *dorisErr {
	for _, e := range p.baseFEConfig() {
		if e.key != key {
			continue
		}
		if !e.mutable {
			break
		}
		if e.typ == "int" {
			if _, err := strconv.Atoi(value); err != nil {
				return newDorisErr(1105, "HY000", "Failed to set config '"+key+"'. err: For input string: \""+value+"\"")
			}
		}
		if e.typ == "boolean" && value != "true" && value != "false" {
			return newDorisErr(1105, "HY000", "Failed to set config '"+key+"'. err: type mismatch")
		}
		f.mu.Lock()
		f.set[key] = value
		f.mu.Unlock()
		return nil
	}
	return newDorisErr(1105, "HY000", "Config '"+key+"' does not exist or is not mutable")
}

func adminConfigDenied() *dorisErr {
	return &dorisErr{1227, "42000", "errCode = 2, detailMessage = Access denied; you need (at least one of) the (ADMIN) privilege(s) for this operation"}
}

// showFrontendConfig: SHOW FRONTEND CONFIG [LIKE 'pattern'] at ts[i] (the
// word after CONFIG).
func (c *conn) showFrontendConfig(ts []token, i int) error {
	if !c.admin {
		return c.send(adminConfigDenied())
	}
	pat := ""
	if i < len(ts) && ts[i].is("LIKE") && i+1 < len(ts) {
		pat = ts[i+1].str()
	}
	return c.sendResult(feConfigCols, c.s.feConf.rows(c.s.profile(), pat))
}

// adminSetFrontendConfig: ADMIN SET [ALL] FRONTEND[S] CONFIG ("k" = "v").
func (c *conn) adminSetFrontendConfig(ts []token) error {
	if !c.admin {
		return c.send(adminConfigDenied())
	}
	i := 0
	for i < len(ts) && !ts[i].isP("(") {
		i++
	}
	if i+4 >= len(ts) || ts[i+1].kind != tkString || !ts[i+2].isP("=") || ts[i+3].kind != tkString || !ts[i+4].isP(")") {
		return c.send(newDorisErr(1105, "HY000", "\nmismatched input '<EOF>' expecting '('(line 1, pos 0)"))
	}
	if derr := c.s.feConf.setMutable(c.s.profile(), strings.ToLower(ts[i+1].str()), ts[i+3].str()); derr != nil {
		return c.send(derr)
	}
	return c.sendOK(0, "")
}
