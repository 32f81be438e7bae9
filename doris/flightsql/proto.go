package flightsql

import (
	"encoding/binary"
	"errors"
	"math"
)

// The protocol-buffer messages of the Flight and Flight SQL flow, encoded
// and decoded by hand (proto3 wire format: varint, 64-bit, length-delimited
// and 32-bit fields). Unknown fields are skipped, as proto3 requires.

const (
	wireVarint = 0
	wire64     = 1
	wireBytes  = 2
	wire32     = 5
)

var errProto = errors.New("flightsql: malformed protocol buffer")

func appendVarint(b []byte, v uint64) []byte { return binary.AppendUvarint(b, v) }

func appendTag(b []byte, field, wire int) []byte {
	return appendVarint(b, uint64(field)<<3|uint64(wire))
}

// appendBytesField appends a length-delimited field; empty values are
// omitted, as proto3 does for defaults.
func appendBytesField[S ~string | ~[]byte](b []byte, field int, v S) []byte {
	if len(v) == 0 {
		return b
	}
	b = appendTag(b, field, wireBytes)
	b = appendVarint(b, uint64(len(v)))
	return append(b, v...)
}

func appendVarintField(b []byte, field int, v uint64) []byte {
	if v == 0 {
		return b
	}
	return appendVarint(appendTag(b, field, wireVarint), v)
}

// protoField is one decoded field: num and wire type, the varint or fixed
// value in u, the length-delimited payload in data.
type protoField struct {
	num  int
	wire int
	u    uint64
	data []byte
}

// walkProto calls f for every field of msg in order. It fails on
// truncated or malformed input, never reading past msg.
func walkProto(msg []byte, f func(protoField) error) error {
	for len(msg) > 0 {
		key, n := binary.Uvarint(msg)
		if n <= 0 || key>>3 == 0 || key>>3 > math.MaxInt32 {
			return errProto
		}
		msg = msg[n:]
		fl := protoField{num: int(key >> 3), wire: int(key & 7)}
		switch fl.wire {
		case wireVarint:
			v, n := binary.Uvarint(msg)
			if n <= 0 {
				return errProto
			}
			fl.u, msg = v, msg[n:]
		case wire64:
			if len(msg) < 8 {
				return errProto
			}
			fl.u, msg = binary.LittleEndian.Uint64(msg), msg[8:]
		case wire32:
			if len(msg) < 4 {
				return errProto
			}
			fl.u, msg = uint64(binary.LittleEndian.Uint32(msg)), msg[4:]
		case wireBytes:
			l, n := binary.Uvarint(msg)
			if n <= 0 || l > uint64(len(msg)-n) {
				return errProto
			}
			fl.data, msg = msg[n:n+int(l)], msg[n+int(l):]
		default:
			return errProto // groups are not used by any Flight message
		}
		if err := f(fl); err != nil {
			return err
		}
	}
	return nil
}

// bytesOf returns a length-delimited field's payload, or an error when
// the field has another wire type.
func (f protoField) bytesOf() ([]byte, error) {
	if f.wire != wireBytes {
		return nil, errProto
	}
	return f.data, nil
}

// Message type URLs of the Flight SQL commands, packed in
// google.protobuf.Any.
const (
	typeCommandStatementQuery = "type.googleapis.com/arrow.flight.protocol.sql.CommandStatementQuery"
	typeTicketStatementQuery  = "type.googleapis.com/arrow.flight.protocol.sql.TicketStatementQuery"
)

// packAny encodes google.protobuf.Any{type_url=1, value=2}.
func packAny(typeURL string, value []byte) []byte {
	b := appendBytesField(nil, 1, typeURL)
	return appendBytesField(b, 2, value)
}

// encodeCommandStatementQuery is CommandStatementQuery{query=1,
// transaction_id=2} packed in Any, as a FlightDescriptor's cmd carries it.
func encodeCommandStatementQuery(query string) []byte {
	return packAny(typeCommandStatementQuery, appendBytesField(nil, 1, query))
}

