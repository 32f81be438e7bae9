package sim

import (
	"context"
	"errors"
	"time"
)

// errNoAdmin is returned when Options.Users names no administrator, so the
// simulator cannot keep metadata on Doris's behalf.
var errNoAdmin = errors.New("sim: no admin account in Options.Users")

// adminQuery runs statements upstream, in order, as the simulator's
// administrator (the first admin in Options.Users) on a connection of its
// own, and returns the result of the last. It serves what the simulator
// does on Doris's behalf rather than the client's: committing lakehouse
// snapshots, reading the columns of its own views. Callers check the
// client's privileges first.
func (s *Server) adminQuery(maxRows int, stmts ...string) (*result, error) {
	user, pw, ok := s.adminAccount()
	if !ok {
		return nil, errNoAdmin
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	up, err := dialUpstream(ctx, s.opts.Upstream, user, pw, "", 45)
	if err != nil {
		return nil, err
	}
	defer up.close()
	_ = up.conn.SetDeadline(time.Now().Add(10 * time.Second))
	var r *result
	for _, q := range stmts {
		if r, err = up.query(q, maxRows); err != nil {
			return nil, err
		}
	}
	return r, nil
}
