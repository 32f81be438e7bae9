package doris

import (
	"bytes"
	"context"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"testing"
)

// TestFailoverLogWording: the log says "trying the next" only when there
// is a next FE to try: with one FE it says it is the only one, and after
// the last of several that none is left.
func TestFailoverLogWording(t *testing.T) {
	closed := func() string {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := l.Addr().String()
		l.Close()
		return addr
	}
	for _, tt := range []struct {
		name  string
		hosts []string
		want  []string
		not   string
	}{
		{"one FE", []string{closed()}, []string{"it is the only FE configured"}, "trying the next"},
		{"two FEs", []string{closed(), closed()}, []string{"trying the next", "no configured FE is left to try"}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var logs bytes.Buffer
			cfg := DefaultConfig()
			if len(tt.hosts) == 1 {
				host, port, _ := net.SplitHostPort(tt.hosts[0])
				cfg.Host, cfg.Port = host, atoi(t, port)
			} else {
				cfg.Host, cfg.Hosts = "", tt.hosts
			}
			c, err := newConnector(&cfg, "u", "p", slog.New(slog.NewTextHandler(&logs, nil)))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := c.Connect(context.Background()); err == nil {
				t.Fatal("connected to a closed port")
			}
			got := logs.String()
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("log lacks %q:\n%s", w, got)
				}
			}
			if tt.not != "" && strings.Contains(got, tt.not) {
				t.Errorf("log says %q with nothing next:\n%s", tt.not, got)
			}
		})
	}
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
