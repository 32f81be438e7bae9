//go:build capture

package flightsql

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/doris-mcp/doris-mcp-server/doris/flightsql/flighttest"
)

// TestCaptureFuzzSeeds records the messages of real Arrow Go results as
// seed corpora.
func TestCaptureFuzzSeeds(t *testing.T) {
	srv := flighttest.StartServer(t)
	c, _ := NewClient(srv.Addr, Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tok, err := c.Handshake(ctx, srv.User, srv.Password)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	write := func(fuzzer string, args ...[]byte) {
		dir := filepath.Join("testdata", "fuzz", fuzzer)
		os.MkdirAll(dir, 0o755)
		body := "go test fuzz v1\n"
		for _, a := range args {
			body += fmt.Sprintf("[]byte(%q)\n", a)
		}
		n++
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("peer-%02d", n)), []byte(body), 0o644)
	}
	for _, q := range []string{"ARROWPEER types", "ARROWPEER large 1500", "SELECT * FROM intTable"} {
		s, err := c.call(ctx, "GetFlightInfo", bearer(tok), encodeCmdDescriptor(encodeCommandStatementQuery(q)))
		if err != nil {
			t.Fatal(err)
		}
		fiMsg, _ := s.recv(ctx)
		s.close()
		write("FuzzProto", fiMsg)
		fi, _ := decodeFlightInfo(fiMsg)
		s, err = c.call(ctx, "DoGet", bearer(tok), encodeTicket(fi.Endpoints[0].Ticket))
		if err != nil {
			t.Fatal(err)
		}
		var schemaMsg []byte
		for {
			msg, err := s.recv(ctx)
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			fd, _ := decodeFlightData(msg)
			if schemaMsg == nil {
				schemaMsg = fd.header
				write("FuzzSchema", schemaMsg)
				write("FuzzProto", msg)
				continue
			}
			write("FuzzBatch", schemaMsg, fd.header, fd.body)
			break
		}
		s.close()
	}
}
