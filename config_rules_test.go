package main

// Tests of the one configuration loader: the same forms of durations,
// lists and booleans for every setting, whichever package the setting
// configures; problems named by variable, value as given and range in the
// variable's own unit; misspelt settings named at startup.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/doris-mcp/doris-mcp-server/auth"
	"github.com/doris-mcp/doris-mcp-server/handle"
)

// dorisOAuthOn is a valid Doris-backed OAuth configuration, for settings
// that are only looked at with the mode on.
var dorisOAuthOn = map[string]string{"TRANSPORT": "http", "ENABLE_DORIS_OAUTH_AUTH": "true",
	"DORIS_OAUTH_BASE_URL": "https://mcp.example.com", "DORIS_OAUTH_SECRET": "Wq4-Zt8Lp2Xv6Nb0Mc3Hd7Jf1Gs5Ky9Re+a"}

// withEnv returns base overlaid with kv pairs.
func withEnv(base map[string]string, kv ...string) map[string]string {
	m := map[string]string{}
	for k, v := range base {
		m[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return m
}

// checkConfig runs --check-config on env and returns stdout+stderr.
func checkConfig(t *testing.T, env map[string]string) (string, error) {
	t.Helper()
	var out, errb bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := run(ctx, []string{"--check-config", "--env-file", os.DevNull}, env, strings.NewReader(""), &out, &errb)
	return errb.String() + out.String(), err
}

// TestDurationSecondsSameEverywhere: a number of seconds is read by one
// rule, whichever package the setting configures: 1.5 means 1.5 s for the
// server's own settings, for Doris's and for Doris-backed OAuth's.
func TestDurationSecondsSameEverywhere(t *testing.T) {
	for _, tc := range []struct {
		name  string
		value string
		get   func(*Config) time.Duration
	}{
		{"QUERY_TIMEOUT", "1.5", func(c *Config) time.Duration { return c.Doris.QueryTimeout }},
		{"SHUTDOWN_GRACE_SECONDS", "1.5", func(c *Config) time.Duration { return c.ShutdownGrace }},
		{"DORIS_OAUTH_PEER_SYNC_SECONDS", "1.5", func(c *Config) time.Duration { return c.DorisOAuth.PeerSync }},
		{"DORIS_OAUTH_CIMD_FETCH_TIMEOUT_SECONDS", "1.5", func(c *Config) time.Duration { return c.DorisOAuth.CIMDFetchTimeout }},
		{"JWT_JWKS_TIMEOUT_SECONDS", "1.5", func(c *Config) time.Duration { return c.Auth.JWT.JWKSTimeout }},
		{"OAUTH_HTTP_TIMEOUT_SECONDS", "1.5", func(c *Config) time.Duration { return c.Auth.OAuth.Timeout }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := DefaultConfig()
			if errs := cfg.fromEnv(withEnv(dorisOAuthOn, tc.name, tc.value)); len(errs) > 0 {
				t.Fatalf("%s=%s refused: %v", tc.name, tc.value, errors.Join(errs...))
			}
			if got := tc.get(&cfg); got != 1500*time.Millisecond {
				t.Fatalf("%s=%s read as %v, want 1.5s", tc.name, tc.value, got)
			}
			if msg, err := checkConfig(t, withEnv(dorisOAuthOn, tc.name, tc.value)); err != nil {
				t.Fatalf("%s=%s: %v\n%s", tc.name, tc.value, err, msg)
			}
		})
	}
	// And a value that is not a number of seconds is refused the same way
	// by every one of them.
	for _, name := range []string{"QUERY_TIMEOUT", "DORIS_OAUTH_PEER_SYNC_SECONDS", "JWT_JWKS_TIMEOUT_SECONDS"} {
		msg, err := checkConfig(t, withEnv(dorisOAuthOn, name, "1.5s"))
		if err == nil || !strings.Contains(msg, name+`="1.5s": must be a number of seconds`) {
			t.Errorf("%s=1.5s: %v\n%s", name, err, msg)
		}
	}
}

// TestListsSplitOnCommasAndSpaces: every list setting splits on commas and
// whitespace alike, and drops empty elements, whichever package it
// configures.
func TestListsSplitOnCommasAndSpaces(t *testing.T) {
	const given = "a.example, b.example c.example"
	want := []string{"a.example", "b.example", "c.example"}
	for _, tc := range []struct {
		name string
		get  func(*Config) []string
	}{
		{"MCP_ALLOWED_HOSTS", func(c *Config) []string { return c.AllowedHosts }},
		{"MCP_ALLOWED_ORIGINS", func(c *Config) []string { return c.AllowedOrigins }},
		{"DORIS_BE_HOSTS", func(c *Config) []string { return c.Doris.BEHosts }},
		{"DORIS_OAUTH_PEERS", func(c *Config) []string { return c.DorisOAuth.Peers }},
		{"DORIS_OAUTH_ALLOWED_REDIRECT_URIS", func(c *Config) []string { return c.DorisOAuth.AllowedRedirectURIs }},
		{"OAUTH_SCOPE", func(c *Config) []string { return c.Auth.OAuth.Scopes }},
		{"JWT_ALGORITHM", func(c *Config) []string { return c.Auth.JWT.Algorithms }},
	} {
		for _, value := range []string{given, " ,a.example,,\tb.example\n\nc.example, "} {
			cfg := DefaultConfig()
			if errs := cfg.fromEnv(map[string]string{tc.name: value}); len(errs) > 0 {
				t.Fatal(errors.Join(errs...))
			}
			if got := tc.get(&cfg); !slices.Equal(got, want) {
				t.Errorf("%s=%q read as %q, want %q", tc.name, value, got, want)
			}
		}
	}
}

// TestRangeInTheVariablesUnit: an out-of-range setting names the
// variable, the value as given and the range in the variable's own unit,
// never a Go duration.
func TestRangeInTheVariablesUnit(t *testing.T) {
	for _, tc := range []struct {
		env       map[string]string
		want, not string
	}{
		{map[string]string{"QUERY_TIMEOUT": "1000"}, `QUERY_TIMEOUT="1000": must be between 1 and 300 seconds`, "16m40s"},
		{map[string]string{"QUERY_TIMEOUT": "0.5"}, `QUERY_TIMEOUT="0.5": must be between 1 and 300 seconds`, "500ms"},
		{map[string]string{"SHUTDOWN_GRACE_SECONDS": "7200"}, `SHUTDOWN_GRACE_SECONDS="7200": must be between 0 and 3600 seconds`, "2h0m0s"},
		{map[string]string{"MCP_STATE_HANDLE_TTL_SECONDS": "3601"}, `MCP_STATE_HANDLE_TTL_SECONDS="3601": must be between 1 and 3600 seconds`, "1h0m1s"},
		{withEnv(dorisOAuthOn, "DORIS_OAUTH_ACCESS_TOKEN_EXPIRE_SECONDS", "5"),
			`DORIS_OAUTH_ACCESS_TOKEN_EXPIRE_SECONDS="5": must be between 60 and 86400 seconds`, "5s is outside"},
		{map[string]string{"TRANSPORT": "http", "ENABLE_JWT_AUTH": "true", "JWT_SECRET_KEY": "Wq4-Zt8Lp2Xv6Nb0Mc3Hd7Jf1Gs5Ky9Re+a", "JWT_ALGORITHM": "HS256",
			"JWT_LEEWAY_SECONDS": "3600"}, `JWT_LEEWAY_SECONDS="3600": must be between 0 and 300 seconds`, "1h0m0s"},
	} {
		msg, err := checkConfig(t, tc.env)
		if err == nil || !strings.Contains(msg, tc.want) || strings.Contains(msg, tc.not) {
			t.Errorf("%v: want %q without %q, got %v:\n%s", tc.env, tc.want, tc.not, err, msg)
		}
	}
}

// TestMisspeltSettingWarns: a variable with one of the server's prefixes
// that is a near miss of a setting is named at startup with the setting
// it probably meant; its value is never logged.
func TestMisspeltSettingWarns(t *testing.T) {
	const secret = "hunter2-the-password-of-the-service"
	var out, errb bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	env := map[string]string{"TRANSPORT": "stdio", "DORIS_HOST": "127.0.0.1", "DORIS_PORT": "1", "DORIS_PASWORD": secret, "PATH": "/usr/bin"}
	if err := run(ctx, []string{"--env-file", os.DevNull}, env, strings.NewReader(""), &out, &errb); err != nil {
		t.Fatalf("run: %v\n%s", err, errb.String())
	}
	var found bool
	for _, line := range strings.Split(errb.String(), "\n") {
		var rec struct{ Level, Msg string }
		if json.Unmarshal([]byte(line), &rec) == nil && rec.Msg == "DORIS_PASWORD is not a setting; did you mean DORIS_PASSWORD?" {
			found = rec.Level == "WARN"
		}
	}
	if !found {
		t.Errorf("no WARN line naming DORIS_PASWORD and DORIS_PASSWORD:\n%s", errb.String())
	}
	if strings.Contains(errb.String(), secret) {
		t.Errorf("the log repeats the value of the misspelt variable:\n%s", errb.String())
	}
	if regexp.MustCompile(`\bPATH\b`).MatchString(errb.String()) {
		t.Errorf("a variable without the server's prefixes is mentioned:\n%s", errb.String())
	}
}

// TestValueForms: the forms of each kind, read by one rule.
func TestValueForms(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"30", 30 * time.Second, true}, {"1.5", 1500 * time.Millisecond, true}, {" 0.25 ", 250 * time.Millisecond, true},
		{"0", 0, true}, {".5", 500 * time.Millisecond, true}, {"1.", time.Second, true},
		{"30s", 0, false}, {"-1", 0, false}, {"+1", 0, false}, {"1e3", 0, false}, {"NaN", 0, false}, {"Inf", 0, false},
		{"0x10", 0, false}, {"1_000", 0, false}, {".", 0, false}, {"1.2.3", 0, false}, {"1e400", 0, false},
		{"99999999999999999", 0, false},
	} {
		got, err := parseDuration(tc.in, seconds)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("parseDuration(%q) = %v, %v; want %v ok=%v", tc.in, got, err, tc.want, tc.ok)
		}
	}
	if d, err := parseDuration("1.5", hours); err != nil || d != 90*time.Minute {
		t.Errorf("1.5 hours: %v %v", d, err)
	}
	for in, want := range map[string]bool{"true": true, "TRUE": true, "Yes": true, "on": true, "1": true,
		"false": false, "False": false, "NO": false, "off": false, "0": false} {
		if got, err := parseBool(" " + in + " "); err != nil || got != want {
			t.Errorf("parseBool(%q) = %v, %v", in, got, err)
		}
	}
	for _, in := range []string{"maybe", "t", "y", "2", "enabled"} {
		if _, err := parseBool(in); err == nil {
			t.Errorf("parseBool(%q) accepted", in)
		}
	}
	for in, want := range map[string][]string{
		"a,b":                 {"a", "b"},
		" a , b\tc\nd ":       {"a", "b", "c", "d"},
		",,a,, ,b,":           {"a", "b"},
		"":                    nil,
		"tool:list resource:": {"tool:list", "resource:"},
	} {
		if got := splitList(in); !slices.Equal(got, want) {
			t.Errorf("splitList(%q) = %q, want %q", in, got, want)
		}
	}
	for _, tc := range []struct {
		in string
		ok bool
	}{{"4096", true}, {" 12 ", true}, {"-1", true}, {"1.5", false}, {"4KiB", false}, {"", false}, {"99999999999999999999", false}} {
		if _, err := parseInt(tc.in, 64); (err == nil) != tc.ok {
			t.Errorf("parseInt(%q): %v", tc.in, err)
		}
	}
}

