package doris_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/doris-mcp/doris-mcp-server/catalog"
	"github.com/doris-mcp/doris-mcp-server/doris"
	"github.com/doris-mcp/doris-mcp-server/doris/dorissim/mariadb"
	"github.com/doris-mcp/doris-mcp-server/doris/dorissim/sim"
	"github.com/doris-mcp/doris-mcp-server/doris/doristest"
	"github.com/doris-mcp/doris-mcp-server/handle"
)

// TestCheckLogin: CheckLogin tells a password Doris accepts from one it
// refuses and from a Doris it cannot reach, works for an account without
// any privilege, follows a password changed in Doris, and never logs the
// password.
func TestCheckLogin(t *testing.T) {
	in := mariadb.SharedFor(t)
	ctx := context.Background()
	doristest.NewAccount(t, in, "login_reader", "reader-pw-1", "SELECT ON demo.customers")
	doristest.NewAccount(t, in, "login_nobody", "nobody-pw-1")
	users := in.UserMap()
	users["login_reader"] = "reader-pw-1"
	users["login_nobody"] = "nobody-pw-1"
	s, err := sim.Start(ctx, sim.Options{Listen: "127.0.0.1:0", Upstream: in.Addr(), Users: users, Logger: doristest.Quiet()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	var logs bytes.Buffer
	signer, _ := handle.NewRandom()
	cfg := doristest.SimConfig(t, s, doristest.EnvOpts{})
	rt, err := doris.Open(cfg, doris.Options{Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})), Handles: signer, Handlers: catalog.Handlers(), Probes: catalog.Probes()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close() })
	rejected := &doris.Error{Reason: doris.ReasonLoginRejected}

	for _, tc := range []struct {
		name, user, password string
		want                 error
	}{
		{"right password", "login_reader", "reader-pw-1", nil},
		{"no privileges at all", "login_nobody", "nobody-pw-1", nil},
		{"wrong password", "login_reader", "wrong-pw-9", rejected},
		{"unknown user", "login_ghost", "reader-pw-1", rejected},
		{"empty password", "login_reader", "", rejected},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := rt.CheckLogin(ctx, tc.user, tc.password)
			if tc.want == nil && err != nil || tc.want != nil && !errors.Is(err, tc.want) {
				t.Errorf("got %v, want %v", err, tc.want)
			}
		})
	}

	// The administrator changes the password, in Doris (here MariaDB and
	// the simulator's account table): the old one is refused from now on.
	if err := in.Exec(ctx, "ALTER USER 'login_reader'@'%' IDENTIFIED BY 'reader-pw-2'"); err != nil {
		t.Fatal(err)
	}
	s.SetUser("login_reader", "reader-pw-2")
	if err := rt.CheckLogin(ctx, "login_reader", "reader-pw-1"); !errors.Is(err, rejected) {
		t.Errorf("the old password after the change: %v", err)
	}
	if err := rt.CheckLogin(ctx, "login_reader", "reader-pw-2"); err != nil {
		t.Errorf("the new password: %v", err)
	}

	// Doris unreachable: not a refusal.
	if err := s.SetDown(true); err != nil {
		t.Fatal(err)
	}
	err = rt.CheckLogin(ctx, "login_reader", "reader-pw-2")
	if err := s.SetDown(false); err != nil {
		t.Fatal(err)
	}
	if err == nil || errors.Is(err, rejected) {
		t.Errorf("Doris down: got %v, want an unavailability that is not a refusal", err)
	}
	for _, pw := range []string{"reader-pw-1", "reader-pw-2", "wrong-pw-9", "nobody-pw-1"} {
		if strings.Contains(logs.String(), pw) {
			t.Errorf("the log holds a password: %s", logs.String())
		}
	}
}
