package doris

import (
	"context"
	"testing"

	"github.com/go-sql-driver/mysql"
)

// TestClassifyBackendOffline: the texts Doris sends when the backends
// that must run a query are down (FE SystemInfoService and
// OlapScanNode.addScanRangeLocations) are a retryable
// BACKEND_UNAVAILABLE, not a failed statement and never a missing object
// ("... backend 10008 does not exist or not alive" names no object of the
// caller's).
func TestClassifyBackendOffline(t *testing.T) {
	for _, msg := range []string{
		"errCode = 2, detailMessage = There is no scanNode Backend available.[10002: not alive]",
		"errCode = 2, detailMessage = tablet 10031 has no queryable replicas. err: replica 10032's backend 10008 does not exist or not alive",
		"errCode = 2, detailMessage = There is no scanNode Backend available. in black list(send fragments failed) deadline_exceeded:deadline exceeded after 34s",
		"errCode = 2, detailMessage = No available backends",
		"errCode = 2, detailMessage = No backend available as scan node, please check the status of your backends. [10002: not alive]",
	} {
		e := Classify("X", &mysql.MySQLError{Number: 1105, Message: msg}, context.Background())
		if e.Reason != "X_BACKEND_UNAVAILABLE" || e.Status != 503 || !e.Retryable {
			t.Errorf("%q: got %s %d retryable %v, want X_BACKEND_UNAVAILABLE 503 retryable", msg, e.Reason, e.Status, e.Retryable)
		}
	}
}
