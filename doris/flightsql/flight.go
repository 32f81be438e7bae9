package flightsql

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Handshake authenticates with HTTP basic credentials on the Handshake
// call, as Doris's Flight SQL service (and Arrow's bearer-token
// middleware) expect, and returns the bearer token the service answers
// with in its response headers or trailers.
func (c *Client) Handshake(ctx context.Context, user, password string) (string, error) {
	cred := base64.StdEncoding.EncodeToString([]byte(user + ":" + password))
	s, err := c.call(ctx, "Handshake", map[string]string{"authorization": "Basic " + cred})
	if err != nil {
		return "", err
	}
	defer s.close()
	for n := 0; ; n++ {
		if _, err := s.recv(ctx); err == io.EOF {
			break
		} else if err != nil {
			return "", err
		}
		if n > 16 {
			return "", &Status{Code: CodeInternal, Message: "handshake answered with too many messages"}
		}
	}
	for _, h := range [][]string{s.resp.Header.Values("authorization"), s.resp.Trailer.Values("authorization")} {
		for _, v := range h {
			if scheme, tok, ok := strings.Cut(strings.TrimSpace(v), " "); ok && strings.EqualFold(scheme, "bearer") && tok != "" {
				return strings.TrimSpace(tok), nil
			}
		}
	}
	return "", &Status{Code: CodeUnauthenticated, Message: "the handshake returned no bearer token"}
}

func bearer(token string) map[string]string {
	return map[string]string{"authorization": "Bearer " + token}
}

// Execute sends GetFlightInfo for a Flight SQL statement query
// (CommandStatementQuery) and returns where its result is.
func (c *Client) Execute(ctx context.Context, token, query string) (*FlightInfo, error) {
	desc := encodeCmdDescriptor(encodeCommandStatementQuery(query))
	s, err := c.call(ctx, "GetFlightInfo", bearer(token), desc)
	if err != nil {
		return nil, err
	}
	defer s.close()
	msg, err := s.recv(ctx)
	if err == io.EOF {
		return nil, &Status{Code: CodeInternal, Message: "GetFlightInfo returned no message"}
	}
	if err != nil {
		return nil, err
	}
	if _, err := s.recv(ctx); err != io.EOF {
		if err == nil {
			err = &Status{Code: CodeInternal, Message: "GetFlightInfo returned more than one message"}
		}
		return nil, err
	}
	fi, err := decodeFlightInfo(msg)
	if err != nil {
		return nil, &Status{Code: CodeInternal, Message: err.Error()}
	}
	return fi, nil
}

// Reader reads the Arrow IPC stream of one DoGet call.
type Reader struct {
	s      *stream
	ctx    context.Context
	schema *Schema
}

// DoGet starts reading ticket's stream and reads its schema message.
// Close the reader to end the call: an unfinished stream is reset, which
// tells the server to stop.
func (c *Client) DoGet(ctx context.Context, token string, ticket []byte) (*Reader, error) {
	s, err := c.call(ctx, "DoGet", bearer(token), encodeTicket(ticket))
	if err != nil {
		return nil, err
	}
	r := &Reader{s: s, ctx: ctx}
	msg, err := s.recv(ctx)
	if err == io.EOF {
		s.close()
		return nil, &Status{Code: CodeInternal, Message: "DoGet stream has no schema"}
	}
	if err != nil {
		s.close()
		return nil, err
	}
	fd, err := decodeFlightData(msg)
	if err == nil {
		r.schema, err = ParseSchemaMessage(fd.header)
	}
	if err != nil {
		s.close()
		return nil, &Status{Code: CodeInternal, Message: err.Error()}
	}
	return r, nil
}

// Schema is the stream's schema.
func (r *Reader) Schema() *Schema { return r.schema }

// Next returns the next record batch, or io.EOF at the end of the stream.
func (r *Reader) Next() (*Batch, error) {
	for {
		msg, err := r.s.recv(r.ctx)
		if err != nil {
			return nil, err
		}
		fd, err := decodeFlightData(msg)
		if err != nil {
			return nil, &Status{Code: CodeInternal, Message: err.Error()}
		}
		b, err := DecodeBatch(fd.header, fd.body, r.schema)
		if errors.Is(err, errSkip) {
			continue
		}
		if err != nil {
			return nil, &Status{Code: CodeInternal, Message: err.Error()}
		}
		return b, nil
	}
}

// Close ends the call.
func (r *Reader) Close() { r.s.close() }

var errSkip = errors.New("flightsql: message carries no batch")

// DecodeBatch decodes one FlightData's IPC message (header flatbuffer and
// body) as a record batch of schema. A message with no header at all
// (FlightData carrying only app_metadata) yields errSkip.
func DecodeBatch(header, body []byte, schema *Schema) (*Batch, error) {
	if len(header) == 0 {
		return nil, errSkip
	}
	f, htype, h, bodyLen, err := parseMessage(header)
	if err != nil {
		return nil, err
	}
	switch htype {
	case headerRecordBatch:
	case headerSchema:
		return nil, errors.New("flightsql: a second schema message in the stream")
	case headerDictionaryBatch:
		return nil, errors.New("flightsql: dictionary batches are not supported")
	default:
		return nil, fmt.Errorf("flightsql: unexpected IPC message type %d", htype)
	}
	if bodyLen < 0 || bodyLen > int64(len(body)) {
		return nil, errors.New("flightsql: message body shorter than declared")
	}
	return decodeRecordBatch(f, h, body[:bodyLen], schema)
}
