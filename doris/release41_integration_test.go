package doris_test

// The catalog's Doris 4.1 variants, end to end on the simulator's 4.1
// profiles: each test makes the state the variant reads (Iceberg writes,
// VARIANT column settings, a Python UDF) and compares the answer with what
// it did, and checks that the same call on 4.0 keeps the older variant.

import (
	"fmt"
	"strings"
	"testing"

	"github.com/doris-mcp/doris-mcp-server/doris/dorissim/mariadb"
	"github.com/doris-mcp/doris-mcp-server/doris/dorissim/sim"
	"github.com/doris-mcp/doris-mcp-server/doris/doristest"
)

// lifecycleResult decodes inspect_lakehouse_table's 4.1 additions.
type lifecycleResult struct {
	Snapshots []struct {
		Operation string           `json:"operation"`
		Summary   map[string]int64 `json:"summary"`
	} `json:"snapshots"`
	Lifecycle *struct {
		DeletionVectors bool     `json:"deletion_vectors_observed"`
		RowLineage      []string `json:"row_lineage_columns"`
	} `json:"lifecycle"`
}

// TestLakehouseLifecycle41: on 4.1 inspect_lakehouse_table runs
// lakehouse_lifecycle_4_1 and reports deletion vectors exactly for the
// Iceberg table the test made as format version 3 and deleted from; the v2
// table with the same writes has position deletes only. On 4.0 the
// lifecycle block is absent.
func TestLakehouseLifecycle41(t *testing.T) {
	for _, tc := range []struct {
		profile, variant string
		lifecycle        bool
	}{
		{"4.1", "lakehouse_lifecycle_4_1", true},
		{"4.0", "lakehouse_table_metadata", false},
	} {
		t.Run(tc.profile, func(t *testing.T) {
			e := doristest.NewEnv(t, doristest.EnvOpts{Profile: tc.profile, NoAudit: true})
			if v := e.Discover("doris_lakehouse").Availability(t, "inspect_lakehouse_table").Availability.ActiveVariant; v != tc.variant {
				t.Fatalf("active variant %s, want %s", v, tc.variant)
			}
			name := "lhdv" + strings.ReplaceAll(tc.profile, ".", "")
			l := doristest.NewLake(t, e, name, `"type" = "iceberg", "warehouse" = "s3://lake/wh"`, "sales")
			l.Grant("sales")
			for _, tbl := range []struct {
				name, props string
				dv          bool
			}{
				{"orders_v3", ` PROPERTIES ("format-version" = "3")`, true},
				{"orders_v2", "", false},
			} {
				fq := name + ".sales." + tbl.name
				l.Exec("CREATE TABLE "+fq+" (id INT, region STRING)"+tbl.props,
					"INSERT INTO "+fq+" VALUES (1, 'eu'), (2, 'us'), (3, 'eu')",
					"DELETE FROM "+fq+" WHERE region = 'eu'")
				var got lifecycleResult
				ev := e.Ok("doris_lakehouse", "inspect_lakehouse_table", map[string]any{"catalog": name, "database": "sales",
					"table": tbl.name, "include_snapshots": true})
				ev.Decode(t, &got)
				if v := ev.Child(t).Metadata["active_variant"]; v != tc.variant {
					t.Errorf("%s: call variant %v, want %s", tbl.name, v, tc.variant)
				}
				// The writes: an append of 3 rows, then a delete of the 2 'eu' rows.
				if len(got.Snapshots) != 2 || got.Snapshots[0].Operation != "delete" || got.Snapshots[1].Operation != "append" {
					t.Fatalf("%s: snapshots %+v, want a delete after an append", tbl.name, got.Snapshots)
				}
				del := got.Snapshots[0].Summary
				wantDVs, wantPosFiles := int64(0), int64(1)
				if tbl.dv {
					wantDVs, wantPosFiles = 1, 0
				}
				if del["added-position-deletes"] != 2 || del["added-delete-files"] != 1 || del["added-dvs"] != wantDVs ||
					del["added-position-delete-files"] != wantPosFiles || del["total-records"] != 3 {
					t.Errorf("%s: delete summary %v, want 2 deleted rows in one delete file (dvs %d)", tbl.name, del, wantDVs)
				}
				switch {
				case !tc.lifecycle && got.Lifecycle != nil:
					t.Errorf("%s: lifecycle %+v on %s", tbl.name, got.Lifecycle, tc.profile)
				case tc.lifecycle && got.Lifecycle == nil:
					t.Fatalf("%s: no lifecycle block: %s", tbl.name, ev.Raw)
				case tc.lifecycle && (got.Lifecycle.DeletionVectors != tbl.dv || len(got.Lifecycle.RowLineage) != 0):
					t.Errorf("%s: lifecycle %+v, want deletion vectors %v and no row lineage column", tbl.name, got.Lifecycle, tbl.dv)
				}
			}
		})
	}
}

