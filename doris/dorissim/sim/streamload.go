package sim

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Stream Load, as Doris serves it: the client PUTs a body to the FE at
// /api/{db}/{table}/_stream_load with HTTP basic auth; the FE checks the
// account and its LOAD privilege and answers 307 to a BE, which runs the
// load and answers with the JSON the BE writes (StreamLoadContext::to_json
// in be/src/runtime/stream_load/stream_load_context.cpp). Without a BE
// HTTP port the FE runs the load itself.
//
// The rows are inserted upstream as the loading account, in one
// transaction, so that upstream grants decide what may be loaded. Rows
// that do not fit the schema are filtered and described in an error log
// served by the BE at /api/_load_error_log; more filtered rows than
// max_filter_ratio allows fail the load and write nothing.

// streamRecord is one row of SHOW STREAM LOAD.
type streamRecord struct {
	label, db, table, clientIP, status, message, url, user, comment string
	txn                                                             int64
	total, loaded, filtered, unselected, bytes                      int64
	start, finish                                                   time.Time
}

// maxStreamLoadBytes caps one load's body.
const maxStreamLoadBytes = 64 << 20

// streamResult is the BE's JSON answer, field for field and in order.
type streamResult struct {
	TxnID                  int64  `json:"TxnId"`
	Label                  string `json:"Label"`
	Comment                string `json:"Comment"`
	TwoPhaseCommit         string `json:"TwoPhaseCommit"`
	Status                 string `json:"Status"`
	ExistingJobStatus      string `json:"ExistingJobStatus,omitempty"`
	Message                string `json:"Message"`
	NumberTotalRows        int64  `json:"NumberTotalRows"`
	NumberLoadedRows       int64  `json:"NumberLoadedRows"`
	NumberFilteredRows     int64  `json:"NumberFilteredRows"`
	NumberUnselectedRows   int64  `json:"NumberUnselectedRows"`
	LoadBytes              int64  `json:"LoadBytes"`
	LoadTimeMs             int64  `json:"LoadTimeMs"`
	BeginTxnTimeMs         int64  `json:"BeginTxnTimeMs"`
	StreamLoadPutTimeMs    int64  `json:"StreamLoadPutTimeMs"`
	ReadDataTimeMs         int64  `json:"ReadDataTimeMs"`
	WriteDataTimeMs        int64  `json:"WriteDataTimeMs"`
	CommitAndPublishTimeMs int64  `json:"CommitAndPublishTimeMs"`
	ErrorURL               string `json:"ErrorURL,omitempty"`
}

// streamLoadRoutes adds the Stream Load endpoints to the FE or BE mux.
func (s *Server) streamLoadRoutes(mux *http.ServeMux, fe bool) {
	if fe {
		mux.HandleFunc("PUT /api/{db}/{table}/_stream_load", s.feStreamLoad)
		return
	}
	mux.HandleFunc("PUT /api/{db}/{table}/_stream_load", s.beStreamLoad)
	mux.HandleFunc("GET /api/_load_error_log", s.loadErrorLog)
}

// restFailed writes the FE's RestBaseResult failure body.
func restFailed(w http.ResponseWriter, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_ = json.NewEncoder(w).Encode(map[string]string{"status": "FAILED", "msg": msg})
}

func (s *Server) feStreamLoad(w http.ResponseWriter, r *http.Request) {
	s.stats.requests.Add(1)
	user, ok := s.auth(w, r)
	if !ok {
		return
	}
	db, table := r.PathValue("db"), r.PathValue("table")
	if !s.isAdmin(user) {
		ctx, cancel := context.WithTimeout(r.Context(), 10*time.Second)
		up, err := s.upstreamFor(ctx, user, "")
		cancel()
		if err != nil {
			restFailed(w, "errCode = 2, detailMessage = failed to reach the storage backend")
			return
		}
		allowed := hasPrivilege(up, "INSERT", db, table)
		up.close()
		if !allowed {
			host, _ := hostPort(r.RemoteAddr)
			restFailed(w, fmt.Sprintf("errCode = 2, detailMessage = LOAD command denied to user '%s'@'%s' for table '%s: %s'", user, host, db, table))
			return
		}
	}
	if be := s.BEAddr(); be != "" {
		target := "http://" + be + r.URL.EscapedPath()
		if r.URL.RawQuery != "" {
			target += "?" + r.URL.RawQuery
		}
		w.Header().Set("Location", target)
		w.WriteHeader(http.StatusTemporaryRedirect)
		return
	}
	s.streamLoad(w, r, user, db, table)
}

