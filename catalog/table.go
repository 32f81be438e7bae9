package catalog

import "github.com/doris-mcp/doris-mcp-server/doris"

// This file defines the shape of the contract table. The table itself is
// split by domain into table_<domain>.go files: one flat, greppable list of
// literal values per domain, in the reference server's order.

// Domain is one of the eight stable top-level tools of hierarchical mode.
type Domain struct {
	// Name is the tool name, e.g. "doris_catalog".
	Name string
	// Title is the human-readable title shown by Hosts.
	Title string
	// Description says what the domain covers and what it does not. The
	// shared single-domain-first sentence is appended when rendered.
	Description string
	// Children are the domain's operations in the reference server's order.
	Children []Child
}

// Child is one exact operation of a domain.
type Child struct {
	// Name is the exact child name, e.g. "list_tables". In flat mode the
	// tool is named "<domain>_<name>".
	Name string
	// Title is the human-readable title.
	Title string
	// Description is the canonical description in our own words. With the
	// availability prefix it must stay within 800 characters.
	Description string
	// Handler runs the child, in its domain's package under doris/; nil
	// leaves the child listed but never callable (HANDLER_NOT_BOUND).
	Handler doris.Handler
	// Input is the literal JSON Schema 2020-12 of the child's arguments:
	// always "type":"object" with "additionalProperties":false.
	Input string
	// Family is the output family: the outer shape of the child result.
	Family Family
	// Data is the literal JSON Schema of the family's data member (the
	// items of a collection, the body of a detail or diagnostic result).
	Data string
	// Feature is the version rule id reported in version_support.rule_id.
	Feature string
	// Scope says which components' versions gate the child.
	Scope VersionScope
	// Variants are the capability paths of the child, most capable first.
	// The first variant whose version range, deployment mode and probes
	// match the capability snapshot becomes the active variant.
	Variants []Variant
	// Probes are the ids of the domain probes every variant needs.
	Probes []string
	// Provider names an optional provider the child needs beyond the MySQL
	// route ("" for none): ProviderFEHTTP, ProviderBEHTTP, ProviderADBC,
	// ProviderOssie, ProviderMetricFlow, ProviderLineageStore.
	Provider string
}

// Family is the outer shape of a child's successful result.
type Family int

const (
	// Collection: data = {items[], next_cursor: string|null, truncated}.
	Collection Family = iota + 1
	// Detail: data = an object described by Child.Data.
	Detail
	// Diagnostic: as Detail, plus a required evidence array.
	Diagnostic
	// Query: data = {columns[], rows[], row_count, truncated}.
	Query
	// TableContext: data = {schema, comments, indexes, basic} sections.
	TableContext
)

// VersionScope says which component versions a child's rule applies to.
type VersionScope string

// Version scopes, as in the reference's capability registry.
const (
	ScopeMasterFE      VersionScope = "master_fe"
	ScopeAllFE         VersionScope = "all_fe"
	ScopeAllBE         VersionScope = "all_be"
	ScopeAllComponents VersionScope = "all_components"
)

// Providers a child may need beyond the MySQL route.
const (
	ProviderFEHTTP       = "fe_http"
	ProviderBEHTTP       = "be_http"
	ProviderADBC         = "adbc"
	ProviderOssie        = "ossie"
	ProviderMetricFlow   = "metricflow"
	ProviderLineageStore = "lineage_store"
)

// Variant is one capability path of a child.
type Variant struct {
	// Name is reported as availability.active_variant.
	Name string
	// Ranges are half-open version ranges "MIN-MAX" ([MIN, MAX)) or "MIN-"
	// (MIN and later), e.g. "2.0.0-", "4.0.7-4.1.0".
	Ranges []string
	// Modes restricts the deployment modes ("integrated", "cloud",
	// "shared_data"); empty means any.
	Modes []string
	// Probes are extra probe ids this variant needs.
	Probes []string
	// Degraded marks a variant that runs with reduced evidence.
	Degraded bool
	// Limitations are short sentences reported with the availability.
	Limitations []string
}
