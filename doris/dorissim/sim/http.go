package sim

import (
	"crypto/subtle"
	"encoding/json"
	"fmt"
	"net/http"
	"runtime"
	"sort"
	"strings"
	"time"
)

// envelope is Doris's REST response body.
type envelope struct {
	Msg   string `json:"msg"`
	Code  int    `json:"code"`
	Data  any    `json:"data"`
	Count int    `json:"count"`
}

// writeEnvelope always answers HTTP 200, as Doris does; the outcome is in code.
func writeEnvelope(w http.ResponseWriter, msg string, code int, data any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_ = json.NewEncoder(w).Encode(envelope{Msg: msg, Code: code, Data: data})
}

func ok(w http.ResponseWriter, data any)         { writeEnvelope(w, "success", 0, data) }
func badRequest(w http.ResponseWriter, m string) { writeEnvelope(w, "Bad Request", 403, m) }

// auth checks HTTP basic auth against Options.Users.
func (s *Server) auth(w http.ResponseWriter, r *http.Request) (string, bool) {
	u, p, has := r.BasicAuth()
	if !has {
		writeEnvelope(w, "Unauthorized", 401, "Need auth information.")
		return "", false
	}
	want, known := s.password(u)
	if !known || subtle.ConstantTimeCompare([]byte(want), []byte(p)) != 1 {
		host, _ := hostPort(r.RemoteAddr)
		writeEnvelope(w, "Unauthorized", 401, fmt.Sprintf("Access denied for user '%s'@'%s' (using password: YES)", u, host))
		return "", false
	}
	return u, true
}

