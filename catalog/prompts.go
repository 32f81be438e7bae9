package catalog

import (
	"context"
	"fmt"
	"strings"

	"github.com/doris-mcp/doris-mcp-server/auth"
)

// promptDef is one analysis prompt: a short brief that walks the model
// through the right domains in order. The texts are ours; the names and
// arguments are the reference server's.
type promptDef struct {
	Prompt
	render func(args map[string]string) string
}

// maxPromptArg bounds every prompt argument value.
const maxPromptArg = 512

var prompts = []promptDef{
	{
		Prompt: Prompt{
			Name: "data_quality_check", Title: "Data quality check",
			Description: "Check one table for completeness, duplicates, out-of-range values and freshness, with evidence.",
			Arguments: []PromptArgument{
				{Name: "database", Description: "Database of the table", Required: true},
				{Name: "table", Description: "Table to check", Required: true},
				{Name: "columns", Description: "Comma-separated columns to focus on (default: all)"},
			},
		},
		render: func(a map[string]string) string {
			return fmt.Sprintf("Assess the data quality of %s.%s%s.\n"+
				"1. Call doris_catalog with {}, then get_table_context for the table, to learn its columns, keys and comments.\n"+
				"2. With doris_query execute_query, measure per column: NULL share, distinct count, minimum and maximum, and duplicate keys. Keep every query bounded (aggregates, or LIMIT).\n"+
				"3. Report each finding with the query that produced it, and say which checks could not be run and why.",
				a["database"], a["table"], optional(" focusing on the columns %s", a["columns"]))
		},
	},
	{
		Prompt: Prompt{
			Name: "performance_optimization", Title: "Query performance optimization",
			Description: "Diagnose a slow query from its SQL or query id and propose concrete, evidence-backed changes.",
			Arguments: []PromptArgument{
				{Name: "sql", Description: "The SELECT to analyse"},
				{Name: "query_id", Description: "A Doris query id from the audit log"},
				{Name: "database", Description: "Default database of the query"},
			},
		},
		render: func(a map[string]string) string {
			target := "the slowest recent queries (doris_query list_slow_queries)"
			switch {
			case a["query_id"] != "":
				target = "the query with id " + a["query_id"]
			case a["sql"] != "":
				target = "this query:\n" + a["sql"] + "\n"
			}
			return fmt.Sprintf("Find out why %s is slow%s.\n"+
				"1. Use doris_query: diagnose_query_performance, then explain_query (verbose) and, when available, get_query_profile.\n"+
				"2. Check partition and tablet pruning, predicate pushdown, join order and distribution, and spills.\n"+
				"3. Propose changes (rewrites, partitioning, indexes, materialized views) and tie each to the evidence that motivates it. Do not run anything that changes data.",
				target, optional(" (default database %s)", a["database"]))
		},
	},
	{
		Prompt: Prompt{
			Name: "report_generation", Title: "Report generation",
			Description: "Draft a periodic data report on a topic, built only from bounded read-only queries.",
			Arguments: []PromptArgument{
				{Name: "topic", Description: "What the report is about", Required: true},
				{Name: "database", Description: "Database holding the data"},
				{Name: "time_range", Description: "Period covered, e.g. last 30 days"},
			},
		},
		render: func(a map[string]string) string {
			return fmt.Sprintf("Write a report on %s%s%s.\n"+
				"1. Locate the relevant tables with doris_catalog (list_tables, get_table_context).\n"+
				"2. Compute the figures with doris_query execute_query; keep each result small (aggregate first).\n"+
				"3. Present headline numbers, trends and anomalies, each with the SQL behind it, and state any truncation or gaps.",
				a["topic"], optional(" from the %s database", a["database"]), optional(" for %s", a["time_range"]))
		},
	},
	{
		Prompt: Prompt{
			Name: "sales_analysis", Title: "Sales analysis",
			Description: "Analyse sales: revenue trends, top products and customers, and notable changes over a period.",
			Arguments: []PromptArgument{
				{Name: "database", Description: "Database with the sales data", Required: true},
				{Name: "table", Description: "Main sales or orders table"},
				{Name: "time_range", Description: "Period to analyse, e.g. 2024-Q4"},
			},
		},
		render: func(a map[string]string) string {
			return fmt.Sprintf("Analyse sales in the %s database%s%s.\n"+
				"1. Use doris_catalog to find the orders, order lines, products and customers tables and read their context.\n"+
				"2. With doris_query execute_query compute revenue by period, top products and customers, average order value and period-over-period change.\n"+
				"3. Summarise the trends and outliers, with the SQL for every figure.",
				a["database"], optional(", starting from the table %s", a["table"]), optional(" over %s", a["time_range"]))
		},
	},
	{
		Prompt: Prompt{
			Name: "user_behavior_analysis", Title: "User behavior analysis",
			Description: "Analyse user activity: active users, retention, funnels and segments from event or order data.",
			Arguments: []PromptArgument{
				{Name: "database", Description: "Database with the user or event data", Required: true},
				{Name: "table", Description: "Event or activity table"},
				{Name: "time_range", Description: "Period to analyse"},
			},
		},
		render: func(a map[string]string) string {
			return fmt.Sprintf("Analyse user behaviour in the %s database%s%s.\n"+
				"1. Use doris_catalog to find the user and activity tables and their keys and time columns.\n"+
				"2. With doris_query execute_query compute daily active users, retention by cohort, the main conversion funnel and the largest segments. Use window functions and aggregates; never pull raw rows in bulk.\n"+
				"3. Explain the patterns you find and the queries behind them.",
				a["database"], optional(", using the table %s", a["table"]), optional(" over %s", a["time_range"]))
		},
	},
}

func optional(format, v string) string {
	if v == "" {
		return ""
	}
	return fmt.Sprintf(format, v)
}

// Prompts lists the analysis prompts, sorted by name.
func (s *Surface) Prompts(ctx context.Context, id auth.Identity) ([]Prompt, error) {
	out := make([]Prompt, len(prompts))
	for i, p := range prompts {
		out[i] = p.Prompt
	}
	return out, nil
}

// GetPrompt renders one prompt. Required arguments must be present and
// every argument must be one the prompt declares.
func (s *Surface) GetPrompt(ctx context.Context, id auth.Identity, name string, args map[string]string) (*PromptResult, error) {
	for _, p := range prompts {
		if p.Name != name {
			continue
		}
		for k, v := range args {
			if !declares(p.Prompt, k) {
				return nil, &ArgumentError{Msg: fmt.Sprintf("prompt %s has no argument %q", p.Name, truncateName(k))}
			}
			if len(v) > maxPromptArg || strings.ContainsAny(v, "\x00") {
				return nil, &ArgumentError{Msg: fmt.Sprintf("argument %s is longer than %d bytes or contains NUL", k, maxPromptArg)}
			}
		}
		for _, a := range p.Arguments {
			if a.Required && strings.TrimSpace(args[a.Name]) == "" {
				return nil, &ArgumentError{Msg: fmt.Sprintf("prompt %s needs the argument %s", p.Name, a.Name)}
			}
		}
		return &PromptResult{Description: p.Description, Messages: []PromptMessage{{Role: "user", Text: p.render(args)}}}, nil
	}
	return nil, ErrPromptNotFound
}

func declares(p Prompt, arg string) bool {
	for _, a := range p.Arguments {
		if a.Name == arg {
			return true
		}
	}
	return false
}
