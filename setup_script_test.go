package main

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestSetupEnablesNoService: .ci/setup never enables or starts a systemd
// unit, keeps apt from starting the services of what it installs, leaves
// prometheus.service disabled, and says what it installs when it does.
func TestSetupEnablesNoService(t *testing.T) {
	b, err := os.ReadFile(".ci/setup")
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	if m := regexp.MustCompile(`systemctl\s+(enable|start|restart)\b`).FindString(s); m != "" {
		t.Errorf(".ci/setup runs %q", m)
	}
	for _, want := range []string{"policy-rc.d", "exit 101", "no_service prometheus.service", `log "apt-get install $*"`, "installed via apt:"} {
		if !strings.Contains(s, want) {
			t.Errorf(".ci/setup lacks %q", want)
		}
	}
	// Every apt-get install goes through apt_install (which logs it and
	// blocks service starts).
	if n := strings.Count(s, "noninteractive apt-get install"); n != 1 {
		t.Errorf("%d direct apt-get installs, want only apt_install's one", n)
	}
	doc, err := os.ReadFile("docs/development.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Chromium", "Prometheus", "MariaDB", "never enables a systemd unit"} {
		if !strings.Contains(string(doc), want) {
			t.Errorf("docs/development.md lacks %q", want)
		}
	}
}