func (s *Server) feHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/bootstrap", func(w http.ResponseWriter, r *http.Request) {
		s.stats.requests.Add(1)
		if r.URL.Query().Get("cluster_id") != "" && r.URL.Query().Get("token") != "" {
			t := s.topology()
			writeEnvelope(w, "OK", 0, map[string]any{"queryPort": t.queryPort, "rpcPort": 9020,
				"arrowFlightSqlPort": 10030, "maxReplayedJournal": journalBase + int(time.Since(s.started).Seconds())})
			return
		}
		writeEnvelope(w, "OK", 0, nil)
	})
	mux.HandleFunc("GET /api/health", func(w http.ResponseWriter, r *http.Request) {
		s.stats.requests.Add(1)
		ok(w, map[string]any{"online_backend_num": 1, "total_backend_num": 1})
	})
	mux.HandleFunc("GET /metrics", func(w http.ResponseWriter, r *http.Request) {
		s.stats.requests.Add(1)
		w.Header().Set("Content-Type", "text/plain; version=0.0.4")
		_, _ = w.Write([]byte(s.feMetrics()))
	})
	mux.HandleFunc("GET /api/show_proc", func(w http.ResponseWriter, r *http.Request) {
		s.stats.requests.Add(1)
		user, okAuth := s.auth(w, r)
		if !okAuth {
			return
		}
		if !s.isAdmin(user) {
			writeEnvelope(w, "Unauthorized", 401, "Access denied; you need (at least one of) the (Admin_priv) privilege(s) for this operation")
			return
		}
		path := r.URL.Query().Get("path")
		c := &conn{s: s, catalog: "internal", admin: true}
		_, rows, derr := s.procForHTTP(c, path)
		if derr != nil {
			badRequest(w, strings.TrimPrefix(derr.msg, "errCode = 2, detailMessage = "))
			return
		}
		ok(w, stringRows(rows))
	})
	mux.HandleFunc("GET /rest/v2/manager/node/{kind}", func(w http.ResponseWriter, r *http.Request) {
		s.stats.requests.Add(1)
		user, okAuth := s.auth(w, r)
		if !okAuth {
			return
		}
		if !s.isAdmin(user) {
			writeEnvelope(w, "Unauthorized", 401, "Access denied; you need (at least one of) the (Admin_priv) privilege(s) for this operation")
			return
		}
		p := s.profile()
		var cols []string
		var rows [][]any
		switch r.PathValue("kind") {
		case "frontends":
			cols, rows = frontendsCols, p.frontendRows(s.topology(), time.Now())
		case "backends":
			cols, rows = p.backendsCols(), s.backendRows(p, time.Now())
		case "brokers":
			cols = showBrokerCols
		default:
			writeEnvelope(w, "Not Found", 404, "Not Found")
			return
		}
		ok(w, map[string]any{"column_names": cols, "rows": stringRows(rows)})
	})
	mux.HandleFunc("GET /rest/v2/manager/query/trace_id/{trace}", func(w http.ResponseWriter, r *http.Request) {
		s.stats.requests.Add(1)
		user, okAuth := s.auth(w, r)
		if !okAuth {
			return
		}
		p, found := s.profiles.byTraceID(r.PathValue("trace"))
		if !found || (!s.isAdmin(user) && p.user != user) {
			badRequest(w, "query id for trace id "+r.PathValue("trace")+" not found")
			return
		}
		ok(w, p.id)
	})
	lookup := func(w http.ResponseWriter, r *http.Request) (queryProfile, bool) {
		s.stats.requests.Add(1)
		user, okAuth := s.auth(w, r)
		if !okAuth {
			return queryProfile{}, false
		}
		id := r.PathValue("id")
		p, found := s.profiles.get(id)
		if !found || (!s.isAdmin(user) && p.user != user) {
			badRequest(w, "Query "+id+" does not exist")
			return queryProfile{}, false
		}
		return p, true
	}
	mux.HandleFunc("GET /rest/v2/manager/query/profile/text/{id}", func(w http.ResponseWriter, r *http.Request) {
		if p, found := lookup(w, r); found {
			ok(w, map[string]string{"profile": profileText(p, s.profile().build)})
		}
	})
	mux.HandleFunc("GET /rest/v2/manager/query/sql/{id}", func(w http.ResponseWriter, r *http.Request) {
		if p, found := lookup(w, r); found {
			ok(w, map[string]string{"sql": p.sql})
		}
	})
	mux.HandleFunc("GET /api/profile/text", func(w http.ResponseWriter, r *http.Request) {
		s.stats.requests.Add(1)
		user, okAuth := s.auth(w, r)
		if !okAuth {
			return
		}
		p, found := s.profiles.get(r.URL.Query().Get("query_id"))
		if !found || (!s.isAdmin(user) && p.user != user) {
			w.Header().Set("Content-Type", "text/plain")
			_, _ = w.Write([]byte("query id " + r.URL.Query().Get("query_id") + " not found.\n"))
			return
		}
		w.Header().Set("Content-Type", "text/plain")
		_, _ = w.Write([]byte(profileText(p, s.profile().build)))
	})
	mux.HandleFunc("GET /rest/v2/manager/query/current_queries", func(w http.ResponseWriter, r *http.Request) {
		s.stats.requests.Add(1)
		user, okAuth := s.auth(w, r)
		if !okAuth {
			return
		}
		if !s.isAdmin(user) {
			writeEnvelope(w, "Unauthorized", 401, "Access denied; you need (at least one of) the (Admin_priv) privilege(s) for this operation")
			return
		}
		feHost, _ := hostPort(s.addr)
		var rows [][]string
		for _, row := range stringRows(s.currentQueries(nil)) {
			rows = append(rows, append([]string{feHost}, row...))
		}
		ok(w, map[string]any{"columnNames": append([]string{"Frontend"}, currentQueriesCols...), "rows": rows})
	})
	s.streamLoadRoutes(mux, true)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		s.stats.requests.Add(1)
		writeEnvelope(w, "Not Found", 404, "Not Found")
	})
	return mux
}

func (s *Server) procForHTTP(c *conn, path string) ([]string, [][]any, *dorisErr) {
	switch "/" + strings.Trim(path, "/") {
	case "/statistic":
		// No upstream session here: report per-database counts as zero.
		return nil, [][]any{{"Total", "0", "0", "0", "0", "0", "0"}}, nil
	}
	return c.proc(path)
}

