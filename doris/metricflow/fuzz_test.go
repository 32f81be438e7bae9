package metricflow

import (
	"encoding/json"
	"errors"
	"testing"
)

// FuzzDecodeResponse feeds arbitrary provider output to the answer
// decoder. It must never panic; it accepts only valid JSON whose data is
// an object and whose request id and protocol match; every refusal has a
// reason code.
func FuzzDecodeResponse(f *testing.F) {
	const id = "6f1c2a4e-0b8d-4c1e-9a57-3d2b1f0e8c77"
	for _, s := range []string{
		`{"protocol_version":"doris-mcp-metricflow/v1","request_id":"` + id + `","ok":true,"data":{"items":[]}}`,
		`{"protocol_version":"doris-mcp-metricflow/v1","request_id":"` + id + `","ok":false,"error":{"reason_code":"X_NOT_FOUND"}}`,
		`{"protocol_version":"doris-mcp-metricflow/v1","request_id":"x","request_id":"` + id + `","ok":true,"data":{}}`,
		`{"protocol_version":"doris-mcp-metricflow/v1","request_id":"` + id + `","ok":true,"data":{}} {}`,
		`{"ok":"true"}`, "\xff", `[]`, `null`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, out []byte) {
		data, err := decodeResponse(out, id)
		if err != nil {
			var me *Error
			if !errors.As(err, &me) || !reasonRE().MatchString(me.Reason) {
				t.Fatalf("refusal without a reason code: %v", err)
			}
			return
		}
		var env map[string]json.RawMessage
		if !json.Valid(out) || json.Unmarshal(out, &env) != nil {
			t.Fatalf("accepted invalid JSON %q", out)
		}
		var rid string
		if json.Unmarshal(env["request_id"], &rid) != nil || rid != id {
			t.Fatalf("accepted another request id in %q", out)
		}
		var obj map[string]json.RawMessage
		if json.Unmarshal(data, &obj) != nil || obj == nil {
			t.Fatalf("data %q is not an object", data)
		}
	})
}
