package governance

import (
	"reflect"
	"testing"

	"github.com/doris-mcp/doris-mcp-server/doris"
)

func TestUDFProperties(t *testing.T) {
	for _, tt := range []struct {
		raw      string
		want     map[string]any
		withheld int
	}{
		{`{"symbol":"com.x.Mask","file":"https://u:pw@h/x.jar?sig=abc","md5":"abc123","type":"JAVA_UDF"}`,
			map[string]any{"symbol": "com.x.Mask", "file": "https://h/x.jar", "md5": "abc123", "type": "JAVA_UDF"}, 0},
		{"ID=17, CHECKSUM=ab12, FILE=file:///opt/u.jar, NULLABLE_MODE=ALWAYS_NULLABLE, SYMBOL=com.x.Y",
			map[string]any{"id": "17", "checksum": "ab12", "file": "file:///opt/u.jar", "nullable_mode": "ALWAYS_NULLABLE", "symbol": "com.x.Y"}, 0},
		{"ID=3, NULLABLE_MODE=DEPEND_ON_ARGUMENT, ALIAS_OF=concat(left(`id`, 3), '****', right(`id`, 4)), PARAMETERS=id",
			map[string]any{"id": "3", "nullable_mode": "DEPEND_ON_ARGUMENT", "alias_of": "concat(left(`id`, 3), '***', right(`id`, 4))", "parameters": "id"}, 0},
		{"ID=4, INLINE_CODE=def f(x): return 'tok3n', SYMBOL=f", map[string]any{"id": "4", "symbol": "f"}, 1},
	} {
		got, w := udfProperties(tt.raw)
		if !reflect.DeepEqual(got, tt.want) || w != tt.withheld {
			t.Errorf("udfProperties(%q)\n got %v (%d withheld)\nwant %v (%d)", tt.raw, got, w, tt.want, tt.withheld)
		}
	}
}

func TestRoleMapping(t *testing.T) {
	cols := []string{"NAME", "INTEGRATION_NAME", "RULES", "ROLES", "COMMENT", "ENABLED"}
	row := []doris.NullString{{String: "finance", Valid: true}, {String: "corp_oidc", Valid: true},
		{String: `claims.groups contains "fin" && token == "s3cr3t"`, Valid: true}, {String: "analysts,readers", Valid: true},
		{String: "client_secret=xyz", Valid: true}, {}}
	got, withheld := roleMapping(cols, row)
	want := map[string]any{"name": "finance", "integration_name": "corp_oidc", "roles": "analysts,readers", "enabled": nil}
	if !reflect.DeepEqual(got, want) || withheld != 2 {
		t.Fatalf("got %v (%d withheld), want %v and 2 withheld", got, withheld, want)
	}
}
