package governance_test

// doris_governance against the simulator, continued: column profiles,
// storage, UDFs, auth mapping, planted secrets, the availability goldens
// and the demo's first try.

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/doris-mcp/doris-mcp-server/doris"
	"github.com/doris-mcp/doris-mcp-server/doris/dorissim/mariadb"
	"github.com/doris-mcp/doris-mcp-server/doris/doristest"
)

// columnProfile decodes analyze_columns.
type columnProfile struct {
	SampleRatio *float64 `json:"sample_ratio"`
	Sample      *struct {
		Rows    int64 `json:"rows"`
		Percent int   `json:"percent"`
	} `json:"sample"`
	Columns []struct {
		Name             string   `json:"name"`
		NullCount        *int64   `json:"null_count"`
		DistinctEstimate *int64   `json:"distinct_estimate"`
		NullRatio        *float64 `json:"null_ratio"`
		Statistics       *struct {
			RowCount      int64 `json:"row_count"`
			NullCount     int64 `json:"null_count"`
			DistinctCount int64 `json:"distinct_count"`
		} `json:"statistics"`
		Risks []string `json:"risks"`
	} `json:"columns"`
}

// TestGovernanceAnalyzeColumns: recorded statistics (after ANALYZE through
// the simulator) and a full sample equal COUNT(*) - COUNT(c) and
// COUNT(DISTINCT c) computed in MariaDB.
func TestGovernanceAnalyzeColumns(t *testing.T) {
	cols := []string{"email", "city", "segment", "lifetime_value", "phone"}
	for _, p := range doristest.Profiles {
		t.Run(p, func(t *testing.T) {
			e := doristest.NewEnv(t, doristest.EnvOpts{Profile: p, Config: func(c *doris.Config) { c.Governance.MaxSampleRatio = 1 }})
			rd := doristest.Direct(t, e.Sim.Addr(), mariadb.ReaderUser, mariadb.ReaderPassword, "demo")
			e.Exec(rd, "ANALYZE TABLE demo.customers WITH SYNC")
			var prof columnProfile
			cd := e.Ok("doris_governance", "analyze_columns", map[string]any{"database": "demo", "table": "customers", "columns": cols, "sample_ratio": 1}).Decode(t, &prof)
			if cd.Status != "success" || prof.Sample == nil || prof.Sample.Percent != 100 || len(prof.Columns) != len(cols) {
				t.Fatalf("profile %s", cd.Data)
			}
			for i, c := range prof.Columns {
				var rows, nulls, distinct int64
				if err := e.RootDB().QueryRow(fmt.Sprintf("SELECT COUNT(*), COUNT(*) - COUNT(`%s`), COUNT(DISTINCT `%s`) FROM demo.customers", c.Name, c.Name)).
					Scan(&rows, &nulls, &distinct); err != nil {
					t.Fatal(err)
				}
				if c.Name != cols[i] || c.NullCount == nil || *c.NullCount != nulls || c.DistinctEstimate == nil || *c.DistinctEstimate != distinct {
					t.Fatalf("%s sample: nulls %v distinct %v, MariaDB %d %d", c.Name, c.NullCount, c.DistinctEstimate, nulls, distinct)
				}
				if s := c.Statistics; s == nil || s.RowCount != rows || s.NullCount != nulls || s.DistinctCount != distinct {
					t.Fatalf("%s statistics %+v, MariaDB rows %d nulls %d distinct %d", c.Name, s, rows, nulls, distinct)
				}
				if c.NullRatio == nil || *c.NullRatio != float64(int64(float64(nulls)/float64(rows)*1e6+0.5))/1e6 {
					t.Fatalf("%s null ratio %v", c.Name, c.NullRatio)
				}
			}
			// The ceiling: 0.9 asked, GOVERNANCE_MAX_SAMPLE_RATIO 0.25 applied.
			e.Cfg.Governance.MaxSampleRatio = 0.25
			e.Open()
			cd = e.Ok("doris_governance", "analyze_columns", map[string]any{"database": "demo", "table": "orders", "columns": []string{"status"}, "sample_ratio": 0.9}).Decode(t, &prof)
			if *prof.SampleRatio != 0.25 || prof.Sample.Percent != 25 || prof.Sample.Rows == 0 || prof.Sample.Rows >= 5000 || len(cd.Warnings) == 0 {
				t.Fatalf("capped sample %s %v", cd.Data, cd.Warnings)
			}
			// No sample unless asked: no sample query runs at all.
			prof = columnProfile{}
			cd = e.Ok("doris_governance", "analyze_columns", map[string]any{"database": "demo", "table": "orders"}).Decode(t, &prof)
			if prof.Sample != nil || prof.SampleRatio != nil || len(prof.Columns) != 14 || prof.Columns[0].NullCount != nil {
				t.Fatalf("unsampled %s", cd.Data)
			}
			e.Fail("doris_governance", "analyze_columns", map[string]any{"database": "demo", "table": "orders", "columns": []string{"nosuch"}},
				"CHILD_ARGUMENTS_INVALID", "GOVERNANCE_COLUMN_NOT_FOUND")
			e.Fail("doris_governance", "analyze_columns", map[string]any{"database": "secret", "table": "salaries"},
				"CHILD_ARGUMENTS_INVALID", "GOVERNANCE_TABLE_NOT_FOUND")
		})
	}
}