func (s *Server) beStreamLoad(w http.ResponseWriter, r *http.Request) {
	u, p, has := r.BasicAuth()
	want, known := s.opts.Users[u]
	if !has || !known || subtle.ConstantTimeCompare([]byte(want), []byte(p)) != 1 {
		host, _ := hostPort(r.RemoteAddr)
		writeStreamResult(w, &streamResult{Label: r.Header.Get("label"), TwoPhaseCommit: "false", Status: "Fail",
			Message: fmt.Sprintf("[INTERNAL_ERROR]errCode = 2, detailMessage = Access denied for user '%s'@'%s' (using password: YES)", u, host)})
		return
	}
	s.streamLoad(w, r, u, r.PathValue("db"), r.PathValue("table"))
}

func writeStreamResult(w http.ResponseWriter, res *streamResult) {
	b, _ := json.MarshalIndent(res, "", "    ")
	w.Header().Set("Content-Type", "text/plain; charset=UTF-8")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(append(b, '\n'))
}

// loadColumn is a target column as the upstream describes it.
type loadColumn struct {
	name, dataType, columnType string
	nullable, key              bool
	maxChars                   int
}

// streamLoad runs one load and writes the BE's answer.
func (s *Server) streamLoad(w http.ResponseWriter, r *http.Request, user, db, table string) {
	start := time.Now()
	label := r.Header.Get("label")
	if label == "" {
		label = newUUID()
	}
	res := &streamResult{Label: label, Comment: r.Header.Get("comment"), TwoPhaseCommit: "false"}
	host, _ := hostPort(r.RemoteAddr)
	rec := &streamRecord{label: label, db: db, table: table, clientIP: host, user: user, comment: res.Comment,
		url: "N/A", start: start}
	finish := func() {
		res.LoadTimeMs = time.Since(start).Milliseconds()
		rec.finish = time.Now()
		rec.status, rec.message, rec.txn = res.Status, res.Message, res.TxnID
		rec.total, rec.loaded, rec.filtered, rec.unselected, rec.bytes = res.NumberTotalRows, res.NumberLoadedRows,
			res.NumberFilteredRows, res.NumberUnselectedRows, res.LoadBytes
		if res.ErrorURL != "" {
			rec.url = res.ErrorURL
		}
		s.pipe.addStream(rec)
		writeStreamResult(w, res)
	}
	fail := func(msg string) {
		res.Status, res.Message = "Fail", msg
		finish()
	}

	// Begin the transaction: the label must be free in the database.
	t0 := time.Now()
	if txn, taken := s.pipe.labelTaken(db, label); taken {
		res.TxnID, res.Status, res.ExistingJobStatus = -1, "Label Already Exists", "FINISHED"
		res.Message = fmt.Sprintf("errCode = 2, detailMessage = Label [%s] has already been used, relate to txn [%d]", label, txn)
		res.LoadTimeMs = time.Since(start).Milliseconds()
		writeStreamResult(w, res) // a refused request is not a load: nothing is recorded
		return
	}
	res.TxnID = s.pipe.txn()
	res.BeginTxnTimeMs = time.Since(t0).Milliseconds()

	// Plan: the target table and its columns, seen as the loading account.
	t0 = time.Now()
	ctx, cancel := context.WithTimeout(r.Context(), 5*time.Minute)
	defer cancel()
	up, err := s.upstreamFor(ctx, user, "")
	if err != nil {
		fail("[INTERNAL_ERROR]failed to reach the storage backend")
		return
	}
	defer up.close()
	if dl, ok := ctx.Deadline(); ok {
		_ = up.conn.SetDeadline(dl)
	}
	cols, derr := loadColumns(up, db, table)
	if derr != "" {
		fail(derr)
		return
	}
	format := strings.ToLower(r.Header.Get("format"))
	if format != "" && format != "csv" && format != "csv_with_names" && format != "csv_with_names_and_types" {
		fail("[NOT_IMPLEMENTED_ERROR]the simulator loads csv only, not format " + format)
		return
	}
	target, derr := targetColumns(cols, r.Header.Get("columns"), table)
	if derr != "" {
		fail(derr)
		return
	}
	maxRatio := 0.0
	if v := r.Header.Get("max_filter_ratio"); v != "" {
		if maxRatio, err = strconv.ParseFloat(v, 64); err != nil || maxRatio < 0 || maxRatio > 1 {
			fail("[INVALID_ARGUMENT]max_filter_ratio must be between 0 and 1")
			return
		}
	}
	strict := strings.EqualFold(r.Header.Get("strict_mode"), "true")
	res.StreamLoadPutTimeMs = time.Since(t0).Milliseconds()

	// Read and check the data.
	t0 = time.Now()
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxStreamLoadBytes))
	res.LoadBytes = int64(len(body))
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		fail(fmt.Sprintf("[INTERNAL_ERROR]The size of this load exceed the max size: %d, please check the stream_load_max_mb in be config", int64(maxStreamLoadBytes)))
		return
	} else if err != nil {
		fail("[INTERNAL_ERROR]failed to read the request body: " + err.Error())
		return
	}
	sep := unescapeSeparator(r.Header.Get("column_separator"), "\t")
	delim := unescapeSeparator(r.Header.Get("line_delimiter"), "\n")
	lines := strings.Split(string(body), delim)
	if n := len(lines); n > 0 && lines[n-1] == "" {
		lines = lines[:n-1]
	}
	skip := 0
	switch format {
	case "csv_with_names":
		skip = 1
	case "csv_with_names_and_types":
		skip = 2
	}
	lines = lines[min(skip, len(lines)):]
	trimQuotes := strings.EqualFold(r.Header.Get("trim_double_quotes"), "true")
	var good [][]*string
	var errLog strings.Builder
	errRows := 0
	for _, line := range lines {
		res.NumberTotalRows++
		row, reason := checkRow(line, sep, target, strict, trimQuotes)
		if reason != "" {
			res.NumberFilteredRows++
			if errRows < maxErrorLogRows {
				fmt.Fprintf(&errLog, "Reason: %s. src line [%s]; \n", reason, line)
				errRows++
			}
			continue
		}
		good = append(good, row)
	}
	res.NumberLoadedRows = int64(len(good))
	res.ReadDataTimeMs = time.Since(t0).Milliseconds()
	if res.NumberFilteredRows > 0 {
		res.ErrorURL = s.pipe.addErrorLog(s.BEAddr(), errLog.String())
	}
	selected := res.NumberTotalRows - res.NumberUnselectedRows
	if selected > 0 && float64(res.NumberFilteredRows)/float64(selected) > maxRatio {
		fail("[DATA_QUALITY_ERROR]too many filtered rows")
		return
	}
	if len(good) == 0 {
		res.NumberLoadedRows = 0
		fail("[ANALYSIS_ERROR]TStatus: errCode = 2, detailMessage = all partitions have no load data")
		return
	}

	// Write and commit: one upstream transaction, as the loading account.
	t0 = time.Now()
	if msg := writeRows(up, db, table, target, good, user, host); msg != "" {
		res.NumberLoadedRows = 0
		fail(msg)
		return
	}
	res.WriteDataTimeMs = time.Since(t0).Milliseconds()
	t0 = time.Now()
	if err := up.exec("COMMIT"); err != nil {
		_ = up.exec("ROLLBACK")
		res.NumberLoadedRows = 0
		fail("[INTERNAL_ERROR]commit failed: " + upstreamMessage(err))
		return
	}
	res.CommitAndPublishTimeMs = time.Since(t0).Milliseconds()
	res.Status, res.Message = "Success", "OK"
	s.wrote(db, table, time.Now())
	finish()
}

