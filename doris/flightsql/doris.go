package flightsql

import (
	"errors"
	"net"
	"regexp"
	"strconv"
	"strings"
)

// StatementHandle returns the statement handle of a Flight SQL ticket:
// the handle of the Any-packed TicketStatementQuery it holds, or nil.
func StatementHandle(ticket []byte) []byte {
	var typeURL string
	var value []byte
	if walkProto(ticket, func(f protoField) error {
		b, err := f.bytesOf()
		switch {
		case f.num != 1 && f.num != 2:
		case err != nil:
			return err
		case f.num == 1:
			typeURL = string(b)
		default:
			value = b
		}
		return nil
	}) != nil || typeURL != typeTicketStatementQuery {
		return nil
	}
	var handle []byte
	if walkProto(value, func(f protoField) error {
		if f.num == 1 {
			b, err := f.bytesOf()
			handle = b
			return err
		}
		return nil
	}) != nil {
		return nil
	}
	return handle
}

var queryIDPattern = regexp.MustCompile(`^[0-9a-f]{1,16}-[0-9a-f]{1,16}$`)

// DorisQueryID returns the Doris query id a Doris ticket names, or "".
// Doris's handles are "<query id>&<be host>&<be port>&<base64 sql>" for a
// result on a BE, and "<session>:<query id>" for one on the FE.
func DorisQueryID(ticket []byte) string {
	h := string(StatementHandle(ticket))
	id := h
	if i := strings.IndexByte(h, '&'); i >= 0 {
		id = h[:i]
	} else if i := strings.LastIndexByte(h, ':'); i >= 0 {
		id = h[i+1:]
	}
	if !queryIDPattern.MatchString(id) {
		return ""
	}
	return id
}

// ParseLocation reads a Flight location URI: grpc://, grpc+tcp:// (both
// cleartext) or grpc+tls://host:port. reuse reports Arrow's
// "arrow-flight-reuse-connection://?" (and an empty URI): read on the
// service that answered GetFlightInfo.
func ParseLocation(uri string) (addr string, tls, reuse bool, err error) {
	if uri == "" || strings.HasPrefix(uri, "arrow-flight-reuse-connection:") {
		return "", false, true, nil
	}
	scheme, rest, ok := strings.Cut(uri, "://")
	if !ok {
		return "", false, false, errors.New("flightsql: location without a scheme")
	}
	switch scheme {
	case "grpc", "grpc+tcp":
	case "grpc+tls":
		tls = true
	default:
		return "", false, false, errors.New("flightsql: unsupported location scheme " + strconv.Quote(scheme))
	}
	rest, _, _ = strings.Cut(rest, "/")
	host, port, err := net.SplitHostPort(rest)
	if err != nil || host == "" {
		return "", false, false, errors.New("flightsql: location is not host:port")
	}
	if p, err := strconv.Atoi(port); err != nil || p < 1 || p > 65535 {
		return "", false, false, errors.New("flightsql: location port out of range")
	}
	return net.JoinHostPort(host, port), tls, false, nil
}