// TestGovernanceTableStorage: layout from SHOW CREATE TABLE, statistics,
// partitions and indexes; properties outside the allowlist are withheld.
func TestGovernanceTableStorage(t *testing.T) {
	for _, p := range doristest.Profiles {
		t.Run(p, func(t *testing.T) {
			e := doristest.NewEnv(t, doristest.EnvOpts{Profile: p})
			var d struct {
				KeyModel     string           `json:"key_model"`
				KeyColumns   []string         `json:"key_columns"`
				Distribution string           `json:"distribution"`
				Replication  string           `json:"replication"`
				Storage      string           `json:"storage_format"`
				RowCount     int64            `json:"row_count"`
				Properties   map[string]any   `json:"properties"`
				Withheld     int              `json:"properties_withheld"`
				Partitions   []map[string]any `json:"partitions"`
				Indexes      []map[string]any `json:"indexes"`
			}
			cd := e.Ok("doris_governance", "analyze_table_storage", map[string]any{"database": "demo", "table": "orders",
				"include_partitions": true, "include_indexes": true}).Decode(t, &d)
			var rows int64
			e.RootDB().QueryRow("SELECT COUNT(*) FROM demo.orders").Scan(&rows)
			if d.KeyModel != "unique_key" || strings.Join(d.KeyColumns, ",") != "order_id" || d.Distribution != "HASH(order_id) BUCKETS 10" ||
				d.Replication != "tag.location.default: 1" || d.Storage != "V2" || d.RowCount != rows || len(d.Partitions) != 1 {
				t.Fatalf("storage %s", cd.Data)
			}
			var idx []string
			for _, i := range d.Indexes {
				idx = append(idx, fmt.Sprint(i["name"], ":", i["column"]))
			}
			if strings.Join(idx, " ") != "idx_customer:customer_id idx_order_date:order_date idx_status_date:status idx_status_date:order_date" {
				t.Fatalf("indexes %v", idx)
			}
			if d.Withheld != 0 {
				t.Fatalf("withheld %d of the simulator's own properties: %v", d.Withheld, d.Properties)
			}
		})
	}
}

