// Package flightsql is an Arrow Flight SQL client built on the standard
// library alone: gRPC over HTTP/2 (cleartext by default, TLS when
// configured), the protocol-buffer messages of the Flight SQL statement
// flow, and a bounded decoder of Arrow IPC streams (schema and record
// batch messages and the flatbuffers they are framed in).
//
// It speaks only what Apache Doris's Flight SQL service needs: the
// basic-authentication handshake that returns a bearer token,
// GetFlightInfo with a statement query, and DoGet of each endpoint.
// Every length read from the network is checked against a bound before
// it is used.
package flightsql

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Code is a gRPC status code.
type Code int

// The gRPC status codes the client distinguishes.
const (
	CodeOK               Code = 0
	CodeCanceled         Code = 1
	CodeUnknown          Code = 2
	CodeInvalidArgument  Code = 3
	CodeDeadlineExceeded Code = 4
	CodeNotFound         Code = 5
	CodePermissionDenied Code = 7
	CodeResourceExhaust  Code = 8
	CodeUnimplemented    Code = 12
	CodeInternal         Code = 13
	CodeUnavailable      Code = 14
	CodeUnauthenticated  Code = 16
)

// Status is a call that ended with a non-OK gRPC status. Message is the
// server's text: it is backend text, never shown to an MCP client.
type Status struct {
	Code    Code
	Message string
}

func (s *Status) Error() string {
	return fmt.Sprintf("flightsql: grpc status %d: %s", s.Code, s.Message)
}

// Options configure a Client.
type Options struct {
	// TLS, when set, makes the client speak HTTP/2 over TLS instead of
	// cleartext HTTP/2.
	TLS *tls.Config
	// ConnectTimeout bounds dialling one connection (default 10 s).
	ConnectTimeout time.Duration
	// MaxMessageBytes bounds one gRPC message (default 64 MiB).
	MaxMessageBytes int
}

// DefaultMaxMessageBytes bounds one gRPC message when Options gives none.
const DefaultMaxMessageBytes = 64 << 20

// Client calls one Flight service over one HTTP/2 connection pool.
type Client struct {
	base   string // scheme://host:port
	hc     *http.Client
	tr     *http.Transport
	maxMsg int
}

// NewClient returns a client of the Flight service at addr (host:port).
// It does not connect until the first call.
func NewClient(addr string, o Options) (*Client, error) {
	if _, _, err := net.SplitHostPort(addr); err != nil {
		return nil, fmt.Errorf("flightsql: address %q: %w", addr, err)
	}
	if o.ConnectTimeout <= 0 {
		o.ConnectTimeout = 10 * time.Second
	}
	if o.MaxMessageBytes <= 0 {
		o.MaxMessageBytes = DefaultMaxMessageBytes
	}
	var p http.Protocols
	scheme := "http"
	tr := &http.Transport{
		DialContext:         (&net.Dialer{Timeout: o.ConnectTimeout, KeepAlive: 30 * time.Second}).DialContext,
		TLSHandshakeTimeout: o.ConnectTimeout,
		IdleConnTimeout:     90 * time.Second,
		DisableCompression:  true,
	}
	if o.TLS != nil {
		p.SetHTTP2(true)
		tr.TLSClientConfig = o.TLS.Clone()
		scheme = "https"
	} else {
		p.SetUnencryptedHTTP2(true)
	}
	tr.Protocols = &p
	tr.HTTP2 = &http.HTTP2Config{MaxReceiveBufferPerStream: 4 << 20}
	return &Client{base: scheme + "://" + addr, hc: &http.Client{Transport: tr}, tr: tr, maxMsg: o.MaxMessageBytes}, nil
}

// Close closes the client's idle connections.
func (c *Client) Close() { c.tr.CloseIdleConnections() }

// stream is one gRPC call's response: length-prefixed messages, then the
// status in the trailers.
type stream struct {
	resp   *http.Response
	maxMsg int
	hdr    [5]byte
	done   bool
}

// call starts method with the given request messages, sent whole (the
// flow's calls send one request message each), and returns the response
// stream once the response headers arrived. md are request metadata
// (lower-case names). Ending ctx resets the HTTP/2 stream (RST_STREAM
// CANCEL), which is how gRPC cancels a call.
func (c *Client) call(ctx context.Context, method string, md map[string]string, msgs ...[]byte) (*stream, error) {
	var body bytes.Buffer
	for _, m := range msgs {
		var h [5]byte
		binary.BigEndian.PutUint32(h[1:], uint32(len(m)))
		body.Write(h[:])
		body.Write(m)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+"/arrow.flight.protocol.FlightService/"+method, &body)
	if err != nil {
		return nil, err
	}
	req.Header.Set("content-type", "application/grpc+proto")
	req.Header.Set("te", "trailers")
	req.Header.Set("user-agent", "doris-mcp-server-flightsql/1")
	if dl, ok := ctx.Deadline(); ok {
		req.Header.Set("grpc-timeout", grpcTimeout(time.Until(dl)))
	}
	for k, v := range md {
		req.Header.Set(k, v)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		if ctx.Err() != nil || pastDeadline(ctx) {
			return nil, ctxStatus(ctx)
		}
		return nil, &Status{Code: CodeUnavailable, Message: err.Error()}
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		return nil, httpStatus(resp)
	}
	if ct := resp.Header.Get("content-type"); !strings.HasPrefix(ct, "application/grpc") {
		resp.Body.Close()
		return nil, &Status{Code: CodeUnknown, Message: "response content-type " + strconv.Quote(ct)}
	}
	// A trailers-only response carries its status in the headers.
	if s := resp.Header.Get("grpc-status"); s != "" {
		defer resp.Body.Close()
		if st := statusFrom(resp.Header); st != nil {
			return nil, st
		}
	}
	return &stream{resp: resp, maxMsg: c.maxMsg}, nil
}