// TestBooleansSameEverywhere: every boolean setting reads the same forms,
// whichever package it configures.
func TestBooleansSameEverywhere(t *testing.T) {
	for _, tc := range []struct {
		name string
		get  func(*Config) bool
	}{
		{"ENABLE_LEGACY_HTTP_ADAPTER", func(c *Config) bool { return c.LegacyHTTP }},
		{"ENABLE_TOKEN_AUTH", func(c *Config) bool { return c.Auth.TokenAuth }},
		{"DORIS_OAUTH_CHILD_TOOLS_ENABLED", func(c *Config) bool { return c.DorisOAuth.ChildToolsEnabled }},
		{"OSSIE_ENABLED", func(c *Config) bool { return c.Doris.Ossie.Enabled }},
		{"ENABLE_METRICS", func(c *Config) bool { return c.Telemetry.Metrics }},
	} {
		for in, want := range map[string]bool{"YES": true, "On": true, "1": true, "no": false, "OFF": false, "0": false} {
			cfg := DefaultConfig()
			if errs := cfg.fromEnv(map[string]string{tc.name: in}); len(errs) > 0 || tc.get(&cfg) != want {
				t.Errorf("%s=%s: %v, errors %v", tc.name, in, tc.get(&cfg), errs)
			}
		}
		cfg := DefaultConfig()
		errs := cfg.fromEnv(map[string]string{tc.name: "maybe"})
		if len(errs) != 1 || errs[0].Error() != tc.name+`="maybe": must be true or false (or 1/0, yes/no, on/off)` {
			t.Errorf("%s=maybe: %v", tc.name, errs)
		}
	}
}

