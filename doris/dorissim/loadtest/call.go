//go:build unix

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"
)

// answer is what one MCP request got back, decoded only as far as a run
// classifies it.
type answer struct {
	HTTP      int
	RPCCode   int    // JSON-RPC error code; 0 when there is a result
	RPCReason string // the JSON-RPC error's data.reason, when sent
	Mode      string // the envelope's mode: result, manifest or error
	Code      string // the envelope's error.code
	Reason    string // the envelope's error.details.reason_code
	Status    string // data.status: success or partial
	Truncated bool
	Rows      int
	Items     []json.RawMessage
	Next      string // next_cursor of a collection page
	Tools     int    // tools in a tools/list result
	Latency   time.Duration
	Err       error // no answer at all: a transport failure
}

// label names an answer for the tables: "ok", an error code with its
// reason, an HTTP status, or "no answer".
func (a answer) label() string {
	switch {
	case a.Err != nil:
		return "no answer"
	case a.RPCCode != 0:
		s := fmt.Sprintf("HTTP %d rpc %d", a.HTTP, a.RPCCode)
		if a.RPCReason != "" {
			s += " " + a.RPCReason
		}
		return s
	case a.HTTP != http.StatusOK:
		return fmt.Sprintf("HTTP %d", a.HTTP)
	case a.Mode == "error":
		if a.Reason != "" {
			return a.Code + "/" + a.Reason
		}
		return a.Code
	case a.Mode == "result" && a.Status == "partial":
		return "partial"
	case a.Mode == "result" || a.Mode == "manifest" || a.Tools > 0:
		return "ok"
	}
	return "undecodable"
}

// ok is a complete success: a result with status success, a manifest or
// a tool list.
func (a answer) ok() bool { return a.label() == "ok" }

type envelope struct {
	Mode  string `json:"mode"`
	Error *struct {
		Code    string `json:"code"`
		Details struct {
			Reason string `json:"reason_code"`
		} `json:"details"`
	} `json:"error"`
	Data *struct {
		Status string `json:"status"`
		Data   struct {
			RowCount   int               `json:"row_count"`
			Truncated  bool              `json:"truncated"`
			Items      []json.RawMessage `json:"items"`
			NextCursor *string           `json:"next_cursor"`
		} `json:"data"`
	} `json:"data"`
}

type rpcMessage struct {
	Result *struct {
		Structured *envelope         `json:"structuredContent"`
		Tools      []json.RawMessage `json:"tools"`
	} `json:"result"`
	Error *struct {
		Code int `json:"code"`
		Data struct {
			Reason string `json:"reason"`
		} `json:"data"`
	} `json:"error"`
}

// request sends one JSON-RPC body with the MCP 2026-07-28 headers and
// decodes the answer. name is the Mcp-Name header ("" for unnamed
// methods).
func (c *client) request(ctx context.Context, method, name string, body []byte) answer {
	t0 := time.Now()
	a := c.send(ctx, method, name, body)
	a.Latency = time.Since(t0)
	return a
}

func (c *client) send(ctx context.Context, method, name string, body []byte) (a answer) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		a.Err = err
		return a
	}
	h := req.Header
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "application/json, text/event-stream")
	h.Set("MCP-Protocol-Version", "2026-07-28")
	h.Set("Mcp-Method", method)
	if name != "" {
		h.Set("Mcp-Name", name)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		a.Err = err
		return a
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	a.HTTP = resp.StatusCode
	if err != nil {
		a.Err = err
		return a
	}
	var m rpcMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return a // undecodable, unless the HTTP status says more
	}
	if m.Error != nil {
		a.RPCCode, a.RPCReason = m.Error.Code, m.Error.Data.Reason
		return a
	}
	if m.Result == nil {
		return a
	}
	a.Tools = len(m.Result.Tools)
	if e := m.Result.Structured; e != nil {
		a.Mode = e.Mode
		if e.Error != nil {
			a.Code, a.Reason = e.Error.Code, e.Error.Details.Reason
		}
		if d := e.Data; d != nil {
			a.Status = d.Status
			a.Rows, a.Truncated, a.Items = d.Data.RowCount, d.Data.Truncated, d.Data.Items
			if d.Data.NextCursor != nil {
				a.Next = *d.Data.NextCursor
			}
		}
	}
	return a
}

// mcpMeta is the _meta every 2026-07-28 request carries.
func mcpMeta() map[string]any {
	return map[string]any{
		"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
		"io.modelcontextprotocol/clientCapabilities": map[string]any{},
		"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "loadtest", "version": "1"},
	}
}

// rpc builds a JSON-RPC request body.
func rpc(method string, params map[string]any) []byte {
	p := map[string]any{"_meta": mcpMeta()}
	for k, v := range params {
		p[k] = v
	}
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": p})
	if err != nil {
		panic(err) // only static, marshalable values reach here
	}
	return b
}

// childCall is a tools/call of one child of a domain tool.
func childCall(domain, child string, args map[string]any) []byte {
	return rpc("tools/call", map[string]any{"name": domain,
		"arguments": map[string]any{"child_tool": child, "arguments": args}})
}

// sqlCall is a tools/call of execute_query.
func sqlCall(sql string, timeoutMs, maxRows int) []byte {
	args := map[string]any{"sql": sql}
	if timeoutMs > 0 {
		args["timeout_ms"] = timeoutMs
	}
	if maxRows > 0 {
		args["max_rows"] = maxRows
	}
	return childCall("doris_query", "execute_query", args)
}

// ready is one GET /ready: its HTTP status, or 0 with no answer.
func (c *client) ready(ctx context.Context, base string) int {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/ready", nil)
	if err != nil {
		return 0
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return 0
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// itemName is the "name" of a collection item ("" when it has none).
func itemName(raw json.RawMessage) string {
	var it struct {
		Name string `json:"name"`
	}
	json.Unmarshal(raw, &it)
	return it.Name
}