// loadColumns reads the target table's columns; a table the account
// cannot see does not exist for it.
func loadColumns(up *upstream, db, table string) ([]loadColumn, string) {
	r, err := up.query(fmt.Sprintf("SELECT COLUMN_NAME, DATA_TYPE, COLUMN_TYPE, IS_NULLABLE, COALESCE(CHARACTER_MAXIMUM_LENGTH, 0), COLUMN_KEY "+
		"FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = %s AND TABLE_NAME = %s ORDER BY ORDINAL_POSITION",
		quoteString(db), quoteString(table)), 10000)
	if err != nil {
		return nil, "[INTERNAL_ERROR]" + upstreamMessage(err)
	}
	if len(r.rows) == 0 {
		return nil, fmt.Sprintf("[ANALYSIS_ERROR]TStatus: errCode = 2, detailMessage = Unknown table '%s'", table)
	}
	var cols []loadColumn
	for _, row := range r.rows {
		n, _ := strconv.Atoi(deref(row[4]))
		cols = append(cols, loadColumn{name: deref(row[0]), dataType: strings.ToLower(deref(row[1])),
			columnType: strings.ToLower(deref(row[2])), nullable: deref(row[3]) == "YES", maxChars: n,
			key: deref(row[5]) == "PRI"})
	}
	return cols, ""
}