func stringRows(rows [][]any) [][]string {
	out := make([][]string, 0, len(rows))
	for _, r := range rows {
		sr := make([]string, len(r))
		for i, v := range r {
			if s, ok := cellString(v); ok {
				sr[i] = s
			} else {
				sr[i] = "NULL"
			}
		}
		out = append(out, sr)
	}
	return out
}

func (s *Server) beHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/health", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"status": "OK","msg": "To Be Added"}`))
	})
	mux.HandleFunc("GET /metrics", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; version=0.0.4")
		_, _ = w.Write([]byte(s.beMetrics()))
	})
	s.streamLoadRoutes(mux, false)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		http.NotFound(w, r)
	})
	return mux
}

// promWriter renders Prometheus text; sep joins labels (FE ", ", BE ",").
type promWriter struct {
	b     strings.Builder
	sep   string
	help  bool
	typed map[string]bool
}

func (p *promWriter) metric(name, typ, help string, labels [][2]string, v any) {
	if !p.typed[name] {
		if p.help {
			fmt.Fprintf(&p.b, "# HELP %s %s\n", name, help)
		}
		fmt.Fprintf(&p.b, "# TYPE %s %s\n", name, typ)
		p.typed[name] = true
	}
	p.b.WriteString(name)
	if len(labels) > 0 {
		parts := make([]string, len(labels))
		for i, l := range labels {
			parts[i] = fmt.Sprintf("%s=%q", l[0], l[1])
		}
		p.b.WriteString("{" + strings.Join(parts, p.sep) + "}")
	}
	fmt.Fprintf(&p.b, " %v\n", v)
}

func lbl(kv ...string) [][2]string {
	var out [][2]string
	for i := 0; i+1 < len(kv); i += 2 {
		out = append(out, [2]string{kv[i], kv[i+1]})
	}
	return out
}

