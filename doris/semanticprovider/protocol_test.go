package semanticprovider_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/doris-mcp/doris-mcp-server/doris/semanticprovider"
)

// envelope decodes a response and checks its shape: exactly the protocol
// keys, data on success, error{reason_code} on failure.
func envelope(t *testing.T, out []byte) (id string, ok bool, reason string, data map[string]any) {
	t.Helper()
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(out, &keys); err != nil {
		t.Fatalf("response is not one JSON object: %v: %s", err, out)
	}
	var resp struct {
		ProtocolVersion string         `json:"protocol_version"`
		RequestID       string         `json:"request_id"`
		OK              bool           `json:"ok"`
		Data            map[string]any `json:"data"`
		Error           map[string]any `json:"error"`
	}
	json.Unmarshal(out, &resp)
	if resp.ProtocolVersion != semanticprovider.ProtocolVersion {
		t.Fatalf("protocol_version = %q", resp.ProtocolVersion)
	}
	want := 4 // protocol_version, request_id, ok, and data or error
	if len(keys) != want {
		t.Fatalf("response has keys %v, want protocol_version, request_id, ok and data or error", keys)
	}
	if !resp.OK {
		if len(resp.Error) != 1 || resp.Error["reason_code"] == nil {
			t.Fatalf("error must be exactly {reason_code}: %s", out)
		}
		return resp.RequestID, false, resp.Error["reason_code"].(string), nil
	}
	return resp.RequestID, true, "", resp.Data
}

func TestProtocolRefusals(t *testing.T) {
	p, err := semanticprovider.New([]semanticprovider.Source{{Ref: "demo", Path: demoManifest}})
	if err != nil {
		t.Fatal(err)
	}
	const v = `"protocol_version":"doris-mcp-metricflow/v1"`
	cases := []struct {
		name, req, wantID, want string
	}{
		{"not JSON", `{"protocol_version":`, "", semanticprovider.ReasonRequestInvalid},
		{"not an object", `[1]`, "", semanticprovider.ReasonRequestInvalid},
		{"empty", ``, "", semanticprovider.ReasonRequestInvalid},
		{"wrong protocol version", `{"protocol_version":"doris-mcp-metricflow/v2","request_id":"r1","operation":"list_models","arguments":{}}`, "r1", semanticprovider.ReasonProtocolUnsupported},
		{"unknown operation", `{` + v + `,"request_id":"r2","operation":"drop_table","arguments":{}}`, "r2", semanticprovider.ReasonOperationUnsupported},
		{"unknown key in the envelope", `{` + v + `,"request_id":"r3","operation":"list_models","arguments":{},"sql":"x"}`, "r3", semanticprovider.ReasonRequestInvalid},
		{"duplicate key", `{` + v + `,"request_id":"r4","request_id":"r5","operation":"list_models","arguments":{}}`, "", semanticprovider.ReasonRequestInvalid},
		{"case variant of a key", `{` + v + `,"Request_ID":"r6","operation":"list_models","arguments":{}}`, "", semanticprovider.ReasonRequestInvalid},
		{"request id with control characters", `{` + v + `,"request_id":"r\n7","operation":"list_models","arguments":{}}`, "", semanticprovider.ReasonRequestInvalid},
		{"request id too long", `{` + v + `,"request_id":"` + strings.Repeat("a", 129) + `","operation":"list_models","arguments":{}}`, "", semanticprovider.ReasonRequestInvalid},
		{"unknown argument", `{` + v + `,"request_id":"r8","operation":"get_status","arguments":{"model_ref":"demo","verbose":true}}`, "r8", semanticprovider.ReasonRequestInvalid},
		{"arguments not an object", `{` + v + `,"request_id":"r9","operation":"get_status","arguments":"demo"}`, "r9", semanticprovider.ReasonRequestInvalid},
		{"invalid model ref", `{` + v + `,"request_id":"r10","operation":"get_status","arguments":{"model_ref":"a b"}}`, "r10", semanticprovider.ReasonModelRefInvalid},
		{"unknown model", `{` + v + `,"request_id":"r11","operation":"list_metrics","arguments":{"model_ref":"other"}}`, "r11", semanticprovider.ReasonModelNotFound},
		{"another dialect", `{` + v + `,"request_id":"r12","operation":"compile_query","arguments":{"model_ref":"demo","dialect":"mysql","request":{"metrics":["revenue"]}}}`, "r12", semanticprovider.ReasonDialectUnsupported},
		{"compile without a request", `{` + v + `,"request_id":"r13","operation":"compile_query","arguments":{"model_ref":"demo","dialect":"doris"}}`, "r13", semanticprovider.ReasonRequestInvalid},
		{"unknown request field", `{` + v + `,"request_id":"r14","operation":"compile_query","arguments":{"model_ref":"demo","request":{"metrics":["revenue"],"raw_sql":"x"}}}`, "r14", semanticprovider.ReasonRequestInvalid},
		{"list limit out of range", `{` + v + `,"request_id":"r15","operation":"list_metrics","arguments":{"model_ref":"demo","limit":1001}}`, "r15", semanticprovider.ReasonLimitInvalid},
		{"dimension values without a dimension", `{` + v + `,"request_id":"r16","operation":"compile_dimension_values","arguments":{"model_ref":"demo","metrics":["revenue"],"dimension":""}}`, "r16", semanticprovider.ReasonRequestInvalid},
		{"too deep", `{` + v + `,"request_id":"r17","operation":"list_models","arguments":` + strings.Repeat(`{"a":`, 20) + `1` + strings.Repeat(`}`, 20) + `}`, "r17", semanticprovider.ReasonRequestInvalid},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var diag bytes.Buffer
			id, ok, reason, _ := envelope(t, p.Handle(context.Background(), []byte(c.req), &diag))
			if ok || reason != c.want || id != c.wantID {
				t.Fatalf("got ok=%v reason=%q id=%q, want %s with id %q", ok, reason, id, c.want, c.wantID)
			}
			if !strings.HasPrefix(diag.String(), "metricflow-provider: ") || strings.Count(diag.String(), "\n") != 1 {
				t.Errorf("diagnostic is not one line: %q", diag.String())
			}
		})
	}
}