// TestSettingError: the message names the variable, the value as given
// (shortened, never twice), and the flag that gave it.
func TestSettingError(t *testing.T) {
	base := errors.New("must be between 1 and 300 seconds")
	for _, tc := range []struct {
		err  *SettingError
		want string
	}{
		{&SettingError{Name: "QUERY_TIMEOUT", Value: "1000", Err: base}, `QUERY_TIMEOUT="1000": must be between 1 and 300 seconds`},
		{&SettingError{Name: "DORIS_USER", Err: errors.New("is empty")}, `DORIS_USER: is empty`},
		{&SettingError{Name: "DORIS_PORT", Value: "70000", Flag: "--doris-port", Err: base}, `DORIS_PORT="70000" (set by --doris-port): must be between 1 and 300 seconds`},
		{&SettingError{Name: "X", Value: "v", Err: errors.New(`"v" is wrong`)}, `X: "v" is wrong`},
		{&SettingError{Name: "X", Value: strings.Repeat("é", 60), Err: base}, `X="` + strings.Repeat("é", 40) + `…": must be between 1 and 300 seconds`},
		{&SettingError{Name: "DORIS_OAUTH_PEERS", Value: "https://a.example https://ops:hunter2@b.example/", Err: errors.New("must not contain user information")},
			`DORIS_OAUTH_PEERS="https://a.example https://…@b.example/": must not contain user information`},
	} {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("got  %s\nwant %s", got, tc.want)
		}
		if !errors.Is(tc.err, tc.err.Err) {
			t.Errorf("%v does not unwrap", tc.err)
		}
	}
}

