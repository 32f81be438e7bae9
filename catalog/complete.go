package catalog

import (
	"context"
	"fmt"
	"slices"

	"github.com/doris-mcp/doris-mcp-server/auth"
)

// Complete suggests values for a prompt argument or a resource-template
// variable: catalog, database and table names from Doris that start with
// value, as the caller can see them, at most MaxCompletionValues.
func (s *Surface) Complete(ctx context.Context, id auth.Identity, ref CompletionRef, arg, value string, context map[string]string) (*Completion, error) {
	if len(value) > 256 {
		return nil, &ArgumentError{Msg: "the value to complete is longer than 256 bytes"}
	}
	switch ref.Type {
	case "ref/prompt":
		var p *promptDef
		for i := range prompts {
			if prompts[i].Name == ref.Name {
				p = &prompts[i]
			}
		}
		if p == nil {
			return nil, ErrCompletionRef
		}
		if !declares(p.Prompt, arg) {
			return nil, &ArgumentError{Msg: fmt.Sprintf("prompt %s has no argument %q", p.Name, truncateName(arg))}
		}
	case "ref/resource":
		templates, _ := s.ResourceTemplates(ctx, id)
		if !slices.ContainsFunc(templates, func(t ResourceTemplate) bool { return t.URITemplate == ref.URI }) {
			return nil, ErrCompletionRef
		}
		switch arg {
		case "catalog", "database", "table", "view":
		default:
			return nil, &ArgumentError{Msg: fmt.Sprintf("the template has no variable %q", truncateName(arg))}
		}
	default:
		return nil, ErrCompletionRef
	}
	catalog := context["catalog"]
	if catalog == "" {
		catalog = "internal"
	}
	var names []string
	var err error
	switch arg {
	case "catalog":
		names, err = s.rt.Names(ctx, id, "", "", value, MaxCompletionValues+1)
	case "database":
		names, err = s.rt.Names(ctx, id, catalog, "", value, MaxCompletionValues+1)
	case "table", "view":
		db := context["database"]
		if db == "" {
			return &Completion{}, nil // a table needs its database first
		}
		names, err = s.rt.Names(ctx, id, catalog, db, value, MaxCompletionValues+1)
	default:
		return &Completion{}, nil // free-text arguments have no suggestions
	}
	if err != nil {
		return nil, err
	}
	if len(names) > MaxCompletionValues {
		return &Completion{Values: names[:MaxCompletionValues], HasMore: true}, nil
	}
	return &Completion{Values: names, Total: len(names)}, nil
}