// targetColumns maps the columns header (plain names, in file order) to
// the table's columns; without it the file has every column in order.
func targetColumns(cols []loadColumn, header, table string) ([]loadColumn, string) {
	if strings.TrimSpace(header) == "" {
		return cols, ""
	}
	var out []loadColumn
	for _, name := range strings.Split(header, ",") {
		name = strings.Trim(strings.TrimSpace(name), "`")
		if strings.ContainsAny(name, "=()") {
			return nil, "[NOT_IMPLEMENTED_ERROR]the simulator maps columns by name only; expressions in the columns header are not supported"
		}
		found := false
		for _, c := range cols {
			if strings.EqualFold(c.name, name) {
				out = append(out, c)
				found = true
				break
			}
		}
		if !found {
			return nil, fmt.Sprintf("[ANALYSIS_ERROR]TStatus: errCode = 2, detailMessage = Unknown column '%s' in '%s'", name, table)
		}
	}
	return out, ""
}

// unescapeSeparator reads a separator header: "\t", "\n" and "\xNN"
// escapes as Doris accepts them; empty means def.
func unescapeSeparator(v, def string) string {
	if v == "" {
		return def
	}
	switch v {
	case `\t`:
		return "\t"
	case `\n`:
		return "\n"
	case `\r\n`:
		return "\r\n"
	}
	if strings.HasPrefix(strings.ToLower(v), `\x`) {
		if b, err := hex.DecodeString(v[2:]); err == nil && len(b) > 0 {
			return string(b)
		}
	}
	return v
}

// checkRow splits one line and checks each value against its column,
// the way a non-strict (or strict) Doris load does: a value that does not
// convert becomes NULL (or, in strict mode, filters the row), and a NULL
// in a NOT NULL column filters the row. It returns the row or the reason.
func checkRow(line, sep string, cols []loadColumn, strict, trimQuotes bool) ([]*string, string) {
	vals := strings.Split(line, sep)
	if len(vals) != len(cols) {
		cmp := "less than"
		if len(vals) > len(cols) {
			cmp = "more than"
		}
		return nil, fmt.Sprintf("actual column number in csv file is  %s  schema column number.actual number: %d, schema column number: %d; line delimiter: [\\n], column separator: [%s], ",
			cmp, len(vals), len(cols), sep)
	}
	row := make([]*string, len(cols))
	for i, c := range cols {
		v := vals[i]
		if trimQuotes && len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
			v = v[1 : len(v)-1]
		}
		if v == `\N` {
			if !c.nullable {
				return nil, fmt.Sprintf("column(%s) values is null while columns is not nullable", c.name)
			}
			continue
		}
		norm, ok := convertValue(c, v)
		if !ok {
			if strict {
				return nil, fmt.Sprintf("column(%s) value is incorrect while strict mode is true, src value is %s", c.name, v)
			}
			if !c.nullable {
				return nil, fmt.Sprintf("column(%s) values is null while columns is not nullable", c.name)
			}
			continue
		}
		if c.maxChars > 0 && (c.dataType == "varchar" || c.dataType == "char") && len([]rune(norm)) > c.maxChars {
			first := norm
			if len(first) > 32 {
				first = first[:32]
			}
			return nil, fmt.Sprintf("column_name[%s], the length of input is too long than schema. first 32 bytes of input str: [%s] schema length: %d; actual length: %d; ",
				c.name, first, c.maxChars, len(norm))
		}
		row[i] = &norm
	}
	return row, ""
}

