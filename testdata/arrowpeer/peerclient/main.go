// Command peerclient is Apache Arrow Go's Flight SQL client run against a
// Flight SQL endpoint: basic-auth handshake, GetFlightInfo for one
// statement, DoGet on every endpoint (at its location when it names one).
// It prints one JSON object: {"columns":[{"name","type"}],"rows":[[...]]}
// with Arrow Go's own JSON rendering of each value, or on failure
// {"error_code": <gRPC code>, "error": "<message>"} and exits 1.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
)

func fail(err error) {
	st, _ := status.FromError(err)
	json.NewEncoder(os.Stdout).Encode(map[string]any{"error_code": int(st.Code()), "error": st.Message()})
	os.Exit(1)
}

func main() {
	addr := flag.String("addr", "", "host:port of the Flight SQL endpoint")
	user := flag.String("user", "root", "user")
	password := flag.String("password", "", "password")
	query := flag.String("sql", "SELECT 1", "statement")
	timeout := flag.Duration("timeout", 30*time.Second, "deadline of the whole run")
	flag.Parse()
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	dial := []grpc.DialOption{grpc.WithTransportCredentials(insecure.NewCredentials())}
	cl, err := flightsql.NewClientCtx(ctx, *addr, nil, nil, dial...)
	if err != nil {
		fail(err)
	}
	defer cl.Close()
	ctx, err = cl.Client.AuthenticateBasicToken(ctx, *user, *password)
	if err != nil {
		fail(err)
	}
	info, err := cl.Execute(ctx, *query)
	if err != nil {
		fail(err)
	}
	out := map[string]any{"endpoints": len(info.Endpoint)}
	var cols []map[string]string
	rows := [][]any{}
	for _, ep := range info.Endpoint {
		src := cl
		if len(ep.Location) > 0 && ep.Location[0].Uri != "" && !strings.HasPrefix(ep.Location[0].Uri, "arrow-flight-reuse-connection:") {
			loc := strings.TrimPrefix(strings.TrimPrefix(ep.Location[0].Uri, "grpc+tcp://"), "grpc://")
			other, err := flightsql.NewClientCtx(ctx, loc, nil, nil, dial...)
			if err != nil {
				fail(err)
			}
			defer other.Close()
			src = other
			out["location"] = ep.Location[0].Uri
		}
		rdr, err := src.DoGet(ctx, ep.Ticket)
		if err != nil {
			fail(err)
		}
		if cols == nil {
			for _, f := range rdr.Schema().Fields() {
				cols = append(cols, map[string]string{"name": f.Name, "type": f.Type.String()})
			}
		}
		for rdr.Next() {
			rec := rdr.RecordBatch()
			for i := range int(rec.NumRows()) {
				row := make([]any, rec.NumCols())
				for j, col := range rec.Columns() {
					if col.IsNull(i) {
						continue
					}
					row[j] = col.GetOneForMarshal(i)
				}
				rows = append(rows, row)
			}
		}
		if err := rdr.Err(); err != nil {
			fail(err)
		}
		rdr.Release()
	}
	out["columns"], out["rows"] = cols, rows
	if err := json.NewEncoder(os.Stdout).Encode(out); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

var _ = flight.Ticket{}
