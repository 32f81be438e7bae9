package metricflow

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"sync"
	"time"
	"unicode/utf8"
)

// Protocol is the protocol version both sides speak.
const Protocol = "doris-mcp-metricflow/v1"

// Operations are the requests a provider serves.
var Operations = []string{"list_models", "get_status", "list_metrics", "get_group_bys",
	"list_saved_queries", "compile_dimension_values", "compile_query"}

// environment is everything a provider process inherits: nothing of the
// server's own environment, so no credential or token reaches it.
var environment = []string{"LANG=C.UTF-8", "LC_ALL=C.UTF-8", "PYTHONUNBUFFERED=1"}

const (
	// maxStderr bounds what a provider may write to stderr; it is drained
	// and discarded.
	maxStderr = 64 << 10
	// maxConcurrent bounds the provider processes running at once; a
	// request waits (within its timeout) for a slot.
	maxConcurrent = 4
	// ioGrace is how long, after the provider exits or is killed, its
	// pipes may stay open (held by a stray descendant) before they are
	// closed.
	ioGrace = 500 * time.Millisecond
	// maxResponseDepth bounds the nesting of an answer.
	maxResponseDepth = 64
)

// Client runs provider requests. It is safe for concurrent use.
type Client struct {
	command []string
	dir     string
	timeout time.Duration
	maxOut  int
	slots   chan struct{}
	rand    io.Reader
}

// New returns a client for a valid, enabled configuration.
func New(cfg Config) (*Client, error) {
	if errs := cfg.Validate(); len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if !cfg.Enabled {
		return nil, &Error{Reason: ReasonNotConfigured, Message: "MetricFlow is not enabled (METRICFLOW_ENABLED)"}
	}
	cmd, _ := cfg.Command()
	return &Client{command: cmd, dir: cfg.ProjectDirectory, timeout: cfg.Timeout, maxOut: cfg.MaxOutputBytes,
		slots: make(chan struct{}, maxConcurrent), rand: rand.Reader}, nil
}

// Timeout is the bound of one request.
func (c *Client) Timeout() time.Duration { return c.timeout }

// Do runs one operation and returns the provider's data object. args is
// marshalled as the request's arguments object.
func (c *Client) Do(ctx context.Context, op string, args any) (json.RawMessage, error) {
	if !slices.Contains(Operations, op) {
		return nil, &Error{Reason: ReasonOperation, Message: fmt.Sprintf("%q is not an operation of %s", op, Protocol)}
	}
	id, err := c.requestID()
	if err != nil {
		return nil, &Error{Reason: ReasonStartFailed, Message: "no request id could be generated", Cause: err}
	}
	payload, err := json.Marshal(map[string]any{"protocol_version": Protocol, "request_id": id, "operation": op, "arguments": args})
	if err != nil {
		return nil, &Error{Reason: ReasonOperation, Message: "the request arguments cannot be encoded", Cause: err}
	}
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	select {
	case c.slots <- struct{}{}:
		defer func() { <-c.slots }()
	case <-ctx.Done():
		return nil, c.ctxError(ctx, "waiting for a free provider slot")
	}
	out, err := c.run(ctx, payload)
	if err != nil {
		return nil, err
	}
	return decodeResponse(out, id)
}

func (c *Client) ctxError(ctx context.Context, what string) *Error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return &Error{Reason: ReasonTimeout, Message: fmt.Sprintf("the MetricFlow provider did not answer within %s (METRICFLOW_TIMEOUT_SECONDS) while %s", c.timeout, what)}
	}
	return &Error{Reason: ReasonCancelled, Message: "the request was cancelled before the MetricFlow provider answered"}
}

// run starts the provider, feeds it payload, and returns its stdout. The
// process group is killed on timeout, on cancellation, when an output
// bound is exceeded, and once the provider has exited, so that nothing it
// started outlives the request.
func (c *Client) run(ctx context.Context, payload []byte) ([]byte, error) {
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	stdout := &bounded{max: c.maxOut, overflow: stop}
	stderr := &bounded{max: maxStderr, overflow: stop, discard: true}
	cmd := exec.CommandContext(runCtx, c.command[0], c.command[1:]...)
	cmd.Env = environment
	cmd.Dir = c.dir
	cmd.Stdin = bytes.NewReader(payload)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.SysProcAttr = sysProcAttr()
	cmd.Cancel = func() error { return killGroup(cmd.Process) }
	cmd.WaitDelay = ioGrace
	if err := cmd.Start(); err != nil {
		return nil, &Error{Reason: ReasonStartFailed, Message: "the MetricFlow provider could not be started", Cause: err}
	}
	err := cmd.Wait()
	killGroup(cmd.Process) // descendants left behind by a provider that exited
	switch {
	case stdout.exceeded() || stderr.exceeded():
		return nil, &Error{Reason: ReasonOutputLimit, Message: fmt.Sprintf("the MetricFlow provider wrote more than %d bytes to stdout (METRICFLOW_MAX_OUTPUT_BYTES) or %d to stderr", c.maxOut, maxStderr)}
	case ctx.Err() != nil:
		return nil, c.ctxError(ctx, "running")
	case err != nil:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return nil, &Error{Reason: ReasonFailed, Message: fmt.Sprintf("the MetricFlow provider exited with status %d", ee.ExitCode()), Cause: err}
		}
		if errors.Is(err, exec.ErrWaitDelay) {
			// It exited 0 but left its output open: the answer is
			// complete only if it parses.
			break
		}
		return nil, &Error{Reason: ReasonFailed, Message: "the MetricFlow provider did not finish normally", Cause: err}
	}
	return stdout.bytes(), nil
}