// convertValue checks that v converts to the column's type and returns it
// in a form the upstream reads back exactly.
func convertValue(c loadColumn, v string) (string, bool) {
	unsigned := strings.Contains(c.columnType, "unsigned")
	switch c.dataType {
	case "tinyint", "smallint", "mediumint", "int", "integer", "bigint":
		if c.dataType == "tinyint" && strings.HasPrefix(c.columnType, "tinyint(1)") {
			switch strings.ToLower(v) {
			case "true":
				return "1", true
			case "false":
				return "0", true
			}
		}
		bits := map[string]int{"tinyint": 8, "smallint": 16, "mediumint": 24, "int": 32, "integer": 32, "bigint": 64}[c.dataType]
		v = strings.TrimSpace(v)
		if unsigned {
			if bits == 24 {
				bits = 32
			}
			_, err := strconv.ParseUint(v, 10, bits)
			return v, err == nil
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || bits < 64 && (n < -(1<<(bits-1)) || n >= 1<<(bits-1)) {
			return "", false
		}
		return v, true
	case "decimal", "numeric":
		v = strings.TrimSpace(v)
		if !isDecimal(v) {
			return "", false
		}
		var prec, scale int
		if _, err := fmt.Sscanf(c.columnType[strings.IndexByte(c.columnType, '(')+1:], "%d,%d", &prec, &scale); err == nil {
			intPart := strings.TrimLeft(strings.TrimLeft(strings.SplitN(v, ".", 2)[0], "+-"), "0")
			if len(intPart) > prec-scale {
				return "", false
			}
		}
		return v, true
	case "float", "double", "real":
		_, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		return strings.TrimSpace(v), err == nil
	case "date":
		if t, err := time.Parse("2006-01-02", strings.TrimSpace(v)); err == nil {
			return t.Format("2006-01-02"), true
		}
		if t, err := time.Parse("20060102", strings.TrimSpace(v)); err == nil {
			return t.Format("2006-01-02"), true
		}
		return "", false
	case "datetime", "timestamp":
		for _, layout := range []string{"2006-01-02 15:04:05.999999", "2006-01-02 15:04:05", "2006-01-02T15:04:05", "2006-01-02"} {
			if t, err := time.Parse(layout, strings.TrimSpace(v)); err == nil {
				return t.Format("2006-01-02 15:04:05.999999"), true
			}
		}
		return "", false
	}
	return v, true
}

func isDecimal(v string) bool {
	v = strings.TrimPrefix(strings.TrimPrefix(v, "-"), "+")
	digits, dot := 0, false
	for _, r := range v {
		switch {
		case r >= '0' && r <= '9':
			digits++
		case r == '.' && !dot:
			dot = true
		default:
			return false
		}
	}
	return digits > 0
}

// writeRows inserts the rows in one open transaction (left open for the
// caller's COMMIT). Tables with a primary key are Doris Unique Key tables:
// a loaded row replaces the row with the same key.
func writeRows(up *upstream, db, table string, cols []loadColumn, rows [][]*string, user, host string) string {
	verb := "INSERT"
	for _, c := range cols {
		if c.key {
			verb = "REPLACE"
		}
	}
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = quoteIdent(c.name)
	}
	head := fmt.Sprintf("%s INTO %s (%s) VALUES ", verb, qualified(db, table), strings.Join(names, ", "))
	if err := up.exec("START TRANSACTION"); err != nil {
		return "[INTERNAL_ERROR]" + upstreamMessage(err)
	}
	for startRow := 0; startRow < len(rows); startRow += 500 {
		var b strings.Builder
		b.WriteString(head)
		for k, row := range rows[startRow:min(startRow+500, len(rows))] {
			if k > 0 {
				b.WriteByte(',')
			}
			b.WriteByte('(')
			for j, v := range row {
				if j > 0 {
					b.WriteByte(',')
				}
				if v == nil {
					b.WriteString("NULL")
				} else {
					b.WriteString(quoteString(*v))
				}
			}
			b.WriteByte(')')
		}
		if err := up.exec(b.String()); err != nil {
			_ = up.exec("ROLLBACK")
			var pe *parsedErr
			if errors.As(err, &pe) && pe.Code == 1142 {
				return fmt.Sprintf("[INTERNAL_ERROR]errCode = 2, detailMessage = LOAD command denied to user '%s'@'%s' for table '%s: %s'", user, host, db, table)
			}
			return "[INTERNAL_ERROR]" + upstreamMessage(err)
		}
	}
	return ""
}