func TestServeBoundsTheRequest(t *testing.T) {
	p, _ := semanticprovider.New([]semanticprovider.Source{{Ref: "demo", Path: demoManifest}})
	big := strings.NewReader(`{"protocol_version":"doris-mcp-metricflow/v1","request_id":"r","x":"` + strings.Repeat("a", semanticprovider.MaxRequestBytes) + `"}`)
	var out bytes.Buffer
	if err := p.Serve(context.Background(), big, &out, nil); err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(out.String(), "}\n") || strings.Count(out.String(), "\n") != 1 {
		t.Fatalf("want exactly one response line, got %q", out.String())
	}
	if _, ok, reason, _ := envelope(t, bytes.TrimSpace(out.Bytes())); ok || reason != semanticprovider.ReasonRequestTooLarge {
		t.Fatalf("got %s, want %s", reason, semanticprovider.ReasonRequestTooLarge)
	}
}

func TestMisconfiguredProviderStillAnswers(t *testing.T) {
	p := semanticprovider.Misconfigured("no manifest")
	out := p.Handle(context.Background(), []byte(`{"protocol_version":"doris-mcp-metricflow/v1","request_id":"r","operation":"list_models","arguments":{}}`), nil)
	if id, ok, reason, _ := envelope(t, out); ok || id != "r" || reason != semanticprovider.ReasonProviderMisconfigured {
		t.Fatalf("got %s", out)
	}
}

func TestParseSource(t *testing.T) {
	cases := []struct{ in, ref, path string }{
		{"/srv/dbt/jaffle_shop/target/semantic_manifest.json", "jaffle_shop", "/srv/dbt/jaffle_shop/target/semantic_manifest.json"},
		{"commerce/main=/srv/m.json", "commerce/main", "/srv/m.json"},
		{"/srv/a=b/demo.json", "demo", "/srv/a=b/demo.json"},
		{"demo_semantic_manifest.json", "demo_semantic_manifest", "demo_semantic_manifest.json"},
	}
	for _, c := range cases {
		s, err := semanticprovider.ParseSource(c.in)
		if err != nil || s.Ref != c.ref || s.Path != c.path {
			t.Errorf("ParseSource(%q) = %+v, %v; want ref %q path %q", c.in, s, err, c.ref, c.path)
		}
	}
	for _, bad := range []string{"", "x=", "/srv/bad name/target/semantic_manifest.json"} {
		if _, err := semanticprovider.ParseSource(bad); err == nil {
			t.Errorf("ParseSource(%q) accepted", bad)
		}
	}
	if _, err := semanticprovider.New([]semanticprovider.Source{{Ref: "a", Path: "x"}, {Ref: "a", Path: "y"}}); err == nil {
		t.Error("New accepted the same ref twice")
	}
}