func (s *Server) feMetrics() string {
	p := &promWriter{sep: ", ", help: true, typed: map[string]bool{}}
	q := s.stats.queries.Load()
	e := s.stats.queryErrs.Load()
	up := time.Since(s.started).Seconds()
	vals, sum, cnt := s.stats.latencyMs.snapshot()
	sort.Slice(vals, func(a, b int) bool { return vals[a] < vals[b] })
	quant := func(f float64) int64 {
		if len(vals) == 0 {
			return 0
		}
		return vals[min(len(vals)-1, int(f*float64(len(vals))))]
	}
	p.metric("doris_fe_query_total", "counter", "total query", nil, q)
	p.metric("doris_fe_query_err", "counter", "total error query", nil, e)
	rate := 0.0
	if q > 0 {
		rate = float64(e) / float64(q)
	}
	p.metric("doris_fe_query_err_rate", "gauge", "query error rate", nil, fmt.Sprintf("%.4f", rate))
	p.metric("doris_fe_qps", "gauge", "query per second", nil, fmt.Sprintf("%.3f", float64(q)/max(up, 1)))
	p.metric("doris_fe_rps", "gauge", "request per second", nil, fmt.Sprintf("%.3f", float64(s.stats.requests.Load())/max(up, 1)))
	p.metric("doris_fe_request_total", "counter", "total request", nil, q+s.stats.requests.Load())
	p.metric("doris_fe_query_olap_table", "counter", "query olap table", nil, q)
	for _, qq := range []string{"0.75", "0.95", "0.98", "0.99", "0.999"} {
		var f float64
		fmt.Sscan(qq, &f)
		p.metric("doris_fe_query_latency_ms", "summary", "query latency", lbl("quantile", qq), quant(f))
	}
	p.b.WriteString(fmt.Sprintf("doris_fe_query_latency_ms_sum %d\ndoris_fe_query_latency_ms_count %d\n", sum, cnt))
	p.metric("doris_fe_connection_total", "gauge", "total connections", nil, len(s.connections()))
	p.metric("doris_fe_cache_hit", "counter", "total hits query by cache", lbl("type", "sql"), 0)
	p.metric("doris_fe_cache_hit", "counter", "", lbl("type", "partition"), 0)
	p.metric("doris_fe_max_journal_id", "gauge", "max journal id of this frontends", nil, journalBase+int(up))
	p.metric("doris_fe_max_tablet_compaction_score", "gauge", "max tablet compaction score of all backends", nil, 37)
	p.metric("doris_fe_tablet_max_compaction_score", "gauge", "tablet max compaction score", lbl("backend", backendID), 37)
	for _, t := range [][2]string{{"begin", "120"}, {"success", "118"}, {"failed", "2"}} {
		p.metric("doris_fe_txn_counter", "counter", "counter of transactions", lbl("type", t[0]), t[1])
	}
	p.metric("doris_fe_job", "gauge", "job statistics", lbl("job", "load", "type", "INSERT", "state", "FINISHED"), 118)
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	p.metric("jvm_heap_size_bytes", "gauge", "jvm heap stat", lbl("type", "max"), 8589934592)
	p.metric("jvm_heap_size_bytes", "gauge", "", lbl("type", "committed"), 2147483648)
	p.metric("jvm_heap_size_bytes", "gauge", "", lbl("type", "used"), 536870912+int64(ms.HeapAlloc))
	p.metric("jvm_non_heap_size_bytes", "gauge", "jvm non heap stat", lbl("type", "committed"), 268435456)
	p.metric("jvm_non_heap_size_bytes", "gauge", "", lbl("type", "used"), 201326592)
	p.metric("jvm_young_gc", "gauge", "jvm young gc stat", lbl("type", "count"), 42)
	p.metric("jvm_young_gc", "gauge", "", lbl("type", "time"), 1830)
	p.metric("jvm_old_gc", "gauge", "jvm old gc stat", lbl("type", "count"), 1)
	p.metric("jvm_old_gc", "gauge", "", lbl("type", "time"), 310)
	p.metric("jvm_thread", "gauge", "jvm thread stat", lbl("type", "count"), 180+runtime.NumGoroutine())
	p.metric("jvm_thread", "gauge", "", lbl("type", "peak_count"), 260)
	p.metric("node_info", "gauge", "node info", lbl("type", "fe_node_num", "state", "total"), 1)
	p.metric("node_info", "gauge", "", lbl("type", "be_node_num", "state", "total"), 1)
	p.metric("node_info", "gauge", "", lbl("type", "be_node_num", "state", "alive"), 1)
	p.metric("node_info", "gauge", "", lbl("type", "is_master"), 1)
	p.metric("system_snmp", "gauge", "tcp snmp", lbl("name", "tcp_in_errs"), 0)
	return p.b.String()
}

func (s *Server) beMetrics() string {
	p := &promWriter{sep: ",", typed: map[string]bool{}}
	const disk = "/opt/apache-doris/be/storage"
	s.writeBEActivityMetrics(p) // bemetrics.go
	p.metric("doris_be_timeout_canceled_fragment_count", "counter", "", nil, 0)
	for _, m := range [][2]string{{"user", "1834561"}, {"nice", "0"}, {"system", "412093"}, {"idle", "98234101"}, {"iowait", "2210"}} {
		p.metric("doris_be_cpu", "counter", "", lbl("device", "cpu", "mode", m[0]), m[1])
	}
	p.metric("doris_be_process_thread_num", "gauge", "", nil, 230+runtime.NumGoroutine())
	p.metric("doris_be_process_fd_num_used", "gauge", "", nil, 1280)
	p.metric("doris_be_disks_avail_capacity", "gauge", "", lbl("path", disk), 11279945318)
	p.metric("doris_be_stream_load", "counter", "", lbl("type", "load_rows"), 0)
	p.metric("doris_be_stream_load", "counter", "", lbl("type", "receive_bytes"), 0)
	p.metric("doris_be_thrift_current_connections", "gauge", "", lbl("name", "backend"), 2)
	return p.b.String()
}