func (c *Client) requestID() (string, error) {
	var b [16]byte
	if _, err := io.ReadFull(c.rand, b[:]); err != nil {
		return "", err
	}
	b[6] = b[6]&0x0f | 0x40 // version 4
	b[8] = b[8]&0x3f | 0x80 // RFC 4122 variant
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16]), nil
}

// bounded keeps up to max bytes (or, with discard, counts them) and calls
// overflow once when more arrive.
type bounded struct {
	max      int
	discard  bool
	overflow func()

	mu   sync.Mutex // protects buf, n, over
	buf  []byte
	n    int
	over bool
}

func (b *bounded) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.over {
		return 0, errOverflow
	}
	b.n += len(p)
	if b.n > b.max {
		b.over = true
		b.overflow()
		return 0, errOverflow
	}
	if !b.discard {
		b.buf = append(b.buf, p...)
	}
	return len(p), nil
}

var errOverflow = errors.New("metricflow: output bound exceeded")

func (b *bounded) exceeded() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.over
}

func (b *bounded) bytes() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf
}

// decodeResponse checks one answer and returns its data object.
func decodeResponse(out []byte, id string) (json.RawMessage, error) {
	invalid := func(msg string) error {
		return &Error{Reason: ReasonResponseInvalid, Message: "the MetricFlow provider's answer " + msg}
	}
	if !utf8.Valid(out) {
		return nil, invalid("is not valid UTF-8")
	}
	if err := checkJSON(out); err != nil {
		return nil, invalid(err.Error())
	}
	var env map[string]json.RawMessage
	if err := json.Unmarshal(out, &env); err != nil || env == nil {
		return nil, invalid("is not one JSON object")
	}
	var version, reqID string
	if json.Unmarshal(env["protocol_version"], &version) != nil || version != Protocol {
		return nil, &Error{Reason: ReasonProtocolMismatch, Message: "the MetricFlow provider does not speak " + Protocol}
	}
	if json.Unmarshal(env["request_id"], &reqID) != nil || reqID != id {
		return nil, &Error{Reason: ReasonProtocolMismatch, Message: "the MetricFlow provider answered another request (request_id differs)"}
	}
	var ok bool
	if err := json.Unmarshal(env["ok"], &ok); err != nil {
		return nil, invalid("has no boolean ok")
	}
	if !ok {
		var e struct {
			ReasonCode string `json:"reason_code"`
		}
		reason := ReasonRequestFailed
		var fields map[string]json.RawMessage
		if json.Unmarshal(env["error"], &fields) == nil && json.Unmarshal(fields["reason_code"], &e.ReasonCode) == nil && reasonRE().MatchString(e.ReasonCode) {
			reason = e.ReasonCode
		}
		return nil, &Error{Reason: reason, FromProvider: reason != ReasonRequestFailed,
			Message: "the MetricFlow provider refused the request (" + reason + ")"}
	}
	data := env["data"]
	if len(data) == 0 || data[0] != '{' {
		return nil, invalid("has no data object")
	}
	return data, nil
}

// checkJSON accepts exactly one JSON value with no duplicate member names
// in any object and nesting within maxResponseDepth.
func checkJSON(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var walk func(depth int) error
	walk = func(depth int) error {
		tok, err := dec.Token()
		if err != nil {
			return errors.New("is not valid JSON")
		}
		d, isDelim := tok.(json.Delim)
		if !isDelim {
			return nil
		}
		if depth >= maxResponseDepth {
			return fmt.Errorf("nests deeper than %d levels", maxResponseDepth)
		}
		var seen map[string]bool
		if d == '{' {
			seen = map[string]bool{}
		}
		for dec.More() {
			if seen != nil {
				k, err := dec.Token()
				key, ok := k.(string)
				if err != nil || !ok {
					return errors.New("is not valid JSON")
				}
				if seen[key] {
					return errors.New("repeats a member name in one object")
				}
				seen[key] = true
			}
			if err := walk(depth + 1); err != nil {
				return err
			}
		}
		if _, err := dec.Token(); err != nil {
			return errors.New("is not valid JSON")
		}
		return nil
	}
	if err := walk(0); err != nil {
		return err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return errors.New("holds more than one JSON value")
	}
	return nil
}