// TestVariantStorageMode41: on 4.1 inspect_variant_column runs
// variant_advanced_4_1 and names the storage mode from the VARIANT
// column's own properties, as the test declared them; on 4.0 there is no
// storage mode.
func TestVariantStorageMode41(t *testing.T) {
	for _, tc := range []struct {
		profile, variant string
		mode             bool
	}{
		{"4.1", "variant_advanced_4_1", true},
		{"4.0", "variant_type", false},
	} {
		t.Run(tc.profile, func(t *testing.T) {
			e := doristest.NewEnv(t, doristest.EnvOpts{Profile: tc.profile, NoAudit: true})
			if v := e.Discover("doris_lakehouse").Availability(t, "inspect_variant_column").Availability.ActiveVariant; v != tc.variant {
				t.Fatalf("active variant %s, want %s", v, tc.variant)
			}
			pool := doristest.Direct(t, e.Sim.Addr(), "root", e.DB.RootPassword(), "demo")
			for _, c := range []struct {
				suffix, typ, mode, key, value string
			}{
				{"plain", "VARIANT", "default", "", ""},
				{"doc", `VARIANT<PROPERTIES("variant_enable_doc_mode" = "true")>`, "doc", "variant_enable_doc_mode", "true"},
				{"sparse", `VARIANT<PROPERTIES("variant_sparse_hash_shard_count" = "8")>`, "sparse", "variant_sparse_hash_shard_count", "8"},
			} {
				tbl := fmt.Sprintf("lh_mode_%s_%s", strings.ReplaceAll(tc.profile, ".", ""), c.suffix)
				t.Cleanup(func() { e.RootDB().Exec("DROP TABLE IF EXISTS demo." + tbl) })
				for _, s := range []string{"DROP TABLE IF EXISTS demo." + tbl,
					"CREATE TABLE demo." + tbl + " (id BIGINT NOT NULL, payload " + c.typ + ` NULL) DUPLICATE KEY(id)
					 DISTRIBUTED BY HASH(id) BUCKETS 1 PROPERTIES ("replication_num" = "1")`,
					"INSERT INTO demo." + tbl + ` VALUES (1, '{"a": 1}'), (2, '{"a": 2, "b": "x"}')`} {
					if _, err := pool.Exec(s); err != nil {
						t.Fatalf("%s: %v", s, err)
					}
				}
				var got struct {
					StorageMode *string           `json:"storage_mode"`
					Properties  map[string]string `json:"properties"`
					SampledRows int               `json:"sampled_rows"`
				}
				ev := e.Ok("doris_lakehouse", "inspect_variant_column", map[string]any{"database": "demo", "table": tbl, "column": "payload"})
				ev.Decode(t, &got)
				if got.SampledRows != 2 {
					t.Errorf("%s: sampled %d rows, want the 2 inserted", c.suffix, got.SampledRows)
				}
				if c.key != "" && got.Properties[c.key] != c.value {
					t.Errorf("%s: properties %v, want %s = %s", c.suffix, got.Properties, c.key, c.value)
				}
				switch {
				case !tc.mode && got.StorageMode != nil:
					t.Errorf("%s: storage mode %q on %s", c.suffix, *got.StorageMode, tc.profile)
				case tc.mode && (got.StorageMode == nil || *got.StorageMode != c.mode):
					t.Errorf("%s: storage mode %v, want %s (%s)", c.suffix, got.StorageMode, c.mode, ev.Raw)
				}
			}
		})
	}
}

