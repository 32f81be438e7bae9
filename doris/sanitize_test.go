package doris

import (
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/doris-mcp/doris-mcp-server/guard"
)

func TestSanitizeStatement(t *testing.T) {
	tests := []struct {
		name, in, want string
		secret         string // must not survive (when set)
	}{
		{"literals", "SELECT * FROM orders WHERE status = 'paid' AND note = \"x\"", "SELECT * FROM orders WHERE status = '***' AND note = '***'", ""},
		{"identified by", "CREATE USER 'svc'@'%' IDENTIFIED BY 'Loader#2024!'", "CREATE USER '***'@'***' IDENTIFIED BY '***'", "Loader#2024!"},
		{"identified by a bare word", "CREATE USER svc IDENTIFIED BY hunter2secret", "CREATE USER svc IDENTIFIED BY '***'", "hunter2secret"},
		{"identified by password hash", "CREATE USER svc IDENTIFIED BY PASSWORD '*6BB4837EB74329105EE4568DDA7DC67ED2CA2AD9'",
			"CREATE USER svc IDENTIFIED BY PASSWORD '***'", "6BB4837EB74329105EE4568DDA7DC67ED2CA2AD9"},
		{"set password", "SET PASSWORD FOR 'svc' = PASSWORD('n3wSecretPw')", "SET PASSWORD FOR '***' = PASSWORD('***')", "n3wSecretPw"},
		{"ldap admin password", "SET LDAP_ADMIN_PASSWORD = PASSWORD('ldapAdminPw1')", "SET LDAP_ADMIN_PASSWORD = '***'", "ldapAdminPw1"},
		{"s3 properties", `CREATE REPOSITORY r WITH S3 ON LOCATION "s3://bucket/backup" PROPERTIES ("s3.endpoint" = "http://s3.example.com", "s3.access_key" = "AKIAIOSFODNN7EXAMPLE", "s3.secret_key" = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY")`,
			`CREATE REPOSITORY r WITH S3 ON LOCATION '***' PROPERTIES ('***' = '***', '***' = '***', '***' = '***')`, "wJalrXUtnFEMI"},
		{"bare ak/sk values", `CREATE CATALOG c PROPERTIES ("AWS_ACCESS_KEY" = AKIAIOSFODNN7EXAMPLE, "oss.sk" = tooSecret42, "type" = hms)`,
			`CREATE CATALOG c PROPERTIES ('***' = '***', '***' = '***', '***' = hms)`, "tooSecret42"},
		{"password in a url", "SELECT * FROM t WHERE u = 'jdbc:mysql://admin:pa55w0rd@db:3306/x'", "SELECT * FROM t WHERE u = '***'", "pa55w0rd"},
		{"comments dropped", "SELECT /* token=abc123xyz */ 1 -- password: hunter2\n, 2", "SELECT 1 , 2", "hunter2"},
		{"hint dropped", "SELECT /*+ SET_VAR(query_timeout=5) */ 1", "SELECT 1", ""},
		{"access key shaped word", "SELECT AKIAIOSFODNN7EXAMPLE FROM t", "SELECT '***' FROM t", "AKIAIOSFODNN7EXAMPLE"},
		{"unreadable tail", "SELECT 1 # 'secretInTail'", "SELECT 1 /* rest not shown: it could not be read safely */", "secretInTail"},
		{"unclosed string", "SELECT 'unclosedSecret", "SELECT /* rest not shown: it could not be read safely */", "unclosedSecret"},
		{"token key", "SET session_token = abcdef0123, x = 1", "SET session_token = '***', x = 1", "abcdef0123"},
		{"layout kept", "SELECT COUNT(*), NDV(c)\n  FROM `db`.`t`", "SELECT COUNT(*), NDV(c) FROM `db`.`t`", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, cut := SanitizeStatement(tt.in, 0)
			if got != tt.want || cut {
				t.Fatalf("sanitizeStatement(%q)\n got %q (cut %v)\nwant %q", tt.in, got, cut, tt.want)
			}
			if tt.secret != "" && strings.Contains(got, tt.secret) {
				t.Fatalf("secret %q survived: %q", tt.secret, got)
			}
		})
	}
	if got, cut := SanitizeStatement("SELECT 123456789", 10); got != "SELECT 123" || !cut {
		t.Fatalf("cut: got %q %v", got, cut)
	}
}