// TestExplain: every problem of every package comes out a *SettingError
// with the value as given; package doris's Go durations are restated in
// the variable's unit, and its errors still unwrap to the original.
func TestExplain(t *testing.T) {
	dorisErr := errors.New("QUERY_TIMEOUT: 16m40s is outside 1..300 seconds")
	origins := map[string]origin{"QUERY_TIMEOUT": {value: "1000"}, "DORIS_PASSWORD": {}, "DORIS_PORT": {value: "0", flag: "--doris-port"}}
	err := explain(errors.Join(
		dorisErr,
		&SettingError{Name: "DORIS_PORT", Err: errors.New("must be between 1 and 65535")},
		&auth.ConfigError{Field: "DORIS_PASSWORD", Err: errors.New("is wrong")},
		errors.New("NOT_A_SETTING: as it was"),
		errors.New("DORIS_HEALTH_CHECK_INTERVAL: 500ms is shorter than 1 second"),
	), origins, isSetting)
	want := `QUERY_TIMEOUT="1000": must be between 1 and 300 seconds
DORIS_PORT="0" (set by --doris-port): must be between 1 and 65535
DORIS_PASSWORD: is wrong
NOT_A_SETTING: as it was
DORIS_HEALTH_CHECK_INTERVAL: 500ms is shorter than 1 second`
	if err.Error() != want {
		t.Errorf("got\n%s\nwant\n%s", err, want)
	}
	if !errors.Is(err, dorisErr) {
		t.Error("the restated problem no longer unwraps to package doris's")
	}
	if got := inUnitOfSetting("0.5 is shorter than 1 second", true); got != "must be at least 1 second" {
		t.Errorf("shorter: %q", got)
	}
	if got := inUnitOfSetting("2 is outside (0, 1]", true); got != "must be within (0, 1]" {
		t.Errorf("interval: %q", got)
	}
}