// TestListPythonUDFs41: a Python UDF the test creates is listed with its
// language on 4.1.3 and later (python_udf_family); on 4.1.1 Doris refuses
// to create one and list_udfs keeps the older variant.
func TestListPythonUDFs41(t *testing.T) {
	for _, tc := range []struct {
		profile, variant string
		python           bool
	}{
		{"4.1.3", "python_udf_family", true},
		{"4.1", "python_udf_family", true},
		{"4.1.1", "base_udf_metadata", false},
	} {
		t.Run(tc.profile, func(t *testing.T) {
			e := doristest.NewEnv(t, doristest.EnvOpts{Profile: tc.profile})
			if v := e.Discover("doris_governance").Availability(t, "list_udfs").Availability.ActiveVariant; v != tc.variant {
				t.Fatalf("list_udfs variant %s, want %s", v, tc.variant)
			}
			name := "py_norm_" + doristest.Uniq(t)
			create := fmt.Sprintf(`CREATE FUNCTION demo.%s(VARCHAR(64)) RETURNS VARCHAR(64) PROPERTIES ("type" = "PYTHON_UDF", "symbol" = "normalize", "file" = "file:///opt/udf/norm.zip", "runtime_version" = "3.10.12", "always_nullable" = "true")`, name)
			w := e.Writer()
			_, err := w.Exec(create)
			if !tc.python {
				if err == nil || !strings.Contains(err.Error(), "Python UDF is not supported") {
					t.Fatalf("creating a Python UDF on %s: got %v, want a refusal", tc.profile, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { w.Exec(fmt.Sprintf("DROP FUNCTION demo.%s(VARCHAR(64))", name)) })
			var c struct {
				Items []doristest.UDFItem `json:"items"`
			}
			ev := e.Ok("doris_governance", "list_udfs", map[string]any{"database": "demo", "name_pattern": name, "language": "python"})
			ev.Decode(t, &c)
			if v := ev.Child(t).Metadata["active_variant"]; v != tc.variant {
				t.Errorf("call variant %v, want %s", v, tc.variant)
			}
			if len(c.Items) != 1 {
				t.Fatalf("items %s, want the one Python UDF", ev.Raw)
			}
			if it := c.Items[0]; it.Name != name || it.Language != "python" || it.Signature != name+"(VARCHAR(64))" ||
				it.ReturnType != "VARCHAR(64)" || it.Kind != "scalar" || it.Properties["symbol"] != "normalize" {
				t.Errorf("udf %+v", it)
			}
			c.Items = nil
			e.Ok("doris_governance", "list_udfs", map[string]any{"database": "demo", "name_pattern": name, "language": "java"}).Decode(t, &c)
			if len(c.Items) != 0 {
				t.Errorf("language java lists %+v", c.Items)
			}
		})
	}
}

// TestTableStorageV3Variant41: on 4.1 analyze_table_storage runs
// storage_v3_variant and reports storage format V3 exactly for the table
// the test created with "storage_format" = "V3"; on 4.0 the same table
// shows its format but no V3 verdict.
func TestTableStorageV3Variant41(t *testing.T) {
	for _, tc := range []struct {
		profile, variant string
		verdict          bool
	}{
		{"4.1", "storage_v3_variant", true},
		{"4.0", "base_storage", false},
	} {
		t.Run(tc.profile, func(t *testing.T) {
			e := doristest.NewEnv(t, doristest.RootOpts(tc.profile))
			if v := e.Discover("doris_governance").Availability(t, "analyze_table_storage").Availability.ActiveVariant; v != tc.variant {
				t.Fatalf("active variant %s, want %s", v, tc.variant)
			}
			w := e.Writer()
			for _, c := range []struct {
				suffix, props, format string
				v3                    bool
			}{
				{"v3", `, "storage_format" = "V3"`, "V3", true},
				{"v2", "", "V2", false},
			} {
				tbl := fmt.Sprintf("st_%s_%s_%s", strings.ReplaceAll(tc.profile, ".", ""), c.suffix, doristest.Uniq(t))
				e.Exec(w, "CREATE TABLE demo."+tbl+` (id BIGINT NOT NULL, payload VARIANT NULL) DUPLICATE KEY(id)
					DISTRIBUTED BY HASH(id) BUCKETS 1 PROPERTIES ("replication_num" = "1"`+c.props+")")
				t.Cleanup(func() { w.Exec("DROP TABLE IF EXISTS demo." + tbl) })
				var got struct {
					StorageFormat   *string        `json:"storage_format"`
					StorageFormatV3 *bool          `json:"storage_format_v3"`
					VariantStorage  map[string]any `json:"variant_storage"`
				}
				ev := e.Ok("doris_governance", "analyze_table_storage", map[string]any{"database": "demo", "table": tbl})
				ev.Decode(t, &got)
				if got.StorageFormat == nil || *got.StorageFormat != c.format {
					t.Errorf("%s: storage_format %v, want %s", c.suffix, got.StorageFormat, c.format)
				}
				switch {
				case !tc.verdict && (got.StorageFormatV3 != nil || got.VariantStorage != nil):
					t.Errorf("%s: a V3 verdict on %s: %s", c.suffix, tc.profile, ev.Raw)
				case tc.verdict && (got.StorageFormatV3 == nil || *got.StorageFormatV3 != c.v3):
					t.Errorf("%s: storage_format_v3 %v, want %v (%s)", c.suffix, got.StorageFormatV3, c.v3, ev.Raw)
				}
			}
		})
	}
}

// TestMTMVComputeGroup41: in cloud mode from 4.1.2, an async materialized
// view declared with a compute_group property (MTMV.mvProperties, Doris PR
// 67010 on branch-4.1) is reported with that group (mtmv_compute_group); on
// 4.1.1 the variant is not selected and no group is reported.
func TestMTMVComputeGroup41(t *testing.T) {
	for _, tc := range []struct {
		profile, variant string
		group            bool
	}{
		{"4.1", "mtmv_compute_group", true},
		{"4.1.1", "materialized_view_metadata", false},
	} {
		t.Run(tc.profile, func(t *testing.T) {
			e := doristest.NewEnv(t, doristest.EnvOpts{Profile: tc.profile, User: mariadb.WriterUser, Password: mariadb.WriterPassword,
				Deployment: sim.DeploymentCloud})
			if v := e.Discover("doris_pipeline").Availability(t, "get_materialized_view_status").Availability.ActiveVariant; v != tc.variant {
				t.Fatalf("active variant %s, want %s", v, tc.variant)
			}
			table := doristest.PipeTable(t, e, "mvcg", "id INT NOT NULL PRIMARY KEY, grp VARCHAR(8) NOT NULL")
			mv := "mv_" + table
			doristest.SQLAs(t, e, mariadb.WriterUser, mariadb.WriterPassword,
				"INSERT INTO "+table+" VALUES (1, 'a'), (2, 'b')",
				"CREATE MATERIALIZED VIEW "+mv+` BUILD IMMEDIATE REFRESH AUTO ON MANUAL PROPERTIES ("compute_group" = "etl_cg") `+
					"AS SELECT grp, COUNT(*) AS n FROM "+table+" GROUP BY grp")
			var got struct {
				Items []struct {
					Name         string  `json:"name"`
					ComputeGroup *string `json:"compute_group"`
				} `json:"items"`
			}
			ev := e.Ok("doris_pipeline", "get_materialized_view_status", map[string]any{"database": "demo", "view": mv})
			ev.Decode(t, &got)
			if len(got.Items) != 1 || got.Items[0].Name != mv {
				t.Fatalf("items %s, want %s", ev.Raw, mv)
			}
			switch g := got.Items[0].ComputeGroup; {
			case tc.group && (g == nil || *g != "etl_cg"):
				t.Errorf("compute group %v, want etl_cg", g)
			case !tc.group && g != nil:
				t.Errorf("compute group %q on %s", *g, tc.profile)
			}
		})
	}
}
