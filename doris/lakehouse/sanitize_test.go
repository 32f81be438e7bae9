package lakehouse

import (
	"fmt"
	"strings"
	"testing"
)

func TestSanitize(t *testing.T) {
	props := [][2]string{
		{"type", "iceberg"},
		{"iceberg.catalog.type", "rest"},
		{"warehouse", "s3://user:pw@bucket/wh"},        // a location: withheld, named
		{"s3.secret_key", "x"},                         // a secret's name: counted only
		{"S3.ACCESS_KEY", "AKIA"},                      // in any case
		{"hive.version", "s3://a:b@c"},                 // allowlisted key, unsafe value: withheld
		{"use_meta_cache", "AKIAIOSFODNN7EXAMPLEXYZ1"}, // a token-like value under a safe key
		{"AKIAIOSFODNN7EXAMPLEKEY", "1"},               // a key that is itself a token
		{"weird key!", "1"},                            // not a plain name
		{"type", "paimon"},                             // a duplicate: the first wins
	}
	got := sanitize(props, safeCatalogKeys)
	if len(got.Shown) != 2 || got.Shown["type"] != "iceberg" || got.Shown["iceberg.catalog.type"] != "rest" {
		t.Errorf("shown: got %v, want type and iceberg.catalog.type", got.Shown)
	}
	if strings.Join(got.Withheld, ",") != "hive.version,use_meta_cache,warehouse" {
		t.Errorf("withheld: got %v", got.Withheld)
	}
	if got.Secret != 4 {
		t.Errorf("secret: got %d, want 4", got.Secret)
	}
}

func TestSafeValue(t *testing.T) {
	for _, c := range []struct {
		v    string
		safe bool
	}{
		{"parquet", true}, {"2", true}, {"us-east-1", true}, {"com.mysql.cj.jdbc.Driver", true}, {"true", true},
		{"s3://bucket/path", false}, {"user@host", false}, {"a=b", false}, {`C:\x`, false},
		{"AKIAIOSFODNN7EXAMPLEAAAA", false}, {strings.Repeat("a", 129), false}, {"line\nbreak", false},
	} {
		if got := safeValue(c.v); got != c.safe {
			t.Errorf("safeValue(%q): got %v, want %v", c.v, got, c.safe)
		}
	}
}

func TestPartitionColumns(t *testing.T) {
	for _, c := range []struct{ ddl, want string }{
		{"CREATE TABLE `t` (\n `id` int\n) ENGINE=ICEBERG_EXTERNAL_TABLE\nPARTITION BY LIST (`dt`, `region`) ()\nLOCATION 's3://x'", "dt,region"},
		{"CREATE TABLE `t`(\n `id` int)\nPARTITIONED BY (\n `dt` string,\n `hr` int)\nROW FORMAT SERDE 'x'", "dt,hr"},
		{"CREATE TABLE t (ts datetime) PARTITION BY LIST (day(ts), bucket(16, id)) ()", "ts,id"},
		{"CREATE TABLE t (id int) ENGINE=OLAP", ""},
	} {
		if got := strings.Join(partitionColumns(c.ddl), ","); got != c.want {
			t.Errorf("partitionColumns(%q): got %q, want %q", c.ddl, got, c.want)
		}
	}
}

func TestSummaryCounts(t *testing.T) {
	got := summaryCounts(`{"spark.app.id":"app-1","added-records":"3","total-records":"10","added-files-size":"x","flink.job-id":"9"}`)
	if len(got) != 2 || got["added-records"] != 3 || got["total-records"] != 10 {
		t.Errorf("got %v, want the two integer counters", got)
	}
	if summaryCounts("not json") != nil {
		t.Error("a summary that is not JSON gave counters")
	}
}

func TestVariantPath(t *testing.T) {
	for _, c := range []struct {
		in   string
		want string
		ok   bool
	}{
		{"a.b", "a|b", true}, {"$.a", "a", true}, {"$", "", true}, {"a..b", "", false}, {"a\x01", "", false},
		{strings.Repeat("a.", 16) + "a", "", false}, {"naïve.ключ", "naïve|ключ", true},
	} {
		segs, err := variantPath(c.in)
		if (err == nil) != c.ok || err == nil && strings.Join(segs, "|") != c.want {
			t.Errorf("variantPath(%q): got %v %v, want %q ok=%v", c.in, segs, err, c.want, c.ok)
		}
	}
}

// FuzzSanitize: whatever the properties, only allowlisted keys are shown,
// every shown value reads as a setting, and no value carrying a URL,
// userinfo or a token-like run is ever shown.
func FuzzSanitize(f *testing.F) {
	f.Add("warehouse", "s3://u:p@b/w", "type", "iceberg")
	f.Add("hive.version", "AKIAIOSFODNN7EXAMPLEAAAA", "s3.secret_key", "x")
	f.Add("use_meta_cache", "true", "PASSWORD", "hunter2")
	f.Fuzz(func(t *testing.T, k1, v1, k2, v2 string) {
		got := sanitize([][2]string{{k1, v1}, {k2, v2}}, safeCatalogKeys)
		if len(got.Shown)+len(got.Withheld)+got.Secret > 2 {
			t.Fatalf("more entries than properties: %+v", got)
		}
		for k, v := range got.Shown {
			if !safeCatalogKeys[k] || !safeValue(v) || strings.Contains(v, "://") || strings.Contains(v, "@") || longToken(v, 24) {
				t.Fatalf("shown %q = %q", k, v)
			}
		}
		for _, k := range got.Withheld {
			if secretLooking(k) {
				t.Fatalf("a secret-looking key was named: %q", k)
			}
		}
		_ = partitionColumns(k1 + v1)
		_ = ddlProperties(k2 + v2)
		_, _ = variantPath(v1)
	})
}

// TestDDLBounds: a property key, a property value or a partition name over
// its bound is skipped whole, names and values at the bound are kept, and
// the pairs after a skipped one are still read.
func TestDDLBounds(t *testing.T) {
	key, val := strings.Repeat("k", maxDDLName), strings.Repeat("é", maxDDLValue) // runes, not bytes
	ddl := fmt.Sprintf(`PROPERTIES ("%s" = "%s", "%sx" = "v", "k" = "%sx", 'after'='1')`, key, val, key, val)
	got := ddlProperties(ddl)
	if len(got) != 2 || got[0] != [2]string{key, val} || got[1] != [2]string{"after", "1"} {
		t.Errorf("ddlProperties kept %d pairs %.60q, want the pair at the bounds and 'after'", len(got), got)
	}
	name := strings.Repeat("p", maxDDLName)
	ddl = fmt.Sprintf("CREATE TABLE t (id int) PARTITION BY LIST (`%s`, `%sx`, %s, %sx, dt) ()", name, name, name, name)
	if got := partitionColumns(ddl); len(got) != 2 || got[0] != name || got[1] != "dt" {
		t.Errorf("partitionColumns: %.80q, want the name at the bound and dt", got)
	}
}