// TestGovernanceListUDFs: a UDF created through the simulator is reported
// with its properties; its location loses user info and signature.
func TestGovernanceListUDFs(t *testing.T) {
	for _, p := range doristest.Profiles {
		t.Run(p, func(t *testing.T) {
			e := doristest.NewEnv(t, doristest.EnvOpts{Profile: p})
			name := "tax_rate_" + doristest.Uniq(t)
			w := e.Writer()
			e.Exec(w, fmt.Sprintf(`CREATE FUNCTION demo.%s(DECIMAL(12,2), VARCHAR(2)) RETURNS DECIMAL(12,2) PROPERTIES ("file" = "https://deploy:PlantedUdfPw9@repo.example.com/udf/tax.jar?X-Amz-Signature=PlantedSig77", "symbol" = "com.example.udf.TaxRate", "type" = "JAVA_UDF", "always_nullable" = "false")`, name))
			t.Cleanup(func() { w.Exec(fmt.Sprintf("DROP FUNCTION demo.%s(DECIMAL(12,2), VARCHAR(2))", name)) })
			var c struct {
				Items []doristest.UDFItem `json:"items"`
			}
			ev := e.Ok("doris_governance", "list_udfs", map[string]any{"database": "demo", "name_pattern": "tax_rate_*"})
			ev.Decode(t, &c)
			if len(c.Items) != 1 {
				t.Fatalf("items %s", ev.Raw)
			}
			it := c.Items[0]
			if it.Name != name || it.Signature != name+"(DECIMAL(12,2), VARCHAR(2))" || it.ReturnType != "DECIMAL(12,2)" || it.Language != "java" ||
				it.Kind != "scalar" || it.Scope != "database" || it.Properties["symbol"] != "com.example.udf.TaxRate" ||
				it.Properties["file"] != "https://repo.example.com/udf/tax.jar" {
				t.Fatalf("udf %+v", it)
			}
			for _, secret := range []string{"PlantedUdfPw9", "PlantedSig77", "deploy:"} {
				if strings.Contains(string(ev.Raw), secret) {
					t.Fatalf("%q leaked: %s", secret, ev.Raw)
				}
			}
			c.Items = nil
			e.Ok("doris_governance", "list_udfs", map[string]any{"database": "demo", "name_pattern": name, "language": "python"}).Decode(t, &c)
			if len(c.Items) != 0 {
				t.Fatalf("language filter %+v", c.Items)
			}
			e.Fail("doris_governance", "list_udfs", map[string]any{"database": "demo", "name_pattern": "[x"}, "CHILD_ARGUMENTS_INVALID", "GOVERNANCE_PATTERN_INVALID")
		})
	}
}

// TestGovernanceAuditLogUnreadable: an account that may not read the audit
// log gets the audit children unavailable with the probe's reason, and the
// lineage status says why; the other children still answer.
func TestGovernanceAuditLogUnreadable(t *testing.T) {
	in := mariadb.SharedFor(t)
	who := "gov_noaudit_" + doristest.Uniq(t)
	doristest.NewAccount(t, in, who, "noauditpw", "SELECT ON demo.*", "SELECT ON `__doris_sim`.*")
	e := doristest.NewEnv(t, doristest.EnvOpts{User: who, Password: "noauditpw", Users: map[string]string{who: "noauditpw"}})
	m := e.Discover("doris_governance")
	for _, child := range []string{"get_recent_audit_logs", "analyze_data_access_patterns", "trace_column_lineage"} {
		a := m.Availability(t, child).Availability
		if a.Callable || a.ReasonCode != "CAPABILITY_PROBE_PERMISSION_DENIED" {
			t.Fatalf("%s: %+v", child, a)
		}
		e.Fail("doris_governance", child, doristest.ArgsFor(child), "CHILD_CAPABILITY_UNAVAILABLE", "CAPABILITY_PROBE_PERMISSION_DENIED")
	}
	var st struct {
		ActivePath string         `json:"active_path"`
		Reasons    []string       `json:"reasons"`
		AuditLog   map[string]any `json:"audit_log"`
	}
	e.Ok("doris_governance", "get_lineage_capability_status", map[string]any{}).Decode(t, &st)
	if st.ActivePath != "none" || st.AuditLog["readable"] != false || !strings.Contains(strings.Join(st.Reasons, " "), "AUDIT_LOG_UNREADABLE") {
		t.Fatalf("lineage status %+v", st)
	}
	e.Ok("doris_governance", "analyze_columns", map[string]any{"database": "demo", "table": "orders"})
	e.Ok("doris_governance", "list_udfs", map[string]any{"database": "demo"})
}

