// Package client is the command-line MCP client of the binary
// (`doris-mcp-server client`): list, discover, call and page through the
// domain tools of a server, and check, the Host test sequence of the host
// integration guide, one line of evidence per step. It speaks MCP
// 2026-07-28 to a URL (through a bridge.Remote, with the bridge's
// credentials) or over stdio to a command it starts.
package client

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/doris-mcp/doris-mcp-server/mcp"
	"github.com/doris-mcp/doris-mcp-server/mcp/bridge"
)

// Info is the client's identity in every request's _meta.
var Info = map[string]any{"name": "doris-mcp-client", "version": "1"}

// Conn sends 2026-07-28 requests.
type Conn interface {
	// Call returns the result of method, or an error: *RPCError for a
	// JSON-RPC error, *bridge.Error when no answer came.
	Call(ctx context.Context, method string, params map[string]any) (json.RawMessage, error)
	Close() error
}

// RPCError is a JSON-RPC error answer.
type RPCError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *RPCError) Error() string { return fmt.Sprintf("%s (JSON-RPC %d)", e.Message, e.Code) }

// body renders a request with the per-request _meta of 2026-07-28.
func body(id int64, method string, params map[string]any) []byte {
	p := map[string]any{}
	for k, v := range params {
		p[k] = v
	}
	p["_meta"] = map[string]any{
		"io.modelcontextprotocol/protocolVersion":    mcp.Version,
		"io.modelcontextprotocol/clientCapabilities": map[string]any{},
		"io.modelcontextprotocol/clientInfo":         Info,
		"traceparent":                                bridge.NewTraceparent(),
	}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": p})
	return b
}

// result splits a response into its result or error.
func result(resp []byte) (json.RawMessage, error) {
	var r struct {
		Result json.RawMessage `json:"result"`
		Error  *RPCError       `json:"error"`
	}
	if err := json.Unmarshal(resp, &r); err != nil {
		return nil, &bridge.Error{Reason: bridge.ReasonProtocol, Message: "the server's answer is not JSON: " + err.Error()}
	}
	if r.Error != nil {
		return nil, r.Error
	}
	return r.Result, nil
}

// HTTPConn speaks to a Streamable HTTP endpoint.
type HTTPConn struct {
	Remote *bridge.Remote
	mu     sync.Mutex
	id     int64
}

// Call posts one request.
func (c *HTTPConn) Call(ctx context.Context, method string, params map[string]any) (json.RawMessage, error) {
	c.mu.Lock()
	c.id++
	id := c.id
	c.mu.Unlock()
	name := ""
	if n, ok := params["name"].(string); ok && (method == "tools/call" || method == "prompts/get") {
		name = n
	}
	resp, err := c.Remote.Send(ctx, bridge.Message{Body: body(id, method, params), Method: method, Modern: true,
		Version: mcp.Version, Name: name}, nil)
	if err != nil {
		return nil, err
	}
	return result(resp)
}

// Close does nothing: each request is its own.
func (c *HTTPConn) Close() error { return nil }

// StdioConn speaks to a server process over its stdin and stdout.
type StdioConn struct {
	cmd     *exec.Cmd
	in      io.WriteCloser
	timeout time.Duration

	mu      sync.Mutex
	id      int64
	waiting map[string]chan []byte
	exited  chan struct{}
	err     error
	tail    *tailWriter
}

// tailWriter keeps the last max bytes written to it.
type tailWriter struct {
	mu  sync.Mutex
	b   []byte
	max int
}

func (t *tailWriter) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = append([]byte(nil), t.b[len(t.b)-t.max:]...)
	}
	return len(p), nil
}

// exitError says that the process exited, with the end of its stderr.
func (c *StdioConn) exitError() error {
	c.tail.mu.Lock()
	last := strings.TrimSpace(string(c.tail.b))
	c.tail.mu.Unlock()
	if i := strings.LastIndex(last, "\n"); i >= 0 && len(last)-i < 600 {
		// keep the last few lines only
		lines := strings.Split(last, "\n")
		if len(lines) > 4 {
			lines = lines[len(lines)-4:]
		}
		last = strings.Join(lines, " | ")
	}
	msg := fmt.Sprintf("the server process exited (%v) before it answered", c.err)
	if last != "" {
		msg += "; its stderr ends: " + last
	}
	return &bridge.Error{Reason: bridge.ReasonDisconnected, Message: msg}
}

// StartStdio starts argv with its stderr copied to stderr (nil: only the
// last lines are kept, to explain an early exit).
func StartStdio(argv []string, stderr io.Writer, timeout time.Duration) (*StdioConn, error) {
	if len(argv) == 0 {
		return nil, errors.New("no command after --")
	}
	tail := &tailWriter{max: 2048}
	cmd := exec.Command(argv[0], argv[1:]...)
	if stderr != nil {
		cmd.Stderr = io.MultiWriter(stderr, tail)
	} else {
		cmd.Stderr = tail
	}
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	c := &StdioConn{cmd: cmd, in: in, timeout: timeout, waiting: map[string]chan []byte{}, exited: make(chan struct{}), tail: tail}
	go c.read(out)
	return c, nil
}

func (c *StdioConn) read(out io.Reader) {
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 64<<10), 4*mcp.MaxMessageBytes)
	for sc.Scan() {
		var m struct {
			ID json.RawMessage `json:"id"`
		}
		if json.Unmarshal(sc.Bytes(), &m) != nil || m.ID == nil {
			continue // a notification
		}
		c.mu.Lock()
		ch := c.waiting[string(m.ID)]
		delete(c.waiting, string(m.ID))
		c.mu.Unlock()
		if ch != nil {
			ch <- append([]byte(nil), sc.Bytes()...)
		}
	}
	c.err = c.cmd.Wait()
	close(c.exited)
}

// Call writes one request and waits for its answer, bounded.
func (c *StdioConn) Call(ctx context.Context, method string, params map[string]any) (json.RawMessage, error) {
	c.mu.Lock()
	c.id++
	id := c.id
	ch := make(chan []byte, 1)
	c.waiting[strconv.FormatInt(id, 10)] = ch
	c.mu.Unlock()
	select {
	case <-c.exited:
		return nil, c.exitError()
	default:
	}
	if _, err := c.in.Write(append(body(id, method, params), '\n')); err != nil {
		return nil, &bridge.Error{Reason: bridge.ReasonDisconnected, Message: "the server process does not read its stdin: " + err.Error()}
	}
	t := time.NewTimer(c.timeout)
	defer t.Stop()
	select {
	case resp := <-ch:
		return result(resp)
	case <-c.exited:
		return nil, c.exitError()
	case <-t.C:
		return nil, &bridge.Error{Reason: bridge.ReasonTimeout, Message: fmt.Sprintf("the server process did not answer within %s", c.timeout)}
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Close ends the server's stdin and waits for it to exit (killing it
// after 10 s).
func (c *StdioConn) Close() error {
	c.in.Close()
	select {
	case <-c.exited:
	case <-time.After(10 * time.Second):
		c.cmd.Process.Kill()
		<-c.exited
	}
	return nil
}
