//go:build unix

package main

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"time"

	"github.com/go-sql-driver/mysql"
)

// The transport floor: what a Go MCP server pays on this path before it
// does any MCP work. The floor server is this command run again with
// floorEnv set: net/http in front of a go-sql-driver pool, answering POST
// /mcp with a fixed tools/call result after running SELECT 1 (when the
// body asks for it), and GET /ready with 200. bench measures it as it
// measures a server, so that a server's figures read as floor plus its
// own work: JSON-RPC, the catalog, the guard, admission, the envelope,
// logging and telemetry.
//
// It is the cheapest path net/http and database/sql offer: the statement
// runs under a context that never cancels (no watcher goroutine), and the
// answer is a constant with its Content-Length.
const floorEnv = "LOADTEST_FLOOR_SERVER"

// floorAnswer is the size and shape of the server's answer to SELECT 1.
var floorAnswer = []byte(`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"{\"mode\":\"result\",\"data\":{\"status\":\"success\",\"data\":{\"columns\":[{\"name\":\"1\",\"type\":\"BIGINT\"}],\"rows\":[{\"1\":1}],\"row_count\":1,\"truncated\":false}},\"metadata\":{\"child_tool\":\"execute_query\",\"elapsed_ms\":1,\"masking\":\"on\"}}"}],` +
	`"structuredContent":{"mode":"result","data":{"status":"success","data":{"columns":[{"name":"1","type":"BIGINT"}],"rows":[{"1":1}],"row_count":1,"truncated":false}},"metadata":{"child_tool":"execute_query","elapsed_ms":1,"masking":"on"}},"isError":false}}`)

// floorServer serves until the process is killed, on SERVER_HOST and
// SERVER_PORT, in front of DORIS_HOST and DORIS_PORT, as serverEnv sets
// them.
func floorServer() error {
	mc := mysql.NewConfig()
	mc.User, mc.Passwd, mc.DBName = os.Getenv("DORIS_USER"), os.Getenv("DORIS_PASSWORD"), os.Getenv("DORIS_DATABASE")
	mc.Net, mc.Addr = "tcp", net.JoinHostPort(os.Getenv("DORIS_HOST"), os.Getenv("DORIS_PORT"))
	conn, err := mysql.NewConnector(mc)
	if err != nil {
		return err
	}
	db := sql.OpenDB(conn)
	db.SetMaxIdleConns(64)
	selectOneSQL := []byte("SELECT 1")
	mux := http.NewServeMux()
	mux.HandleFunc("GET /ready", func(http.ResponseWriter, *http.Request) {})
	mux.HandleFunc("POST /mcp", func(w http.ResponseWriter, r *http.Request) {
		in, err := io.ReadAll(r.Body)
		if err != nil {
			return
		}
		if bytes.Contains(in, selectOneSQL) {
			var n int
			if err := db.QueryRowContext(context.Background(), "SELECT 1").Scan(&n); err != nil {
				http.Error(w, "query failed", http.StatusBadGateway)
				return
			}
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", strconv.Itoa(len(floorAnswer)))
		w.Write(floorAnswer)
	})
	addr := net.JoinHostPort(os.Getenv("SERVER_HOST"), os.Getenv("SERVER_PORT"))
	return fmt.Errorf("floor server: %w", http.ListenAndServe(addr, mux))
}

// measureFloor runs the floor server in front of simulator and measures
// it at c=1 and c=32.
func measureFloor(ctx context.Context, simulator *simProc, d, warm time.Duration) ([]phase, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	fmt.Fprintln(os.Stderr, "floor: net/http + go-sql-driver, no MCP work")
	srv, err := startServer(ctx, exe, simulator, []string{floorEnv + "=1"}, "")
	if err != nil {
		return nil, err
	}
	defer srv.stop()
	cl := newClient(srv.url)
	if err := cl.warm(ctx); err != nil {
		return nil, err
	}
	var out []phase
	for _, c := range []int{1, 32} {
		p, err := serverPhase(ctx, cl, srv.cmd.Process.Pid, c, d, warm)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}
