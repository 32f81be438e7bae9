package doris

import (
	"context"
	"fmt"
	"strings"
	"syscall"
	"testing"

	"github.com/go-sql-driver/mysql"
)

// TestDatabaseDenied: MySQL error 1044 ("access denied ... to database")
// on DORIS_DATABASE means the database is missing or invisible to this
// account, not that the account may not read its server version.
func TestDatabaseDenied(t *testing.T) {
	err := &mysql.MySQLError{Number: 1044, Message: "errCode = 2, detailMessage = Access denied for user 'mcp_reader'@'%' to database 'nosuchdb'"}
	e := Classify("DORIS", err, nil)
	if e.Reason != "DORIS_PERMISSION_DENIED" || e.Status != 403 || !strings.Contains(e.Message, "does not exist or is not visible") {
		t.Fatalf("Classify(1044) = %+v", e)
	}
	reason, detail := unavailableReason(err)
	if reason != ReasonDatabaseUnavailable || !strings.Contains(detail, "DORIS_DATABASE does not exist or is not visible") {
		t.Fatalf("unavailableReason(1044) = %q, %q", reason, detail)
	}
	if strings.Contains(detail, "server version") || strings.Contains(detail, "nosuchdb") {
		t.Fatalf("detail %q: the old wording, or backend text", detail)
	}
}

// TestServiceError: why the global route cannot serve, by reason code,
// each with a sentence that names what to set and no backend text.
func TestServiceError(t *testing.T) {
	const secret = "backend-secret-text"
	my := func(n uint16) error { return &mysql.MySQLError{Number: n, Message: "errCode = 2, " + secret} }
	for _, tc := range []struct {
		err    error
		reason string
		says   string
	}{
		{my(1045), ReasonAuthenticationFailed, "DORIS_PASSWORD"},
		{my(1130), ReasonAuthenticationFailed, "DORIS_USER"},
		{my(1044), ReasonDatabaseUnavailable, "DORIS_DATABASE"},
		{my(1049), ReasonDatabaseUnavailable, "DORIS_DATABASE"},
		{my(3159), ReasonTLSRequired, "TLS"},
		{fmt.Errorf("dial tcp 127.0.0.1:1: %w", syscall.ECONNREFUSED), ReasonConnectionFailed, "not reachable"},
	} {
		e := serviceError(context.Background(), tc.err)
		if e.Reason != tc.reason || !strings.Contains(e.Message, tc.says) || strings.Contains(e.Message, secret) {
			t.Errorf("%v: got %s %q, want %s saying %q", tc.err, e.Reason, e.Message, tc.reason, tc.says)
		}
		if e.ReasonCode() != e.Reason {
			t.Errorf("ReasonCode %q", e.ReasonCode())
		}
	}
}
