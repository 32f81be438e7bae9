package search

import (
	"context"
	"encoding/json"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/doris-mcp/doris-mcp-server/doris"
)

// Search metadata: columns from information_schema.columns, indexes from
// SHOW INDEX, build jobs from SHOW BUILD INDEX; inspect_search_indexes and
// preview_text_analysis.

// columnInfo is one column of a search target.
type columnInfo struct {
	Name, DataType, ColumnType string
}

// searchIndexInfo is one search-related index (INVERTED, ANN, NGRAM_BF).
type searchIndexInfo struct {
	Name       string
	Type       string
	Columns    []string
	Properties map[string]string
	Comment    string
}

func (ix searchIndexInfo) wire() map[string]any {
	m := map[string]any{"name": ix.Name, "index_type": ix.Type, "columns": doris.OrEmpty(ix.Columns),
		"properties": ix.Properties, "comment": doris.StrOrNil(ix.Comment, ix.Comment != "")}
	p := ix.Properties
	switch ix.Type {
	case "INVERTED":
		parser := p["parser"]
		if parser == "" {
			parser = p["built_in_analyzer"]
		}
		m["parser"] = doris.StrOrNil(parser, parser != "")
		m["analyzer"] = doris.StrOrNil(p["analyzer"], p["analyzer"] != "")
		m["tokenized"] = parser != "" && parser != "none" || p["analyzer"] != ""
		m["support_phrase"] = p["support_phrase"] == "true"
	case "ANN":
		m["metric_type"] = doris.StrOrNil(p["metric_type"], p["metric_type"] != "")
		m["ann_index_type"] = doris.StrOrNil(p["index_type"], p["index_type"] != "")
		m["dimension"] = doris.AtoiOrNil(p["dim"])
	}
	return m
}

// searchTarget is what a search reads before it runs: the table's columns
// and search indexes.
type searchTarget struct {
	Database, Table string
	Columns         []columnInfo
	Indexes         []searchIndexInfo
}

// column returns the table's column named name (case-insensitively, as
// Doris resolves names).
func (t *searchTarget) column(name string) (columnInfo, bool) {
	for _, c := range t.Columns {
		if strings.EqualFold(c.Name, name) {
			return c, true
		}
	}
	return columnInfo{}, false
}

// index returns the first index of kind on column.
func (t *searchTarget) index(kind, column string) (searchIndexInfo, bool) {
	for _, ix := range t.Indexes {
		if ix.Type == kind && slices.ContainsFunc(ix.Columns, func(c string) bool { return strings.EqualFold(c, column) }) {
			return ix, true
		}
	}
	return searchIndexInfo{}, false
}

func (t *searchTarget) object(col string) string {
	if col == "" {
		return t.Database + "." + t.Table
	}
	return t.Database + "." + t.Table + "." + col
}

// searchNotFound is the argument error for a search object the caller
// named that does not exist or is not visible.
func searchNotFound(reason, msg, object string) *doris.Error {
	return &doris.Error{Kind: doris.KindArguments, Reason: searchPrefix + "_" + reason, Status: 404, Message: msg, Object: doris.PlainObject(object)}
}

// readTarget reads a table's columns and search indexes. A table without
// visible columns does not exist for this account.
func (r kit) readTarget(ctx context.Context, rt *doris.Route, database, table string) (*searchTarget, error) {
	if e := doris.CheckIdents(searchPrefix, doris.Arg("database", database), doris.Arg("table", table)); e != nil {
		return nil, e
	}
	q, err := doris.Bind("SELECT COLUMN_NAME, DATA_TYPE, COLUMN_TYPE FROM information_schema.columns "+
		"WHERE TABLE_SCHEMA = %(db)s AND TABLE_NAME = %(t)s ORDER BY ORDINAL_POSITION", map[string]any{"db": database, "t": table})
	if err != nil {
		return nil, err
	}
	cols, err := r.Text(ctx, rt, q, 4096, searchPrefix)
	if err != nil {
		return nil, err
	}
	t := &searchTarget{Database: database, Table: table}
	for _, row := range cols.Rows {
		if row[0].String != "" {
			t.Columns = append(t.Columns, columnInfo{Name: row[0].String, DataType: strings.ToLower(row[1].String),
				ColumnType: strings.ToLower(row[2].String)})
		}
	}
	if len(t.Columns) == 0 {
		return nil, searchNotFound("TABLE_NOT_FOUND", "the table does not exist or this account cannot see it", t.object(""))
	}
	if t.Indexes, err = r.readIndexes(ctx, rt, database, table); err != nil {
		return nil, err
	}
	return t, nil
}