// authStatus decodes get_auth_mapping_status.
type authStatus struct {
	AuthenticationType *string `json:"authentication_type"`
	LDAP               struct {
		Enabled      any     `json:"enabled"`
		UseSSL       any     `json:"use_ssl"`
		DefaultRoles *string `json:"default_roles"`
	} `json:"ldap"`
	RoleMappings struct {
		Available  bool   `json:"available"`
		ReasonCode string `json:"reason_code"`
	} `json:"role_mappings"`
	Roles []struct {
		Name              string `json:"name"`
		UserCount         int    `json:"user_count"`
		IncludesPrincipal *bool  `json:"includes_principal"`
	} `json:"roles"`
	Ready *bool `json:"ready"`
}

// TestGovernanceAuthMapping: LDAP settings from fe.conf, roles created
// through the simulator; the reader may not see FE configuration (ADMIN).
func TestGovernanceAuthMapping(t *testing.T) {
	for _, p := range doristest.Profiles {
		t.Run(p, func(t *testing.T) {
			o := doristest.RootOpts(p)
			o.FEConfig = map[string]string{"authentication_type": "ldap", "ldap_authentication_enabled": "true", "ldap_use_ssl": "true",
				"ldap_default_roles": "analysts,readers"}
			e := doristest.NewEnv(t, o)
			role := "auditors_" + doristest.Uniq(t)
			adm := doristest.Direct(t, e.Sim.Addr(), "root", mariadb.DefaultRootPassword, "demo")
			e.Exec(adm, "CREATE ROLE "+role, "GRANT '"+role+"' TO 'mcp_reader'@'%'")
			t.Cleanup(func() { adm.Exec("DROP ROLE IF EXISTS " + role) })
			var s authStatus
			cd := e.Ok("doris_governance", "get_auth_mapping_status", map[string]any{"provider": "ldap", "include_roles": true, "principal": "mcp_reader"}).Decode(t, &s)
			if deref(s.AuthenticationType) != "ldap" || s.LDAP.Enabled != true || s.LDAP.UseSSL != true || deref(s.LDAP.DefaultRoles) != "analysts,readers" ||
				s.Ready == nil || !*s.Ready || s.RoleMappings.Available || cd.Status != "success" {
				t.Fatalf("status %s", cd.Data)
			}
			found := false
			for _, r := range s.Roles {
				if r.Name == role {
					found = r.UserCount == 1 && r.IncludesPrincipal != nil && *r.IncludesPrincipal
				}
			}
			if !found {
				t.Fatalf("role %s not reported with its member: %s", role, cd.Data)
			}
			s = authStatus{}
			e.Ok("doris_governance", "get_auth_mapping_status", map[string]any{}).Decode(t, &s)
			if s.RoleMappings.ReasonCode != "DORIS_VERSION_BELOW_4_1_2" || s.Roles != nil {
				t.Fatalf("defaults %+v", s)
			}
			// The read-only account: SHOW FRONTEND CONFIG needs ADMIN.
			r := doristest.NewEnv(t, doristest.EnvOpts{Profile: p})
			r.Fail("doris_governance", "get_auth_mapping_status", map[string]any{}, "CHILD_CAPABILITY_UNAVAILABLE", "CAPABILITY_PROBE_PERMISSION_DENIED")
		})
	}
}