// encodeCmdDescriptor is FlightDescriptor{type=1 (CMD=2), cmd=2}.
func encodeCmdDescriptor(cmd []byte) []byte {
	b := appendVarintField(nil, 1, 2)
	return appendBytesField(b, 2, cmd)
}

// encodeTicket is Ticket{ticket=1}.
func encodeTicket(t []byte) []byte { return appendBytesField(nil, 1, t) }

// FlightInfo is the answer to GetFlightInfo: where the result is and how
// it is shaped.
type FlightInfo struct {
	// Schema is the result's schema as an IPC message (may be empty).
	Schema []byte
	// Endpoints are the parts of the result, each read with DoGet.
	Endpoints    []Endpoint
	TotalRecords int64
	TotalBytes   int64
}

// Endpoint is one part of a result: its ticket, and the locations that
// serve it (none: the service that answered GetFlightInfo).
type Endpoint struct {
	Ticket    []byte
	Locations []string
}

// Bounds on what a FlightInfo may hold.
const (
	maxEndpoints = 1024
	maxLocations = 16
)

func decodeFlightInfo(msg []byte) (*FlightInfo, error) {
	fi := &FlightInfo{TotalRecords: -1, TotalBytes: -1}
	err := walkProto(msg, func(f protoField) error {
		switch f.num {
		case 1:
			b, err := f.bytesOf()
			fi.Schema = b
			return err
		case 3:
			b, err := f.bytesOf()
			if err != nil {
				return err
			}
			if len(fi.Endpoints) == maxEndpoints {
				return errors.New("flightsql: too many endpoints")
			}
			ep, err := decodeEndpoint(b)
			if err != nil {
				return err
			}
			fi.Endpoints = append(fi.Endpoints, ep)
		case 4, 5:
			if f.wire != wireVarint {
				return errProto
			}
			if f.num == 4 {
				fi.TotalRecords = int64(f.u)
			} else {
				fi.TotalBytes = int64(f.u)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return fi, nil
}

// decodeEndpoint decodes FlightEndpoint{ticket=1 Ticket, location=2
// repeated Location{uri=1}}.
func decodeEndpoint(msg []byte) (Endpoint, error) {
	var ep Endpoint
	err := walkProto(msg, func(f protoField) error {
		switch f.num {
		case 1:
			b, err := f.bytesOf()
			if err != nil {
				return err
			}
			return walkProto(b, func(f protoField) error {
				if f.num == 1 {
					t, err := f.bytesOf()
					ep.Ticket = t
					return err
				}
				return nil
			})
		case 2:
			b, err := f.bytesOf()
			if err != nil {
				return err
			}
			if len(ep.Locations) == maxLocations {
				return errors.New("flightsql: too many locations")
			}
			uri := ""
			if err := walkProto(b, func(f protoField) error {
				if f.num == 1 {
					u, err := f.bytesOf()
					uri = string(u)
					return err
				}
				return nil
			}); err != nil {
				return err
			}
			ep.Locations = append(ep.Locations, uri)
		}
		return nil
	})
	return ep, err
}

// flightData is the part of FlightData{flight_descriptor=1,
// data_header=2, app_metadata=3, data_body=1000} a reader uses.
type flightData struct {
	header, body []byte
}

func decodeFlightData(msg []byte) (flightData, error) {
	var fd flightData
	err := walkProto(msg, func(f protoField) error {
		var err error
		switch f.num {
		case 2:
			fd.header, err = f.bytesOf()
		case 1000:
			fd.body, err = f.bytesOf()
		}
		return err
	})
	return fd, err
}

// EncodeFlightData is FlightData{data_header=2, data_body=1000}, for the
// simulator's server side.
func EncodeFlightData(header, body []byte) []byte {
	b := appendBytesField(nil, 2, header)
	return appendBytesField(b, 1000, body)
}
