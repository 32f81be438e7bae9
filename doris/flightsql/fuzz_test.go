package flightsql

import (
	"testing"
)

// The decoders' fuzzers. Their seeds in testdata/fuzz were captured from
// Arrow Go's Flight SQL server (TestCaptureFuzzSeeds in capture_test.go,
// run by hand with -tags capture). Every input must decode or fail cleanly; a batch
// that decodes must render every row of every column without panicking.

func FuzzProto(f *testing.F) {
	f.Add(encodeCmdDescriptor(encodeCommandStatementQuery("SELECT 1")))
	f.Add(packAny(typeTicketStatementQuery, appendBytesField(nil, 1, "a1b2-c3d4&127.0.0.1&8060&U0VMRUNUIDE=")))
	f.Add([]byte("grpc+tcp://127.0.0.1:9091"))
	f.Fuzz(func(t *testing.T, msg []byte) {
		if fi, err := decodeFlightInfo(msg); err == nil {
			if len(fi.Endpoints) > maxEndpoints {
				t.Fatal("endpoint bound ignored")
			}
		}
		_, _ = decodeFlightData(msg)
		_ = walkProto(msg, func(protoField) error { return nil })
		// Tickets and locations come from the server too.
		if id := DorisQueryID(msg); id != "" && !queryIDPattern.MatchString(id) {
			t.Fatalf("query id %q", id)
		}
		_, _, _, _ = ParseLocation(string(msg))
	})
}

func FuzzSchema(f *testing.F) {
	f.Fuzz(func(t *testing.T, msg []byte) {
		_, _ = ParseSchemaMessage(msg)
	})
}

func FuzzBatch(f *testing.F) {
	f.Fuzz(func(t *testing.T, schemaMsg, header, body []byte) {
		s, err := ParseSchemaMessage(schemaMsg)
		if err != nil {
			return
		}
		b, err := DecodeBatch(header, body, s)
		if err != nil {
			return
		}
		// Every row of a small batch; the first and last rows of a large
		// one (a null column may claim many rows with no buffer at all).
		var buf []byte
		for _, c := range b.Columns {
			_ = c.Field.MySQLType()
			for i := 0; i < b.Rows; i++ {
				if i == 4096 && b.Rows > 8192 {
					i = b.Rows - 4096
				}
				buf, _ = c.AppendText(buf[:0], i)
			}
		}
	})
}
