// Command peerserver is Apache Arrow Go's example SQLite Flight SQL server
// behind Arrow Go's own basic-auth/bearer-token handshake, with a few
// fixture statements (prefix "ARROWPEER ") whose results Arrow Go's IPC
// writer encodes: every column type Doris returns, large results, errors
// and a statement that runs until it is cancelled.
//
// It prints "LISTENING host:port" once it accepts connections, and
// "CANCELLED <n>" each time a fixture stream ends because its client went
// away.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"net"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/decimal256"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql/example"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

type validator struct{ user, password string }

func (v validator) Validate(user, password string) (string, error) {
	if user != v.user || password != v.password {
		return "", status.Error(codes.Unauthenticated, "Access denied for user '"+user+"'")
	}
	return "token-" + user, nil
}

func (v validator) IsValid(token string) (any, error) {
	if token != "token-"+v.user {
		return nil, status.Error(codes.Unauthenticated, "invalid bearer token")
	}
	return v.user, nil
}

type server struct {
	*example.SQLiteFlightSQLServer
	cancelled atomic.Int64
}

const prefix = "ARROWPEER "

func (s *server) GetFlightInfoStatement(ctx context.Context, cmd flightsql.StatementQuery, desc *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	q := cmd.GetQuery()
	if !strings.HasPrefix(q, prefix) {
		return s.SQLiteFlightSQLServer.GetFlightInfoStatement(ctx, cmd, desc)
	}
	if strings.TrimPrefix(q, prefix) == "error" {
		return nil, status.Error(codes.InvalidArgument, "fixture: the statement is refused")
	}
	tkt, err := flightsql.CreateStatementQueryTicket([]byte(q))
	if err != nil {
		return nil, err
	}
	return &flight.FlightInfo{
		Endpoint:         []*flight.FlightEndpoint{{Ticket: &flight.Ticket{Ticket: tkt}}},
		FlightDescriptor: desc, TotalRecords: -1, TotalBytes: -1,
	}, nil
}

func (s *server) DoGetStatement(ctx context.Context, cmd flightsql.StatementQueryTicket) (*arrow.Schema, <-chan flight.StreamChunk, error) {
	q := string(cmd.GetStatementHandle())
	if !strings.HasPrefix(q, prefix) {
		return s.SQLiteFlightSQLServer.DoGetStatement(ctx, cmd)
	}
	f := strings.Fields(strings.TrimPrefix(q, prefix))
	switch f[0] {
	case "types":
		sc, rec := typesRecord(s.Alloc)
		ch := make(chan flight.StreamChunk, 1)
		ch <- flight.StreamChunk{Data: rec}
		close(ch)
		return sc, ch, nil
	case "large", "slow":
		n := 1 << 62
		if len(f) > 1 {
			n, _ = strconv.Atoi(f[1])
		}
		return s.large(ctx, n, f[0] == "slow")
	}
	return nil, nil, status.Error(codes.InvalidArgument, "unknown fixture")
}

