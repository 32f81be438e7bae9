package doris

import (
	"context"
	"database/sql/driver"
	"errors"
	"io"

	"github.com/go-sql-driver/mysql"
)

// ReasonLoginRejected is the Reason of CheckLogin's error when Doris
// refuses the user name and password.
const ReasonLoginRejected = "DORIS_AUTHENTICATION_FAILED"

// loginRejectedCodes are the MySQL-protocol errors of a refused account:
// wrong user or password (1045), host not allowed (1130), password expired
// (1820, 1862), account locked (MySQL 3118, MariaDB 4151).
var loginRejectedCodes = map[uint16]bool{1045: true, 1130: true, 1820: true, 1862: true, 3118: true, 4151: true}

// CheckLogin reports whether Doris accepts user and password: it opens one
// connection as that user through the same connector as every pool (the
// configured FEs in order, the read-only boundary), runs SELECT 1 and
// closes it. No session database is selected, so an account without any
// privilege can still prove its password. The error is an *Error: Reason
// ReasonLoginRejected when Doris refuses the account, else the classified
// failure (DORIS_BACKEND_UNAVAILABLE when it cannot be reached). The
// password is never logged and never kept.
func (r *Runtime) CheckLogin(ctx context.Context, user, password string) error {
	if user == "" || password == "" {
		return &Error{Kind: KindFailed, Reason: ReasonLoginRejected, Status: 401, Message: "a Doris user name and password are required"}
	}
	cfg := r.cfg
	cfg.Database = ""
	conn, err := newConnector(&cfg, user, password, r.log)
	if err != nil {
		return err
	}
	dc, err := conn.Connect(ctx)
	if err != nil {
		return loginError(ctx, err)
	}
	defer dc.Close()
	rows, err := dc.(driver.QueryerContext).QueryContext(ctx, "SELECT 1", nil)
	if err != nil {
		return loginError(ctx, err)
	}
	defer rows.Close()
	vals := make([]driver.Value, 1)
	if err := rows.Next(vals); err != nil && !errors.Is(err, io.EOF) {
		return loginError(ctx, err)
	}
	return nil
}

func loginError(ctx context.Context, err error) error {
	var me *mysql.MySQLError
	if errors.As(err, &me) && loginRejectedCodes[me.Number] {
		return &Error{Kind: KindFailed, Reason: ReasonLoginRejected, Status: 401,
			Message: "Doris refused the user name or password", Cause: err}
	}
	return Classify("DORIS", err, ctx)
}