// TestStrayVariables: near misses of a setting with the server's
// prefixes are warned of with the setting they probably meant; others with
// those prefixes are listed; everything else, settings and TOKEN_<ID>s are
// not strays.
func TestStrayVariables(t *testing.T) {
	env := map[string]string{
		"DORIS_PASWORD": "x", "QUERY_TIMOUT": "x", "MCP_ALLOWED_HOST": "x", "DORIS_OAUTH_BASE_ULR": "x", "TOKEN_FILE_PAHT": "x",
		"ENABLE_TOKEN_AUHT": "x", "DORIS_PASSWORD": "x", "TOKEN_ALICE": "x", "TOKEN_ALICE_PERMISSIONS": "x", "PATH": "x", "HOME": "x",
		"ENABLE_SECURITY_CHECK": "x", "ENABLE_QUERY_CACHE": "x", "DORIS_MCP_TEST_LOG": "x", "OAUTH_PROVIDER": "x",
	}
	var typos, others []string
	for _, s := range strayVariables(env) {
		if s.meant != "" {
			typos = append(typos, s.typo())
		} else {
			others = append(others, s.name)
		}
	}
	wantTypos := []string{
		"DORIS_OAUTH_BASE_ULR is not a setting; did you mean DORIS_OAUTH_BASE_URL?",
		"DORIS_PASWORD is not a setting; did you mean DORIS_PASSWORD?",
		"ENABLE_TOKEN_AUHT is not a setting; did you mean ENABLE_TOKEN_AUTH?",
		"MCP_ALLOWED_HOST is not a setting; did you mean MCP_ALLOWED_HOSTS?",
		"TOKEN_FILE_PAHT is not a setting; did you mean TOKEN_FILE_PATH?",
	}
	if !slices.Equal(typos, wantTypos) {
		t.Errorf("typos\n%s\nwant\n%s", strings.Join(typos, "\n"), strings.Join(wantTypos, "\n"))
	}
	if want := []string{"DORIS_MCP_TEST_LOG", "ENABLE_QUERY_CACHE", "ENABLE_SECURITY_CHECK", "OAUTH_PROVIDER"}; !slices.Equal(others, want) {
		t.Errorf("others %q, want %q", others, want)
	}
	for a, b := range map[[2]string]int{{"", ""}: 0, {"abc", ""}: 3, {"PASWORD", "PASSWORD"}: 1, {"PAHT", "PATH"}: 1, {"ABCD", "BADC"}: 2, {"kitten", "sitting"}: 3} {
		if got := editDistance(a[0], a[1]); got != b {
			t.Errorf("editDistance(%q, %q) = %d, want %d", a[0], a[1], got, b)
		}
	}
}