var largeSchema = arrow.NewSchema([]arrow.Field{
	{Name: "id", Type: arrow.PrimitiveTypes.Int64},
	{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
}, nil)

// large streams n rows of (id, s) in batches of 1000; slow waits 20 ms
// between batches, so that a client can stop it in the middle.
func (s *server) large(ctx context.Context, n int, slow bool) (*arrow.Schema, <-chan flight.StreamChunk, error) {
	ch := make(chan flight.StreamChunk)
	go func() {
		defer close(ch)
		b := array.NewRecordBuilder(s.Alloc, largeSchema)
		defer b.Release()
		for i := 0; i < n; {
			for j := 0; j < 1000 && i < n; j, i = j+1, i+1 {
				b.Field(0).(*array.Int64Builder).Append(int64(i))
				if i%7 == 3 {
					b.Field(1).AppendNull()
				} else {
					b.Field(1).(*array.StringBuilder).Append("row-" + strconv.Itoa(i))
				}
			}
			rec := b.NewRecordBatch()
			select {
			case ch <- flight.StreamChunk{Data: rec}:
			case <-ctx.Done():
				rec.Release()
				fmt.Printf("CANCELLED %d\n", s.cancelled.Add(1))
				return
			}
			if slow {
				select {
				case <-time.After(20 * time.Millisecond):
				case <-ctx.Done():
					fmt.Printf("CANCELLED %d\n", s.cancelled.Add(1))
					return
				}
			}
		}
	}()
	return largeSchema, ch, nil
}

// typesRecord is three rows covering every column type Doris returns over
// Arrow Flight SQL, with nulls.
func typesRecord(mem memory.Allocator) (*arrow.Schema, arrow.RecordBatch) {
	utc := &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}
	fields := []arrow.Field{
		{Name: "b", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
		{Name: "i8", Type: arrow.PrimitiveTypes.Int8, Nullable: true},
		{Name: "i16", Type: arrow.PrimitiveTypes.Int16, Nullable: true},
		{Name: "i32", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		{Name: "i64", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "u8", Type: arrow.PrimitiveTypes.Uint8, Nullable: true},
		{Name: "u64", Type: arrow.PrimitiveTypes.Uint64, Nullable: true},
		{Name: "f32", Type: arrow.PrimitiveTypes.Float32, Nullable: true},
		{Name: "f64", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "d128", Type: &arrow.Decimal128Type{Precision: 27, Scale: 9}, Nullable: true},
		{Name: "d256", Type: &arrow.Decimal256Type{Precision: 76, Scale: 4}, Nullable: true},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "ls", Type: arrow.BinaryTypes.LargeString, Nullable: true},
		{Name: "bin", Type: arrow.BinaryTypes.Binary, Nullable: true},
		{Name: "d", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
		{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Microsecond}, Nullable: true},
		{Name: "tsz", Type: utc, Nullable: true},
		{Name: "tss", Type: &arrow.TimestampType{Unit: arrow.Second}, Nullable: true},
		{Name: "l", Type: arrow.ListOf(arrow.PrimitiveTypes.Int32), Nullable: true},
		{Name: "m", Type: arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int64), Nullable: true},
		{Name: "st", Type: arrow.StructOf(
			arrow.Field{Name: "a", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
			arrow.Field{Name: "b", Type: arrow.BinaryTypes.String, Nullable: true}), Nullable: true},
		{Name: "n", Type: arrow.Null, Nullable: true},
	}
	sc := arrow.NewSchema(fields, nil)
	b := array.NewRecordBuilder(mem, sc)
	defer b.Release()
	day := func(s string) time.Time { t, _ := time.Parse("2006-01-02 15:04:05.999999", s); return t }
	for row := range 3 {
		if row == 2 { // all nulls
			for _, fb := range b.Fields() {
				fb.AppendNull()
			}
			continue
		}
		neg := row == 1
		sign := func(v int64) int64 {
			if neg {
				return -v
			}
			return v
		}
		b.Field(0).(*array.BooleanBuilder).Append(!neg)
		b.Field(1).(*array.Int8Builder).Append(int8(sign(127)))
		b.Field(2).(*array.Int16Builder).Append(int16(sign(32767)))
		b.Field(3).(*array.Int32Builder).Append(int32(sign(2147483647)))
		b.Field(4).(*array.Int64Builder).Append(sign(9223372036854775807))
		b.Field(5).(*array.Uint8Builder).Append(255)
		b.Field(6).(*array.Uint64Builder).Append(18446744073709551615)
		b.Field(7).(*array.Float32Builder).Append(float32(sign(1)) * 1.5)
		b.Field(8).(*array.Float64Builder).Append(float64(sign(1)) * 2.25e-10)
		d1, _ := decimal128.FromString(map[bool]string{false: "123456789012345678.123456789", true: "-0.000000001"}[neg], 27, 9)
		b.Field(9).(*array.Decimal128Builder).Append(d1)
		d2, _ := decimal256.FromString(map[bool]string{false: "123456789012345678901234567890123456789012345678901234567890.1234", true: "-1.5"}[neg], 76, 4)
		b.Field(10).(*array.Decimal256Builder).Append(d2)
		b.Field(11).(*array.StringBuilder).Append(map[bool]string{false: "héllo \"quoted\"", true: ""}[neg])
		b.Field(12).(*array.LargeStringBuilder).Append("large")
		b.Field(13).(*array.BinaryBuilder).Append([]byte{0, 1, 0xfe, 0xff})
		ts := day(map[bool]string{false: "2024-02-29 23:59:58.123456", true: "1969-12-31 23:59:59"}[neg])
		b.Field(14).(*array.Date32Builder).Append(arrow.Date32FromTime(ts))
		b.Field(15).(*array.TimestampBuilder).Append(arrow.Timestamp(ts.UnixMicro()))
		b.Field(16).(*array.TimestampBuilder).Append(arrow.Timestamp(ts.UnixMicro()))
		b.Field(17).(*array.TimestampBuilder).Append(arrow.Timestamp(ts.Unix()))
		lb := b.Field(18).(*array.ListBuilder)
		lb.Append(true)
		lb.ValueBuilder().(*array.Int32Builder).Append(1)
		lb.ValueBuilder().(*array.Int32Builder).AppendNull()
		lb.ValueBuilder().(*array.Int32Builder).Append(int32(sign(3)))
		mb := b.Field(19).(*array.MapBuilder)
		mb.Append(true)
		mb.KeyBuilder().(*array.StringBuilder).Append("k1")
		mb.ItemBuilder().(*array.Int64Builder).Append(sign(1))
		mb.KeyBuilder().(*array.StringBuilder).Append("k2")
		mb.ItemBuilder().(*array.Int64Builder).AppendNull()
		sb := b.Field(20).(*array.StructBuilder)
		sb.Append(true)
		sb.FieldBuilder(0).(*array.Int32Builder).Append(int32(sign(7)))
		sb.FieldBuilder(1).(*array.StringBuilder).Append("x")
		b.Field(21).AppendNull()
	}
	return sc, b.NewRecordBatch()
}

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "address to listen on")
	user := flag.String("user", "peer", "the one account the handshake accepts")
	password := flag.String("password", "peer-secret", "its password")
	flag.Parse()

	db, err := example.CreateDB()
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	sq, err := example.NewSQLiteFlightSQLServer(db)
	if err != nil {
		log.Fatal(err)
	}
	srv := &server{SQLiteFlightSQLServer: sq}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	s := flight.NewServerWithMiddleware([]flight.ServerMiddleware{flight.CreateServerBasicAuthMiddleware(validator{*user, *password})})
	s.RegisterFlightService(flightsql.NewFlightServer(srv))
	s.InitListener(ln)
	fmt.Println("LISTENING", ln.Addr().String())
	if err := s.Serve(); err != nil && !errors.Is(err, net.ErrClosed) {
		log.Fatal(err)
	}
	_ = os.Stdout.Sync()
}
