package doris

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/doris-mcp/doris-mcp-server/guard"
)

const QueryPrefix = "QUERY"

// queryData is the data of a Query child: columns in order, rows as
// objects keyed by (deduplicated) column name.
type queryData struct {
	Columns   []Column          `json:"columns"`
	Rows      []json.RawMessage `json:"rows"`
	RowCount  int               `json:"row_count"`
	Truncated bool              `json:"truncated"`
	// SQL is the statement that produced the rows when the caller did not
	// write it (a compiled metric query); "" otherwise.
	SQL string `json:"sql,omitempty"`
	// Format is the result_format of an ADBC result ("" otherwise).
	Format string `json:"result_format,omitempty"`
	// Masking is what result masking did to Rows (mask.go); put it on
	// the child's Result.
	Masking *Masking `json:"-"`
}

// AppendJSON writes {"columns":[...],"rows":[...],"row_count":n,"truncated":b}
// with the rows as they were rendered while streaming.
func (q *queryData) AppendJSON(b []byte) []byte {
	b = append(b, `{"columns":[`...)
	for i, c := range q.Columns {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"name":`...)
		b = appendString(b, c.Name)
		b = append(b, `,"type":`...)
		b = appendString(b, c.Type)
		if c.ArrowType != "" {
			b = append(b, `,"arrow_type":`...)
			b = appendString(b, c.ArrowType)
		}
		b = append(b, '}')
	}
	b = append(b, `],"rows":[`...)
	for i, r := range q.Rows {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, r...)
	}
	b = append(b, `],"row_count":`...)
	b = strconv.AppendInt(b, int64(q.RowCount), 10)
	b = append(b, `,"truncated":`...)
	b = strconv.AppendBool(b, q.Truncated)
	if q.SQL != "" {
		b = append(b, `,"sql":`...)
		b = appendString(b, q.SQL)
	}
	if q.Format != "" {
		b = append(b, `,"result_format":`...)
		b = appendString(b, q.Format)
	}
	return append(b, '}')
}

// Limits resolves a call's row budget and timeout against the deployment
// ceilings. Asking for more than a ceiling is an argument error, never a
// silent clamp.
func (r *Runtime) Limits(maxRows, timeoutMs *int) (rows int, timeout time.Duration, err error) {
	rows = r.cfg.DefaultResultRows
	if maxRows != nil {
		if *maxRows < 1 {
			return 0, 0, ArgError(QueryPrefix, "ROW_LIMIT_INVALID", "max_rows must be at least 1")
		}
		if *maxRows > r.cfg.MaxResultRows {
			return 0, 0, ArgError(QueryPrefix, "ROW_LIMIT_EXCEEDED",
				fmt.Sprintf("max_rows %d exceeds this server's ceiling of %d (MAX_RESULT_ROWS)", *maxRows, r.cfg.MaxResultRows))
		}
		rows = *maxRows
	}
	timeout = min(DefaultCallTimeout, r.cfg.QueryTimeout)
	if timeoutMs != nil {
		t := time.Duration(*timeoutMs) * time.Millisecond
		if *timeoutMs < 1 {
			return 0, 0, ArgError(QueryPrefix, "TIMEOUT_INVALID", "timeout_ms must be at least 1")
		}
		if t > r.cfg.QueryTimeout {
			return 0, 0, ArgError(QueryPrefix, "TIMEOUT_LIMIT_EXCEEDED",
				fmt.Sprintf("timeout_ms %d exceeds this server's ceiling of %d ms (QUERY_TIMEOUT)", *timeoutMs, r.cfg.QueryTimeout.Milliseconds()))
		}
		timeout = t
	}
	return rows, timeout, nil
}

// CheckSQL runs the guard over caller SQL with its parameters, once, under
// the runtime's egress policy (EGRESS_ALLOWED_FUNCTIONS), and returns the
// checked statement to send. (The connection boundary checks it again,
// under the same policy: that check is defence in depth, not a second
// opinion.)
func (r *Runtime) CheckSQL(sqlText string, params map[string]any) (*guard.Statement, error) {
	st, err := r.policy.Bind(sqlText, params)
	if err != nil {
		return nil, GuardError(err)
	}
	return st, nil
}

// Policy is the egress policy caller SQL is checked under
// (EGRESS_ALLOWED_FUNCTIONS), for the handlers that check SQL with
// guard themselves: Policy().Check is guard.Check with the operator's
// allowed functions.
func (r *Runtime) Policy() *guard.Policy { return r.policy }

func GuardError(err error) error {
	var ge *guard.Error
	if !errors.As(err, &ge) {
		return err
	}
	reason := "READ_ONLY_VIOLATION"
	switch ge.Reason {
	case "POSITIONAL_PARAMETER", "UNKNOWN_PARAMETER", "MISSING_PARAMETER", "INVALID_PARAMETER_VALUE":
		reason = "PARAMETERS_INVALID"
	}
	msg := "refused by the read-only guard (" + ge.Reason + "): " + ge.Msg
	if ge.Reason == guard.ReasonEgressFunction {
		msg += " (" + EgressSetting + ")"
	}
	return &Error{Kind: KindArguments, Reason: QueryPrefix + "_" + reason, Status: 400, Position: &ge.Pos,
		Message: msg, Cause: err}
}

// Query runs s and returns typed rows within the row and byte budgets.
// Rows stream from the driver and stop at the budget: nothing beyond it is
// read or kept. Each row is masked as it is encoded (mask.go), and the
// masked text is what counts toward the byte budget.
func (r *Runtime) Query(ctx context.Context, rt *Route, s Stmt, maxRows, maxBytes int, rowsArg string) (*queryData, []string, error) {
	return r.collect(maxRows, maxBytes, rowsArg, func(visit visitor) error { return r.Run(ctx, rt, s, visit) })
}

// collect runs a statement through run and keeps its rows within the row
// and byte budgets, masked as they are encoded: the one row path of the
// MySQL protocol and of Arrow Flight SQL (FlightQuery).
func (r *Runtime) collect(maxRows, maxBytes int, rowsArg string, run func(visitor) error) (*queryData, []string, error) {
	data := &queryData{Rows: []json.RawMessage{}}
	var names [][]byte // column names as JSON strings with the colon
	var mask *columnPlan
	var masked MaskStats
	var rowRules []string
	total, byteCut := 0, false
	buf := make([]byte, 0, 256)
	err := run(func(cols []Column, row []sql.RawBytes) (bool, error) {
		if names == nil {
			data.Columns = cols
			for _, n := range uniqueNames(cols) {
				names = append(names, append(appendString(nil, n), ':'))
			}
			mask = r.mask.plan(cols)
		}
		if len(data.Rows) == maxRows {
			data.Truncated = true
			return true, nil
		}
		buf = buf[:0]
		buf = append(buf, '{')
		rowRules = rowRules[:0]
		for i, v := range row {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = append(buf, names[i]...)
			if mask != nil && v != nil && mask.needs(i, v) {
				if m, rule, ok := mask.apply(i, v); ok {
					rowRules = append(rowRules, rule)
					buf = appendString(buf, m)
					continue
				}
			}
			buf = appendValue(buf, cols[i].dbType, v)
		}
		buf = append(buf, '}')
		if total+len(buf) > maxBytes {
			data.Truncated, byteCut = true, true
			return true, nil
		}
		total += len(buf)
		data.Rows = append(data.Rows, append(json.RawMessage(nil), buf...))
		for _, rule := range rowRules { // counted once the row is kept
			masked.Add(rule)
		}
		return false, nil
	})
	if err != nil {
		return nil, nil, err
	}
	if data.Columns == nil {
		data.Columns = []Column{}
	}
	data.RowCount = len(data.Rows)
	data.Masking = masked.Report(r.mask != nil)
	var warnings []string
	switch {
	case byteCut:
		warnings = append(warnings, fmt.Sprintf("The result was cut after %s because it reached %d bytes (MAX_RESULT_BYTES). "+
			"Select fewer columns, aggregate, or add a WHERE clause or LIMIT to narrow it.", Plural(data.RowCount, "row", "rows"), maxBytes))
	case data.Truncated:
		warnings = append(warnings, fmt.Sprintf("The result was cut at %s (%s). Aggregate, add a WHERE clause or LIMIT, "+
			"or raise %s up to the server's ceiling.", Plural(maxRows, "row", "rows"), rowsArg, rowsArg))
	}
	if len(names) > 0 && hasDuplicateNames(data.Columns) {
		warnings = append(warnings, "Some columns share a name; in rows a repeated name is keyed with the first suffix _2, _3, ... that no other column uses.")
	}
	return data, warnings, nil
}

// uniqueNames keys rows by column name. The first column of a name keeps
// it; a repeat gets the first suffix _2, _3, ... that no column of the
// result uses, so "a, a, a_2" becomes "a, a_3, a_2", never a duplicate.
func uniqueNames(cols []Column) []string {
	taken := make(map[string]bool, len(cols))
	for _, c := range cols {
		taken[c.Name] = true
	}
	first := make(map[string]bool, len(cols))
	out := make([]string, len(cols))
	for i, c := range cols {
		if !first[c.Name] {
			first[c.Name] = true
			out[i] = c.Name
			continue
		}
		for n := 2; ; n++ {
			if cand := c.Name + "_" + strconv.Itoa(n); !taken[cand] {
				taken[cand] = true
				out[i] = cand
				break
			}
		}
	}
	return out
}

func hasDuplicateNames(cols []Column) bool {
	seen := map[string]bool{}
	for _, c := range cols {
		if seen[c.Name] {
			return true
		}
		seen[c.Name] = true
	}
	return false
}