// TestHandleSecretRotation: with MCP_STATE_HANDLE_PREVIOUS_SECRET, a
// cursor signed before the rotation still opens, and new ones are signed
// with the new secret only.
func TestHandleSecretRotation(t *testing.T) {
	const oldSecret, newSecret = "Wq4-Zt8Lp2Xv6Nb0Mc3Hd7Jf1Gs5Ky9Re+a", "k2P9x-Qv7Lm3Rt8Zw4Yb6Nc1Hd5Jf0Gs+ux"
	signer := func(env map[string]string) *handle.Signer {
		t.Helper()
		cfg := DefaultConfig()
		if err := errors.Join(append(cfg.fromEnv(env), cfg.Validate())...); err != nil {
			t.Fatal(err)
		}
		s, err := newSigner(cfg)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	c := handle.Claims{Kind: "cursor", Scope: "tools/list", Resource: "mcp://tools", Principal: "p"}
	before := signer(map[string]string{"MCP_STATE_HANDLE_SECRET": oldSecret})
	h, err := before.Sign(c, 1)
	if err != nil {
		t.Fatal(err)
	}
	rotating := signer(map[string]string{"MCP_STATE_HANDLE_SECRET": newSecret, "MCP_STATE_HANDLE_PREVIOUS_SECRET": oldSecret})
	if err := rotating.Open(h, c, nil); err != nil {
		t.Fatalf("a cursor of the previous secret during the rotation: %v", err)
	}
	fresh, _ := rotating.Sign(c, 2)
	if before.Open(fresh, c, nil) == nil {
		t.Error("a new cursor is signed with the previous secret")
	}
	after := signer(map[string]string{"MCP_STATE_HANDLE_SECRET": newSecret})
	if after.Open(h, c, nil) == nil || after.Open(fresh, c, nil) != nil {
		t.Error("without the previous secret, only the new secret's cursors open")
	}
	for env, want := range map[string]string{
		oldSecret: "MCP_STATE_HANDLE_PREVIOUS_SECRET: needs MCP_STATE_HANDLE_SECRET",
		"weak":    "MCP_STATE_HANDLE_PREVIOUS_SECRET: is 4 bytes",
	} {
		m := map[string]string{"MCP_STATE_HANDLE_PREVIOUS_SECRET": env}
		if env == "weak" {
			m["MCP_STATE_HANDLE_SECRET"] = newSecret
		}
		msg, err := checkConfig(t, m)
		if err == nil || !strings.Contains(msg, want) || strings.Contains(msg, oldSecret) {
			t.Errorf("%v: %v\n%s", m, err, msg)
		}
	}
}

// TestProblemsHideCredentials: a URL refused for carrying credentials is
// named without them, whichever package refuses it.
func TestProblemsHideCredentials(t *testing.T) {
	msg, err := checkConfig(t, withEnv(dorisOAuthOn, "DORIS_OAUTH_BASE_URL", "https://ops:hunter2@mcp.example.com",
		"DORIS_OAUTH_PEERS", "https://ops:hunter2@b.example/ https://c.example", "DORIS_OAUTH_SECRET", "Wq4-Zt8Lp2Xv6Nb0Mc3Hd7Jf1Gs5Ky9Re+a",
		"ENABLE_JWT_AUTH", "true", "JWT_ALGORITHM", "HS256", "JWT_SECRET_KEY", "Wq4-Zt8Lp2Xv6Nb0Mc3Hd7Jf1Gs5Ky9Re+a",
		"JWT_JWKS_URL", "https://ops:hunter2@keys.example/jwks"))
	if err == nil || strings.Contains(msg, "hunter2") || !strings.Contains(msg, `DORIS_OAUTH_BASE_URL="https://…@mcp.example.com"`) ||
		!strings.Contains(msg, "JWT_JWKS_URL") || !strings.Contains(msg, `"https://…@b.example/": is not`) {
		t.Errorf("%v\n%s", err, msg)
	}
}