func upstreamMessage(err error) string {
	var pe *parsedErr
	if errors.As(err, &pe) {
		return pe.Msg
	}
	return "lost connection to the storage backend"
}

func newUUID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b)
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

func (p *pipeline) addStream(r *streamRecord) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.streams = append(p.streams, r)
	if len(p.streams) > maxStreamLoads {
		p.streams = append(p.streams[:0:0], p.streams[len(p.streams)-maxStreamLoads:]...)
	}
}

// addErrorLog keeps a load's error log and returns its BE URL.
func (p *pipeline) addErrorLog(be, content string) string {
	id := make([]byte, 16)
	_, _ = rand.Read(id)
	h := hex.EncodeToString(id)
	file := fmt.Sprintf("__shard_%d/error_log_insert_stmt_%s_%s_%s_%s", id[0]%8, h[:16], h[16:], h[:16], h[16:])
	p.mu.Lock()
	p.errLogs[file] = content
	p.errOrder = append(p.errOrder, file)
	if len(p.errOrder) > maxErrorLogs {
		delete(p.errLogs, p.errOrder[0])
		p.errOrder = p.errOrder[1:]
	}
	p.mu.Unlock()
	if be == "" {
		be = "127.0.0.1:8040"
	}
	return "http://" + be + "/api/_load_error_log?file=" + file
}

func (s *Server) loadErrorLog(w http.ResponseWriter, r *http.Request) {
	s.pipe.mu.Lock()
	content, ok := s.pipe.errLogs[r.URL.Query().Get("file")]
	s.pipe.mu.Unlock()
	if !ok {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=UTF-8")
	_, _ = io.WriteString(w, content)
}

// showStreamLoad answers SHOW STREAM LOAD (the BE records every load, as
// with enable_stream_load_record=true; the FE shows them at once rather
// than after its periodic fetch).
func (c *conn) showStreamLoad(ts []token) error {
	q, derr := c.parseShowQuery(ts, []string{"Label", "Status"},
		`Where clause should looks like: LABEL = "your_load_label", or LABEL LIKE "matcher",  or STATUS = "SUCCESS|FAIL", or compound predicate with operator AND`)
	if derr != nil {
		return c.send(derr)
	}
	if derr := q.orderByKnown(showStreamLoadCols); derr != nil {
		return c.send(derr)
	}
	if q.db == "" {
		return c.send(&dorisErr{1046, "3D000", "errCode = 2, detailMessage = No database selected"})
	}
	if !c.databaseExists(q.db) {
		return c.send(&dorisErr{1049, "42000", fmt.Sprintf("errCode = 2, detailMessage = Unknown database '%s'", q.db)})
	}
	c.s.pipe.mu.Lock()
	var rows [][]any
	for _, r := range c.s.pipe.streams {
		if !strings.EqualFold(r.db, q.db) {
			continue
		}
		rows = append(rows, []any{r.label, r.db, r.table, r.clientIP, r.status, r.message, r.url,
			strconv.FormatInt(r.total, 10), strconv.FormatInt(r.loaded, 10), strconv.FormatInt(r.filtered, 10),
			strconv.FormatInt(r.unselected, 10), strconv.FormatInt(r.bytes, 10), fmtMillis(r.start),
			fmtMillis(r.finish), r.user, r.comment})
	}
	c.s.pipe.mu.Unlock()
	return c.sendResult(showStreamLoadCols, q.apply(showStreamLoadCols, rows, "FinishTime"))
}