// TestGovernanceSecretsNeverLeave plants credentials where Doris keeps
// them (audited statements, table properties, FE configuration, a UDF
// location) and searches every byte of every governance answer for them.
func TestGovernanceSecretsNeverLeave(t *testing.T) {
	secrets := []string{"PlantedPw_A1", "AKIAPLANTED000000001", "PlantedSk_C3", "PlantedLiteral_D4", "PlantedInsert_E5",
		"PlantedComment_F6", "PlantedBare_G7", "PlantedProp_H8", "PlantedLdap_I9", "PlantedAuth_J0", "PlantedUdf_K1", "PlantedSig_L2"}
	for _, p := range doristest.Profiles {
		t.Run(p, func(t *testing.T) {
			o := doristest.RootOpts(p)
			o.FEConfig = map[string]string{"authentication_type": "ldap password=PlantedAuth_J0", "ldap_authentication_enabled": "true",
				"ldap_default_roles": "readers,ldaps://cn=admin:PlantedLdap_I9@ldap.corp"}
			root := doristest.NewEnv(t, o)
			reader := doristest.NewEnv(t, doristest.EnvOpts{Profile: p})
			n := doristest.Uniq(t)
			tbl, src := "sec_t_"+n, "sec_src_"+n
			w := root.Writer()
			root.Exec(w, "CREATE TABLE demo."+src+" (id INT)", "INSERT INTO demo."+src+" VALUES (1), (2)",
				"CREATE TABLE demo."+tbl+" (note VARCHAR(40), id INT)",
				"INSERT INTO demo."+tbl+" (note, id) SELECT 'PlantedInsert_E5', id FROM demo."+src,
				`ALTER TABLE demo.`+tbl+` SET ("s3.secret_key" = "PlantedProp_H8", "compression" = "ZSTD")`,
				"SELECT 1 /* token=PlantedComment_F6 */",
				`CREATE FUNCTION demo.leaky_`+n+`(INT) RETURNS INT PROPERTIES ("file" = "https://ci:PlantedUdf_K1@repo.example.com/u.jar?sig=PlantedSig_L2", "symbol" = "com.example.Leaky", "type" = "JAVA_UDF")`)
			t.Cleanup(func() {
				w.Exec("DROP TABLE IF EXISTS demo." + tbl)
				w.Exec("DROP TABLE IF EXISTS demo." + src)
				w.Exec("DROP FUNCTION demo.leaky_" + n + "(INT)")
			})
			for _, failing := range []string{"CREATE USER 'leaky'@'%' IDENTIFIED BY 'PlantedPw_A1'",
				`CREATE CATALOG s3c PROPERTIES ("type" = "hms", "s3.access_key" = "AKIAPLANTED000000001", "s3.secret_key" = "PlantedSk_C3")`,
				"CREATE USER leaky2 IDENTIFIED BY PlantedBare_G7"} {
				if _, err := w.ExecContext(root.Ctx(), failing); err == nil {
					t.Fatalf("%s: the writer may not do this, yet it worked", failing)
				}
			}
			reader.Query(map[string]any{"sql": "SELECT 'PlantedLiteral_D4' AS planted"})
			root.SyncAudit()
			var recorded int
			root.RootDB().QueryRow("SELECT COUNT(*) FROM __internal_schema.audit_log WHERE stmt LIKE '%Planted%' AND `time` >= NOW() - INTERVAL 10 MINUTE").Scan(&recorded)
			if recorded < 6 {
				t.Fatalf("only %d planted statements reached the audit log: the test would prove little", recorded)
			}
			calls := []struct {
				child string
				args  map[string]any
			}{
				{"get_recent_audit_logs", map[string]any{"window_minutes": 30, "limit": 200}},
				{"get_recent_audit_logs", map[string]any{"window_minutes": 30, "user": mariadb.WriterUser, "limit": 200}},
				{"get_recent_audit_logs", map[string]any{"window_minutes": 30, "table": tbl}},
				{"analyze_data_access_patterns", map[string]any{"window_days": 1, "group_by": "object"}},
				{"analyze_data_access_patterns", map[string]any{"window_days": 1, "group_by": "operation"}},
				{"analyze_data_access_patterns", map[string]any{"window_days": 1, "group_by": "user", "table": tbl}},
				{"trace_column_lineage", map[string]any{"object": "demo." + tbl}},
				{"trace_column_lineage", map[string]any{"object": "demo." + tbl, "column": "note"}},
				{"get_lineage_capability_status", map[string]any{}},
				{"analyze_table_storage", map[string]any{"database": "demo", "table": tbl, "include_partitions": true, "include_indexes": true}},
				{"analyze_columns", map[string]any{"database": "demo", "table": tbl, "sample_ratio": 0.25}},
				{"list_udfs", map[string]any{"database": "demo"}},
				{"list_udfs", map[string]any{}},
				{"get_auth_mapping_status", map[string]any{"include_roles": true}},
				{"get_auth_mapping_status", map[string]any{"provider": "oidc", "principal": "mcp_reader"}},
			}
			var all strings.Builder
			for _, e := range []*doristest.Env{root, reader} {
				for _, c := range calls {
					ev := e.Call("doris_governance", c.child, c.args)
					all.Write(ev.Raw)
				}
			}
			out := all.String()
			for _, s := range secrets {
				if strings.Contains(out, s) {
					i := strings.Index(out, s)
					t.Fatalf("secret %q left the server: …%s…", s, out[max(0, i-200):min(len(out), i+100)])
				}
			}
			// The answers are not empty: the secrets were on the path.
			for _, want := range []string{"'***'", `"properties_withheld":1`, "internal.demo." + tbl, "com.example.Leaky", `"authentication_type":null`} {
				if !strings.Contains(out, want) {
					t.Fatalf("answers lack %s", want)
				}
			}
		})
	}
}

