package doris

import (
	"context"

	"github.com/doris-mcp/doris-mcp-server/auth"
)

// TextForTest runs a metadata read the way the children do, for the
// external tests: at most maxRows rows kept.
func (r *Runtime) TextForTest(ctx context.Context, id auth.Identity, sql string, maxRows int) (rows int, truncated bool, err error) {
	rt, err := r.Route(id)
	if err != nil {
		return 0, false, err
	}
	t, err := r.Text(ctx, rt, sql, maxRows, "TEST")
	if err != nil {
		return 0, false, err
	}
	return len(t.Rows), t.Truncated, nil
}