var propertyPair = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`"([^"\\]+)"\s*=\s*"((?:[^"\\]|\\.)*)"`) })

// parseIndexProperties reads SHOW INDEX's Properties: ("k" = "v", ...).
func parseIndexProperties(s string) map[string]string {
	out := map[string]string{}
	for _, m := range propertyPair().FindAllStringSubmatch(s, -1) {
		out[strings.ToLower(m[1])] = strings.NewReplacer(`\"`, `"`, `\\`, `\`).Replace(m[2])
	}
	return out
}

// readIndexes reads the INVERTED, ANN and NGRAM_BF indexes of a table.
func (r kit) readIndexes(ctx context.Context, rt *doris.Route, database, table string) ([]searchIndexInfo, error) {
	t, err := r.Text(ctx, rt, "SHOW INDEX FROM "+doris.Qualified(database, table), 512, searchPrefix)
	if err != nil {
		return nil, err
	}
	var out []searchIndexInfo
	for _, row := range t.Rows {
		typ := strings.ToUpper(t.Get(row, "Index_type"))
		if typ != "INVERTED" && typ != "ANN" && typ != "NGRAM_BF" {
			continue
		}
		name, col := t.Get(row, "Key_name"), t.Get(row, "Column_name")
		k := slices.IndexFunc(out, func(ix searchIndexInfo) bool { return ix.Name == name && ix.Type == typ })
		if k < 0 {
			out = append(out, searchIndexInfo{Name: name, Type: typ, Properties: map[string]string{}})
			k = len(out) - 1
		}
		if col != "" && !slices.Contains(out[k].Columns, col) {
			out[k].Columns = append(out[k].Columns, col)
		}
		for key, v := range parseIndexProperties(t.Get(row, "Properties")) {
			out[k].Properties[key] = v
		}
		if c := t.Get(row, "Comment"); c != "" {
			out[k].Comment = c
		}
	}
	slices.SortFunc(out, func(a, b searchIndexInfo) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// buildJobs reads SHOW BUILD INDEX for one table.
func (r kit) buildJobs(ctx context.Context, rt *doris.Route, database, table string) ([]map[string]any, bool, error) {
	q, err := doris.Bind("SHOW BUILD INDEX FROM "+doris.QuoteIdent(database)+" WHERE TableName = %(t)s", map[string]any{"t": table})
	if err != nil {
		return nil, false, err
	}
	t, err := r.Text(ctx, rt, q, 200, searchPrefix)
	if err != nil {
		return nil, false, err
	}
	jobs := make([]map[string]any, 0, len(t.Rows))
	for _, row := range t.Rows {
		str := func(col string) any {
			v := t.Get(row, col)
			return doris.StrOrNil(v, v != "" && v != "NULL")
		}
		jobs = append(jobs, map[string]any{"job_id": str("JobId"), "table": str("TableName"), "partition": str("PartitionName"),
			"alter_indexes": str("AlterInvertedIndexes"), "create_time": str("CreateTime"), "finish_time": str("FinishTime"),
			"transaction_id": str("TransactionId"), "state": str("State"), "message": str("Msg"), "progress": str("Progress")})
	}
	return jobs, t.Truncated, nil
}

// InspectSearchIndexes runs doris_search inspect_search_indexes.
func InspectSearchIndexes(ctx context.Context, c *doris.Call) (*doris.Result, error) {
	r := kitOf(c)
	var a struct {
		Database string `json:"database"`
		Table    string `json:"table"`
		Index    string `json:"index"`
	}
	if err := doris.DecodeArgs(c, &a); err != nil {
		return nil, err
	}
	if e := doris.CheckOptionalIdents(searchPrefix, doris.Arg("index", a.Index)); e != nil {
		return nil, e
	}
	rt, err := r.Route(c.Identity)
	if err != nil {
		return nil, err
	}
	t, err := r.readTarget(ctx, rt, a.Database, a.Table)
	if err != nil {
		return nil, err
	}
	var selected []searchIndexInfo
	for _, ix := range t.Indexes {
		if a.Index == "" || strings.EqualFold(ix.Name, a.Index) {
			selected = append(selected, ix)
		}
	}
	if a.Index != "" && len(selected) == 0 {
		return nil, searchNotFound("INDEX_NOT_FOUND", "the table has no search index of that name", t.object(a.Index))
	}
	items := make([]map[string]any, 0, len(selected))
	caps := map[string][]string{"text_fields": {}, "vector_fields": {}, "metrics": {}}
	for _, ix := range selected {
		items = append(items, ix.wire())
		switch ix.Type {
		case "INVERTED":
			caps["text_fields"] = append(caps["text_fields"], ix.Columns...)
		case "ANN":
			caps["vector_fields"] = append(caps["vector_fields"], ix.Columns...)
			if m := ix.Properties["metric_type"]; m != "" && !slices.Contains(caps["metrics"], m) {
				caps["metrics"] = append(caps["metrics"], m)
			}
		}
	}
	res := &doris.Result{Status: "success", Evidence: []map[string]any{
		{"source": "information_schema.columns", "columns": len(t.Columns)},
		{"source": "SHOW INDEX", "indexes": len(t.Indexes)},
	}}
	data := map[string]any{"database": t.Database, "table": t.Table, "indexes": items, "capabilities": map[string]any{
		"text": len(caps["text_fields"]) > 0, "vector": len(caps["vector_fields"]) > 0,
		"hybrid":      len(caps["text_fields"]) > 0 && len(caps["vector_fields"]) > 0,
		"text_fields": caps["text_fields"], "vector_fields": caps["vector_fields"], "metrics": caps["metrics"],
	}}
	jobs, cut, err := r.buildJobs(ctx, rt, t.Database, t.Table)
	switch {
	case err != nil:
		data["build_jobs"] = nil
		res.Status = "partial"
		res.Warnings = append(res.Warnings, "Index build jobs are unavailable ("+doris.Unavailable(err).ReasonCode+").")
		res.Evidence = append(res.Evidence, map[string]any{"source": "SHOW BUILD INDEX", "available": false})
	default:
		data["build_jobs"] = jobs
		res.Evidence = append(res.Evidence, map[string]any{"source": "SHOW BUILD INDEX", "jobs": len(jobs)})
		if cut {
			res.Truncated = true
			res.Warnings = append(res.Warnings, "Only the first 200 index build jobs are listed.")
		}
	}
	res.Data = data
	return res, nil
}

// builtInAnalyzers are the analyzer names that need no definition.
var builtInAnalyzers = []string{"none", "standard", "english", "chinese", "unicode", "icu", "basic", "ik"}

// maxPreviewTokens bounds the tokens preview_text_analysis returns.
const maxPreviewTokens = 10000

// PreviewTextAnalysis runs doris_search preview_text_analysis.
func PreviewTextAnalysis(ctx context.Context, c *doris.Call) (*doris.Result, error) {
	r := kitOf(c)
	var a struct {
		Text         string   `json:"text"`
		Analyzer     string   `json:"analyzer"`
		Tokenizer    string   `json:"tokenizer"`
		TokenFilters []string `json:"token_filters"`
	}
	if err := doris.DecodeArgs(c, &a); err != nil {
		return nil, err
	}
	if len(a.Text) > 64<<10 {
		return nil, doris.ArgError(searchPrefix, "ARGUMENT_INVALID", "text is longer than 64 KiB")
	}
	for _, id := range append([]string{a.Analyzer, a.Tokenizer}, a.TokenFilters...) {
		if e := doris.CheckOptionalIdents(searchPrefix, doris.Arg("analyzer, tokenizer or token filter", id)); e != nil {
			return nil, e
		}
	}
	rt, err := r.Route(c.Identity)
	if err != nil {
		return nil, err
	}
	atLeast := func(major, minor int) bool {
		return c.Snapshot != nil && c.Snapshot.Master.Compare(doris.Version{Major: major, Minor: minor}) >= 0
	}
	v4 := atLeast(4, 0)
	builtin := func(name string) string {
		name = strings.ToLower(name)
		if !slices.Contains(builtInAnalyzers, name) {
			return ""
		}
		return name
	}
	props := map[string]string{}
	var evidence []map[string]any
	analyzer, tokenizer := doris.StrOrNil(a.Analyzer, a.Analyzer != ""), doris.StrOrNil(a.Tokenizer, a.Tokenizer != "")
	switch name := builtin(a.Analyzer); {
	case a.Analyzer != "" && name != "":
		if a.Tokenizer != "" || len(a.TokenFilters) > 0 {
			return nil, doris.ArgError(searchPrefix, "ARGUMENT_INVALID", "a built-in analyzer cannot be combined with tokenizer or token_filters")
		}
		props["parser"] = name
	case a.Analyzer != "":
		if !atLeast(3, 1) {
			return nil, &doris.Error{Kind: doris.KindFailed, Reason: searchPrefix + "_CAPABILITY_UNSUPPORTED", Status: 501,
				Message: "custom analyzers need Doris 3.1 or later; use a built-in parser (english, unicode, chinese, standard, none)"}
		}
		def, err := r.customAnalyzer(ctx, rt, a.Analyzer)
		if err != nil {
			return nil, err
		}
		if a.Tokenizer != "" && !strings.EqualFold(a.Tokenizer, def["tokenizer"]) ||
			len(a.TokenFilters) > 0 && !slices.EqualFunc(a.TokenFilters, doris.SplitNames(def["token_filter"]), strings.EqualFold) {
			return nil, doris.ArgError(searchPrefix, "ARGUMENT_INVALID", "tokenizer and token_filters must match the analyzer's recorded definition")
		}
		props["analyzer"] = a.Analyzer
		evidence = append(evidence, map[string]any{"source": "SHOW INVERTED INDEX ANALYZER", "analyzer": a.Analyzer,
			"tokenizer": def["tokenizer"], "token_filters": doris.SplitNames(def["token_filter"])})
	default:
		name := "unicode"
		if a.Tokenizer != "" {
			if name = builtin(a.Tokenizer); name == "" {
				return nil, doris.ArgError(searchPrefix, "ARGUMENT_INVALID", "a custom tokenizer is used through a custom analyzer; name the analyzer")
			}
		}
		if len(a.TokenFilters) > 0 {
			return nil, doris.ArgError(searchPrefix, "ARGUMENT_INVALID", "token_filters need a custom analyzer; this read-only tool does not create one")
		}
		props["parser"] = name
		tokenizer = name
	}
	if p := props["parser"]; p != "" && !v4 && (p == "icu" || p == "basic" || p == "ik") {
		return nil, &doris.Error{Kind: doris.KindFailed, Reason: searchPrefix + "_CAPABILITY_UNSUPPORTED", Status: 501,
			Message: "the " + p + " analyzer needs Doris 4.0 or later"}
	}
	if p := props["parser"]; v4 && (p == "icu" || p == "basic" || p == "ik" || p == "standard") {
		props = map[string]string{"built_in_analyzer": p}
	}
	keys := make([]string, 0, len(props))
	for k := range props {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var ps []string
	for _, k := range keys {
		ps = append(ps, strconv.Quote(k)+"="+strconv.Quote(props[k]))
	}
	q, err := doris.Bind("SELECT TOKENIZE(%(text)s, %(props)s) AS tokens", map[string]any{"text": a.Text, "props": strings.Join(ps, ", ")})
	if err != nil {
		return nil, err
	}
	t, err := r.Text(ctx, rt, q, 1, searchPrefix)
	if err != nil {
		return nil, err
	}
	if len(t.Rows) != 1 || len(t.Rows[0]) == 0 {
		return nil, &doris.Error{Kind: doris.KindFailed, Reason: searchPrefix + "_TOKENIZE_INVALID_RESPONSE", Status: 502, Message: "TOKENIZE returned no row"}
	}
	tokens, err := parseTokens(t.Rows[0][0].String)
	if err != nil {
		return nil, err
	}
	truncated := len(tokens) > maxPreviewTokens
	if truncated {
		tokens = tokens[:maxPreviewTokens]
	}
	res := &doris.Result{Status: "success", Truncated: truncated, Data: map[string]any{
		"analyzer": analyzer, "tokenizer": tokenizer, "properties": props, "tokens": tokens,
		"token_count": len(tokens), "truncated": truncated, "input_characters": utf8.RuneCountInString(a.Text),
	}, Evidence: append([]map[string]any{{"source": "TOKENIZE", "properties": props}}, evidence...)}
	if truncated {
		res.Warnings = append(res.Warnings, "Only the first 10000 tokens are returned.")
	}
	return res, nil
}

// parseTokens reads TOKENIZE's result: a JSON array of strings (up to
// Doris 3.x) or of {"token", "position"} objects (4.x). A token's position
// is given only when Doris gave it.
func parseTokens(s string) ([]map[string]any, error) {
	var raw []json.RawMessage
	bad := &doris.Error{Kind: doris.KindFailed, Reason: searchPrefix + "_TOKENIZE_INVALID_RESPONSE", Status: 502,
		Message: "TOKENIZE returned a result in an unexpected shape"}
	if err := json.Unmarshal([]byte(s), &raw); err != nil {
		bad.Cause = err
		return nil, bad
	}
	out := make([]map[string]any, 0, len(raw))
	for _, item := range raw {
		var str string
		if json.Unmarshal(item, &str) == nil {
			out = append(out, map[string]any{"token": str, "position": nil})
			continue
		}
		var obj struct {
			Token    *string `json:"token"`
			Position *int    `json:"position"`
		}
		if err := json.Unmarshal(item, &obj); err != nil || obj.Token == nil {
			return nil, bad
		}
		tok := map[string]any{"token": *obj.Token, "position": nil}
		if obj.Position != nil {
			tok["position"] = *obj.Position
		}
		out = append(out, tok)
	}
	return out, nil
}

// customAnalyzer reads a custom analyzer's definition from SHOW INVERTED
// INDEX ANALYZER (ADMIN only in Doris).
func (r kit) customAnalyzer(ctx context.Context, rt *doris.Route, name string) (map[string]string, error) {
	t, err := r.Text(ctx, rt, "SHOW INVERTED INDEX ANALYZER", 512, searchPrefix)
	if err != nil {
		return nil, err
	}
	for _, row := range t.Rows {
		if strings.EqualFold(t.Get(row, "name"), name) {
			def := map[string]string{}
			var m map[string]any
			if json.Unmarshal([]byte(t.Get(row, "properties")), &m) == nil {
				for k, v := range m {
					def[strings.ToLower(k)] = strings.Trim(strings.TrimSpace(jsonText(v)), `"`)
				}
			} else {
				def = parseIndexProperties(t.Get(row, "properties"))
			}
			return def, nil
		}
	}
	return nil, searchNotFound("ANALYZER_NOT_FOUND", "no custom analyzer of that name is defined", name)
}

func jsonText(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, _ := json.Marshal(v)
	return string(b)
}