// TestGovernanceAvailabilityGoldens: the doris_governance manifest's
// availability, per release and account, against a reviewed golden file;
// no child is HANDLER_NOT_BOUND.
func TestGovernanceAvailabilityGoldens(t *testing.T) {
	type avail struct {
		Status        string `json:"status"`
		Callable      bool   `json:"callable"`
		ReasonCode    string `json:"reason_code"`
		ActiveVariant string `json:"active_variant,omitempty"`
	}
	got := map[string]map[string]map[string]avail{}
	for _, p := range doristest.Profiles {
		got[p] = map[string]map[string]avail{}
		for _, o := range []doristest.EnvOpts{{Profile: p}, doristest.RootOpts(p)} {
			e := doristest.NewEnv(t, o)
			user := e.Cfg.User
			got[p][user] = map[string]avail{}
			for _, c := range e.Discover("doris_governance").Children {
				a := c.Availability
				if a.ReasonCode == "HANDLER_NOT_BOUND" {
					t.Fatalf("%s as %s: %s is not bound", p, user, c.Name)
				}
				got[p][user][c.Name] = avail{a.Status, a.Callable, a.ReasonCode, a.ActiveVariant}
			}
		}
	}
	b, _ := json.MarshalIndent(got, "", "  ")
	b = append(b, '\n')
	path := filepath.Join("..", "..", "testdata", "golden", "governance-availability.json")
	if *doristest.UpdateGoldens {
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./doris -run TestGovernanceAvailabilityGoldens -governance.update)", err)
	}
	if string(want) != string(b) {
		t.Fatalf("availability differs from %s; if intended, rerun with -governance.update and review the diff:\n%s", path, b)
	}
}

