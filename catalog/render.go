package catalog

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// singleDomainRule closes every domain description: the Host's discipline
// for progressive discovery.
const singleDomainRule = " Use only the one domain that fits the question; do not open others " +
	"speculatively. Call with {} to discover, then with child_tool, arguments and manifest_version."

// toolAnnotations are the MCP ToolAnnotations of every tool: reads only,
// repeatable, and limited to the configured Doris.
var toolAnnotations = json.RawMessage(`{"readOnlyHint":true,"destructiveHint":false,"idempotentHint":true,"openWorldHint":false}`)

type wireTool struct {
	Name         string          `json:"name"`
	Title        string          `json:"title"`
	Description  string          `json:"description"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema"`
	Annotations  json.RawMessage `json:"annotations"`
}

// renderTools renders tools/list for the exposure mode, once, on first
// use. In hierarchical mode it also enforces the tools/list budget.
func (s *Surface) renderTools() ([]Tool, error) {
	var tools []Tool
	add := func(t wireTool) error {
		b, err := json.Marshal(t)
		if err != nil {
			return err
		}
		tools = append(tools, Tool{Name: t.Name, JSON: b})
		return nil
	}
	for _, d := range s.domains {
		if s.cfg.Mode == Hierarchical {
			t := wireTool{
				Name:         d.Name,
				Title:        d.Title,
				Description:  d.Description + singleDomainRule,
				InputSchema:  json.RawMessage(domainInputSchema),
				OutputSchema: json.RawMessage(domainOutputSchema),
				Annotations:  toolAnnotations,
			}
			if err := add(t); err != nil {
				return nil, err
			}
			continue
		}
		for _, ch := range d.children {
			if err := ch.rendered(); err != nil {
				return nil, err
			}
			var out bytes.Buffer
			if err := json.Compact(&out, []byte(flatOutputSchema(string(ch.outputJSON)))); err != nil {
				return nil, fmt.Errorf("catalog: %s.%s flat output schema: %w", d.Name, ch.Name, err)
			}
			t := wireTool{
				Name:         flatName(d.Name, ch.Name),
				Title:        d.Title + ": " + ch.Title,
				Description:  ch.Description,
				InputSchema:  ch.inputJSON,
				OutputSchema: out.Bytes(),
				Annotations:  toolAnnotations,
			}
			if err := add(t); err != nil {
				return nil, err
			}
		}
	}
	slices.SortFunc(tools, func(a, b Tool) int { return strings.Compare(a.Name, b.Name) })
	if s.cfg.Mode == Hierarchical {
		if n := toolsListBytes(tools); n > maxToolsListBytes {
			return nil, fmt.Errorf("catalog: hierarchical tools/list is %d bytes, budget %d", n, maxToolsListBytes)
		}
	}
	return tools, nil
}

// toolsListBytes is the size of {"tools":[...]} for the given tools.
func toolsListBytes(tools []Tool) int {
	n := len(`{"tools":[]}`)
	for i, t := range tools {
		if i > 0 {
			n++
		}
		n += len(t.JSON)
	}
	return n
}