func TestSensitiveKey(t *testing.T) {
	for k, want := range map[string]bool{
		"s3.secret_key": true, "s3.access_key": true, "AWS_SECRET_KEY": true, "fs.s3a.access.key": true, "oss.sk": true, "cos.ak": true,
		"jdbc.password": true, "kerberos_keytab": true, "api-key": true, "hadoop.security.authentication": false, "ldap_authentication_enabled": false,
		"replication_num": false, "storage_format": false, "type": false, "s3.endpoint": false, "s3.region": false,
	} {
		if got := sensitiveKey(k); got != want {
			t.Errorf("sensitiveKey(%q) = %v, want %v", k, got, want)
		}
	}
}

func TestParseCreateTable(t *testing.T) {
	ddl := "CREATE TABLE `orders` (\n  `order_id` bigint NOT NULL COMMENT 'Order key',\n  `note` text NULL COMMENT 'secret''s note'\n) ENGINE=OLAP\n" +
		"UNIQUE KEY(`order_id`)\nCOMMENT 'Sales orders'\nPARTITION BY RANGE(`order_date`)()\nDISTRIBUTED BY HASH(`order_id`) BUCKETS 10\nPROPERTIES (\n" +
		`"replication_allocation" = "tag.location.default: 1",` + "\n" + `"storage_format" = "V2",` + "\n" +
		`"compression" = "ZSTD",` + "\n" + `"s3.secret_key" = "plantedSecretKey",` + "\n" + `"storage_medium" = "http://u:p@x",` + "\n" +
		`"enable_unique_key_merge_on_write" = "true"` + "\n);"
	c := ParseCreateTable(ddl)
	want := map[string]any{"replication_allocation": "tag.location.default: 1", "storage_format": "V2", "compression": "ZSTD",
		"enable_unique_key_merge_on_write": "true"}
	if !reflect.DeepEqual(c.Properties, want) || c.Withheld != 2 {
		t.Fatalf("properties %v (withheld %d), want %v and 2 withheld", c.Properties, c.Withheld, want)
	}
	if c.KeyModel != "UNIQUE" || !reflect.DeepEqual(c.KeyColumns, []string{"order_id"}) || c.Distribution != "HASH(order_id) BUCKETS 10" ||
		c.Partitioning != "RANGE(order_date)" {
		t.Fatalf("clauses %+v", c)
	}
}

func TestConfigValue(t *testing.T) {
	for _, tt := range []struct {
		key, value string
		want       any
		ok         bool
	}{
		{"ldap_authentication_enabled", "true", true, true},
		{"ldap_use_ssl", "yes please", nil, false},
		{"authentication_type", "ldap", "ldap", true},
		{"authentication_type", "ldap password=hunter2", nil, false},
		{"ldap_default_roles", "analysts, readers", []string{"analysts", "readers"}, true},
		{"ldap_default_roles", "readers,ldaps://cn=admin:S3cret@ldap.corp", nil, false},
		{"activate_lineage_plugin", "[]", []string{}, true},
		{"activate_lineage_plugin", "[example-lineage]", []string{"example-lineage"}, true},
		{"lineage_event_queue_size", "50000", int64(50000), true},
		{"ldap_admin_password", "x", nil, false},
	} {
		got, ok := ConfigValue(tt.key, tt.value)
		if ok != tt.ok || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("configValue(%q, %q) = %#v, %v; want %#v, %v", tt.key, tt.value, got, ok, tt.want, tt.ok)
		}
	}
}

func TestSafeURL(t *testing.T) {
	for in, want := range map[string]string{
		"https://user:pw@repo.example.com/udf/mask.jar?X-Amz-Signature=abc": "https://repo.example.com/udf/mask.jar",
		"file:///opt/udf/mask-udf.jar":                                      "file:///opt/udf/mask-udf.jar",
		"not a url":                                                         "",
	} {
		if got := SafeURL(in); got != want {
			t.Errorf("safeURL(%q) = %q, want %q", in, got, want)
		}
	}
}