// TestGovernanceDemoFirstTry: on the demo's data set (two weeks of history
// and the day's activity), every governance child finds something true on
// a first try with the demo's read-only account, and the service
// account's password in the history never shows.
func TestGovernanceDemoFirstTry(t *testing.T) {
	mariadb.Require(t)
	in, err := mariadb.Start(context.Background(), mariadb.Options{Logger: doristest.Quiet()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Stop() })
	e := doristest.NewEnv(t, doristest.EnvOpts{Instance: in, Profile: "3.0"})
	if _, err := e.Sim.SeedAuditHistory(e.Ctx(), time.Now(), 14); err != nil {
		t.Fatal(err)
	}
	if err := e.Sim.DemoActivity(e.Ctx()); err != nil {
		t.Fatal(err)
	}
	e.SyncAudit()
	var raw strings.Builder
	answer := func(child string, args map[string]any, v any) doristest.ChildData {
		t.Helper()
		ev := e.Ok("doris_governance", child, args)
		raw.Write(ev.Raw)
		return ev.Decode(t, v)
	}
	var logs struct {
		Items []auditItem `json:"items"`
	}
	answer("get_recent_audit_logs", map[string]any{"user": mariadb.WriterUser}, &logs)
	if len(logs.Items) == 0 || !strings.Contains(logs.Items[len(logs.Items)-1].Stmt, "DROP TABLE") {
		t.Fatalf("writer's day: %+v", logs.Items)
	}
	var g accessGroups
	answer("analyze_data_access_patterns", map[string]any{}, &g)
	if g.count("internal.demo.orders") <= 0 || g.count("internal.demo.daily_revenue") <= 0 || g.Truncated {
		t.Fatalf("access patterns %+v", g)
	}
	answer("analyze_data_access_patterns", map[string]any{"group_by": "hour", "window_days": 14}, &g)
	if len(g.Groups) < 14*16 {
		t.Fatalf("%d hours with activity in two weeks", len(g.Groups))
	}
	var st struct {
		ActivePath string `json:"active_path"`
	}
	answer("get_lineage_capability_status", map[string]any{}, &st)
	if st.ActivePath != "audit_sql_inference" {
		t.Fatalf("lineage path %s", st.ActivePath)
	}
	var l lineage
	cd := answer("trace_column_lineage", map[string]any{"object": "demo.customer_ltv", "direction": "upstream"}, &l)
	if got := strings.Join(l.edges(), "|"); got != "internal.demo.customers -> internal.demo.customer_ltv @1|internal.demo.orders -> internal.demo.customer_ltv @1" {
		t.Fatalf("customer_ltv lineage %s", got)
	}
	t.Logf("trace_column_lineage demo.customer_ltv upstream:\n%s", cd.Data)
	cd = answer("trace_column_lineage", map[string]any{"object": "demo.daily_revenue", "column": "revenue", "direction": "upstream"}, &l)
	t.Logf("trace_column_lineage demo.daily_revenue revenue upstream:\n%s\nwarnings %q", cd.Data, cd.Warnings)
	if got := strings.Join(l.edges(), "|"); got != "internal.demo.orders.total_amount -> internal.demo.daily_revenue.revenue (expression) @1" {
		t.Fatalf("revenue lineage %s", got)
	}
	var prof columnProfile
	answer("analyze_columns", map[string]any{"database": "demo", "table": "customers"}, &prof)
	if prof.Columns[0].Statistics == nil || prof.Columns[0].Statistics.RowCount != mariadb.DemoCustomers {
		t.Fatalf("demo statistics %+v", prof.Columns[0])
	}
	var storage map[string]any
	answer("analyze_table_storage", map[string]any{"database": "demo", "table": "daily_revenue"}, &storage)
	if storage["key_model"] != "unique_key" {
		t.Fatalf("storage %v", storage)
	}
	var udfs struct {
		Items []doristest.UDFItem `json:"items"`
	}
	answer("list_udfs", map[string]any{"database": "demo"}, &udfs)
	if len(udfs.Items) != 1 || udfs.Items[0].Name != "mask_email" {
		t.Fatalf("udfs %+v", udfs.Items)
	}
	answer("get_recent_audit_logs", map[string]any{"user": "root", "operation": "create", "window_minutes": 15 * 1440}, &logs)
	found := false
	for _, it := range logs.Items {
		found = found || it.Stmt == "CREATE USER '***'@'***' IDENTIFIED BY '***'"
	}
	if !found {
		t.Fatalf("the administrator's CREATE USER, sanitised: %+v", logs.Items)
	}
	e.Fail("doris_governance", "get_auth_mapping_status", map[string]any{}, "CHILD_CAPABILITY_UNAVAILABLE", "CAPABILITY_PROBE_PERMISSION_DENIED")
	if strings.Contains(raw.String(), "Loader#2024!demo") {
		t.Fatal("the service account's password in the audit history was shown")
	}
	if !strings.Contains(raw.String(), "IDENTIFIED BY '***'") {
		t.Fatal("the history's CREATE USER statement was not among the answers; the check above proves little")
	}
}
