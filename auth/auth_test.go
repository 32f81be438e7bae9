package auth_test

import (
	"net/http/httptest"
	"testing"

	"github.com/doris-mcp/doris-mcp-server/auth"
)

func TestHostPolicyDefaults(t *testing.T) {
	loop, err := auth.NewHostPolicy("127.0.0.1", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		host, origin string
		ok           bool
	}{
		{"127.0.0.1:3000", "", true},
		{"localhost:8080", "http://localhost:5173", true},
		{"[::1]:3000", "http://[::1]:3000", true},
		{"LOCALHOST:3000", "", true},
		{"evil.example.com", "", false},
		{"127.0.0.1:3000", "http://evil.example.com", false},
		{"127.0.0.1:3000", "null", false},
		{"127.0.0.1:3000", "https://localhost:3000", false},
		{"127.0.0.1.evil.com:3000", "", false},
		{"localhost:99999x", "", false},
	} {
		r := httptest.NewRequest("POST", "/mcp", nil)
		r.Host = tc.host
		if tc.origin != "" {
			r.Header.Set("Origin", tc.origin)
		}
		if err := loop.Check(r); (err == nil) != tc.ok {
			t.Errorf("Host %q Origin %q: err %v, want ok=%v", tc.host, tc.origin, err, tc.ok)
		}
	}
	wide, _ := auth.NewHostPolicy("db.example.com", nil, nil)
	r := httptest.NewRequest("POST", "/mcp", nil)
	r.Host = "db.example.com:3000"
	if wide.Check(r) != nil {
		t.Error("a non-loopback bind refuses its own name")
	}
	r.Header.Set("Origin", "http://db.example.com:3000")
	if wide.Check(r) == nil {
		t.Error("a non-loopback bind allows a browser origin nobody configured")
	}
}

func TestHostPolicyRefusesWildcards(t *testing.T) {
	for _, hosts := range [][]string{{"*"}, {"*.example.com"}, {" padded"}} {
		if _, err := auth.NewHostPolicy("127.0.0.1", hosts, nil); err == nil {
			t.Errorf("hosts %q accepted", hosts)
		}
	}
	if _, err := auth.NewHostPolicy("127.0.0.1", nil, []string{"ftp://x"}); err == nil {
		t.Error("a non-http origin was accepted")
	}
	p, err := auth.NewHostPolicy("0.0.0.0", []string{"mcp.example.com:*"}, []string{"https://app.example.com"})
	if err != nil {
		t.Fatal(err)
	}
	r := httptest.NewRequest("POST", "/mcp", nil)
	r.Host = "mcp.example.com:443"
	r.Header.Set("Origin", "https://app.example.com")
	if p.Check(r) != nil {
		t.Error("configured host and origin refused")
	}
}

func TestIdentity(t *testing.T) {
	anon := auth.Anonymous()
	if !anon.CanDiscover("doris_query", "execute_query") || !anon.CanCall("doris_query", "execute_query") {
		t.Fatal("the local principal is restricted")
	}
	alice := auth.Identity{Method: "token", Subject: "alice", Route: "global",
		Grants: []string{"child:call:doris_catalog:list_tables", "child:discover:doris_query:execute_query"}}
	if !alice.CanCall("doris_catalog", "list_tables") || !alice.CanDiscover("doris_catalog", "list_tables") {
		t.Error("a call grant implies discovery")
	}
	if alice.CanCall("doris_query", "execute_query") || !alice.CanDiscover("doris_query", "execute_query") {
		t.Error("a discover grant must not allow calls")
	}
	if alice.CanDiscover("doris_catalog", "get_table_size") {
		t.Error("an ungranted child is visible")
	}
	bob := alice
	bob.Subject = "bob"
	reordered := alice
	reordered.Grants = []string{alice.Grants[1], alice.Grants[0]}
	none := alice
	none.Grants = []string{}
	switch {
	case alice.Fingerprint() == bob.Fingerprint():
		t.Error("two subjects share a fingerprint")
	case alice.Fingerprint() != reordered.Fingerprint():
		t.Error("the fingerprint depends on grant order")
	case none.Fingerprint() == anon.Fingerprint() || none.Fingerprint() == (auth.Identity{Method: "token", Subject: "alice", Route: "global"}).Fingerprint():
		t.Error("no grants and unrestricted share a fingerprint")
	}
}

func TestIsLoopback(t *testing.T) {
	for host, want := range map[string]bool{"localhost": true, "127.0.0.1": true, "127.1.2.3": true, "::1": true, "[::1]": true,
		"0.0.0.0": false, "10.0.0.1": false, "example.com": false, "127.0.0.1.nip.io": false} {
		if got := auth.IsLoopback(host); got != want {
			t.Errorf("IsLoopback(%q) = %v", host, got)
		}
	}
}