// secretForms put a planted secret where statements carry credentials.
// quoted forms take any secret text (escaped); bare forms need a word.
var secretForms = []struct {
	format string
	bare   bool
}{
	{"CREATE USER 'u'@'%%' IDENTIFIED BY %s", false},
	{"CREATE USER u IDENTIFIED BY %s", true},
	{"CREATE USER u IDENTIFIED BY PASSWORD %s", false},
	{`CREATE CATALOG c PROPERTIES ("type" = "hms", "s3.secret_key" = %s)`, false},
	{`CREATE CATALOG c PROPERTIES ("s3.access_key" = %s, "type" = "hms")`, true},
	{"SET PASSWORD FOR 'u' = PASSWORD(%s)", false},
	{"SET LDAP_ADMIN_PASSWORD = %s", true},
	{"SELECT * FROM s3(\"uri\" = %s, \"format\" = \"csv\")", false},
	{"INSERT INTO t SELECT 1 /* %s */", true},
	{"ALTER RESOURCE r PROPERTIES (\"jdbc.password\" = %s)", true},
}

// FuzzSanitizeStatement: whatever the text around it, a secret planted in
// a credential position of a statement never survives sanitising, and
// nothing panics. The surrounding text must scan on its own (a prefix that
// opened a string would move the secret out of the credential position:
// it would then be a different statement).
func FuzzSanitizeStatement(f *testing.F) {
	f.Add("SELECT 1;", "S3cr3tValue", uint8(0), "")
	f.Add("", "wJalrXUtnFEMI/K7MDENG", uint8(3), "-- done")
	f.Add("/* x */", "hunter2pass", uint8(1), "LIMIT 1")
	f.Add("SELECT '", "abcdefgh12", uint8(6), "'")
	f.Fuzz(func(t *testing.T, prefix, secret string, form uint8, suffix string) {
		fm := secretForms[int(form)%len(secretForms)]
		if len(secret) < 8 || !utf8.ValidString(secret) || strings.ContainsAny(secret, "\x00") {
			return
		}
		if fm.bare && !wordOnly(secret) {
			return
		}
		planted := secret
		if !fm.bare {
			planted = "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(secret) + "'"
		}
		stmt := strings.Replace(fm.format, "%s", planted, 1)
		stmt = strings.ReplaceAll(stmt, "%%", "%")
		if strings.Contains(prefix, secret) || strings.Contains(suffix, secret) || strings.Contains(strings.Replace(stmt, planted, "", 1), secret) {
			return // the secret also appears as ordinary text
		}
		if _, err := guard.Scan(prefix); err != nil {
			return
		}
		if strings.HasSuffix(strings.TrimRight(prefix, " \t\r\n"), "\\") {
			return
		}
		in := prefix + "\n" + stmt + "\n" + suffix
		out, _ := SanitizeStatement(in, 0)
		if strings.Contains(out, secret) {
			t.Fatalf("secret %q survived in\n%q\n->\n%q", secret, in, out)
		}
		if !utf8.ValidString(out) {
			t.Fatalf("output is not UTF-8: %q", out)
		}
	})
}

// FuzzSanitizeAnything: for any text, sanitising never panics, returns
// valid UTF-8 within the bound, and shows no string literal's content.
func FuzzSanitizeAnything(f *testing.F) {
	for _, tt := range []string{"SELECT 'abc' FROM t", "CREATE USER x IDENTIFIED BY 'y'", `PROPERTIES ("a"="b")`, "/* c */ SELECT 1", "SELECT `q` # x"} {
		f.Add(tt, 200)
	}
	f.Fuzz(func(t *testing.T, in string, maxChars int) {
		out, _ := SanitizeStatement(in, maxChars%1000)
		if !utf8.ValidString(out) {
			t.Fatalf("not UTF-8: %q", out)
		}
		if m := maxChars % 1000; m > 0 && utf8.RuneCountInString(out) > m {
			t.Fatalf("%d characters, bound %d", utf8.RuneCountInString(out), m)
		}
		toks, _ := guard.Scan(in)
		for _, tk := range toks {
			if tk.Kind != guard.TokString || len(tk.Text) < 10 {
				continue
			}
			content := KeyText(tk)
			if len(content) >= 8 && !strings.Contains(strings.Replace(in, tk.Text, "", 1), content) && strings.Contains(out, content) {
				t.Fatalf("literal content %q survived: %q -> %q", content, in, out)
			}
		}
	})
}

func wordOnly(s string) bool {
	for i, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9' || i > 0 && r == '_') {
			return false
		}
	}
	return true
}