// recv returns the next message, or io.EOF after an OK status, or the
// call's non-OK status.
func (s *stream) recv(ctx context.Context) ([]byte, error) {
	if s.done {
		return nil, io.EOF
	}
	if _, err := io.ReadFull(s.resp.Body, s.hdr[:]); err != nil {
		if err == io.EOF {
			s.done = true
			if st := statusFrom(s.resp.Trailer); st != nil {
				return nil, st
			}
			if s.resp.Trailer.Get("grpc-status") == "" && s.resp.Header.Get("grpc-status") == "" {
				return nil, &Status{Code: CodeInternal, Message: "stream ended without a grpc-status"}
			}
			return nil, io.EOF
		}
		return nil, s.readError(ctx, err)
	}
	if s.hdr[0] != 0 {
		return nil, &Status{Code: CodeInternal, Message: "compressed messages are not accepted"}
	}
	n := binary.BigEndian.Uint32(s.hdr[1:])
	if uint64(n) > uint64(s.maxMsg) {
		return nil, &Status{Code: CodeResourceExhaust, Message: fmt.Sprintf("message of %d bytes exceeds the %d-byte limit", n, s.maxMsg)}
	}
	msg := make([]byte, n)
	if _, err := io.ReadFull(s.resp.Body, msg); err != nil {
		return nil, s.readError(ctx, err)
	}
	return msg, nil
}

func (s *stream) readError(ctx context.Context, err error) error {
	if ctx.Err() != nil || pastDeadline(ctx) {
		return ctxStatus(ctx)
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return &Status{Code: CodeInternal, Message: "stream ended inside a message"}
	}
	return &Status{Code: CodeUnavailable, Message: err.Error()}
}

// close ends the call. If the response was not read to its end, closing
// the body resets the HTTP/2 stream, so the server stops sending.
func (s *stream) close() { s.resp.Body.Close() }

// pastDeadline reports that ctx's deadline has passed even if ctx does
// not say so yet: a server enforcing grpc-timeout resets the stream at
// the deadline, which can arrive before the context's own timer fires.
func pastDeadline(ctx context.Context) bool {
	dl, ok := ctx.Deadline()
	return ok && !time.Now().Before(dl)
}

func ctxStatus(ctx context.Context) *Status {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) || ctx.Err() == nil && pastDeadline(ctx) {
		return &Status{Code: CodeDeadlineExceeded, Message: "deadline exceeded"}
	}
	return &Status{Code: CodeCanceled, Message: "call cancelled"}
}

// statusFrom returns the non-OK status in h, or nil for OK or none.
func statusFrom(h http.Header) *Status {
	s := h.Get("grpc-status")
	if s == "" || s == "0" {
		return nil
	}
	code, err := strconv.Atoi(s)
	if err != nil {
		code = int(CodeUnknown)
	}
	msg, err := url.PathUnescape(h.Get("grpc-message"))
	if err != nil {
		msg = h.Get("grpc-message")
	}
	return &Status{Code: Code(code), Message: msg}
}

// httpStatus maps a non-200 HTTP response to a gRPC status, as the gRPC
// HTTP/2 protocol specifies for proxies and non-gRPC servers.
func httpStatus(resp *http.Response) *Status {
	if st := statusFrom(resp.Header); st != nil {
		return st
	}
	code := CodeUnknown
	switch resp.StatusCode {
	case http.StatusBadRequest:
		code = CodeInternal
	case http.StatusUnauthorized:
		code = CodeUnauthenticated
	case http.StatusForbidden:
		code = CodePermissionDenied
	case http.StatusNotFound:
		code = CodeUnimplemented
	case http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		code = CodeUnavailable
	}
	return &Status{Code: code, Message: "HTTP status " + strconv.Itoa(resp.StatusCode)}
}

// grpcTimeout encodes d as a grpc-timeout header value (at most 8 digits).
func grpcTimeout(d time.Duration) string {
	if d <= 0 {
		return "1n"
	}
	for _, u := range []struct {
		unit time.Duration
		sfx  string
	}{{time.Nanosecond, "n"}, {time.Microsecond, "u"}, {time.Millisecond, "m"}, {time.Second, "S"}, {time.Minute, "M"}, {time.Hour, "H"}} {
		if v := (d + u.unit - 1) / u.unit; v < 1e8 {
			return strconv.FormatInt(int64(v), 10) + u.sfx
		}
	}
	return "99999999H"
}
