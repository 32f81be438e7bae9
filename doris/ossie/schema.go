package ossie

import (
	_ "embed"
	"fmt"
	"sort"

	"github.com/doris-mcp/doris-mcp-server/doris/schema"
)

// ossieSchema is the Apache Ossie core metadata schema, version 0.2.0.dev0,
// copied byte for byte from core-spec/ossie-schema.json of
// github.com/open-semantic-interchange/OSI at commit
// 11c119a7862fc057a63f2063780752ffa4d7d188 (Apache License 2.0). Its
// SHA-256 is SchemaDigest; a test keeps the two in step. The reference
// server pins an earlier copy of the same version under the older name
// osi-schema.json; this one adds dataset-scoped metrics and the
// THOUGHTSPOT dialect and drops DAX.
//
//go:embed ossie-schema.json
var ossieSchema []byte

// SchemaDigest is the SHA-256 of the embedded Ossie schema.
const SchemaDigest = "29b970b2eb77e89f0f975d6141bb6940671265a3c3f6131fdc6fe35bbf0b5686"

// SchemaSource says where the embedded schema came from.
const SchemaSource = "open-semantic-interchange/OSI core-spec/ossie-schema.json@11c119a7862fc057a63f2063780752ffa4d7d188"

// namePattern is the name of a model, metric, relationship, namespace,
// tag, catalog, database or object (the reference server's).
const namePattern = `^[A-Za-z_][A-Za-z0-9_.-]{0,127}$`

// bindingSchema is the schema of the binding manifest: which model file
// and model serve each model_ref, and which Doris object each dataset is.
const bindingSchema = `{"type":"object","additionalProperties":false,"required":["api_version","model_sources"],
"properties":{
 "api_version":{"type":"string"},
 "model_sources":{"type":"object","minProperties":1,
  "propertyNames":{"minLength":1,"maxLength":192,"pattern":"` + `^[A-Za-z0-9_.:/@-]+(?:\\+[A-Za-z0-9_.-]+)*$` + `"},
  "additionalProperties":{"type":"object","additionalProperties":false,"required":["model_file","datasets"],
   "properties":{
    "model_file":{"type":"string","minLength":1,"maxLength":1024},
    "model_name":{"$ref":"#/$defs/name"},
    "namespace":{"$ref":"#/$defs/name"},
    "tags":{"type":"array","maxItems":32,"uniqueItems":true,"items":{"$ref":"#/$defs/name"}},
    "route_profile":{"type":"string","minLength":1,"maxLength":192},
    "datasets":{"type":"object","minProperties":1,"maxProperties":256,
     "additionalProperties":{"type":"object","additionalProperties":false,"required":["catalog","database","object","kind"],
      "properties":{"catalog":{"$ref":"#/$defs/name"},"database":{"$ref":"#/$defs/name"},
       "object":{"$ref":"#/$defs/name"},"kind":{"enum":["table","view"]}}}}}}}},
"$defs":{"name":{"type":"string","pattern":"` + `^[A-Za-z_][A-Za-z0-9_.-]{0,127}$` + `"}}}`

// schemas are the compiled schemas of one Load.
type schemas struct {
	model, binding *schema.Schema
}

// compileSchemas compiles both schemas. Every reference in them is local:
// the validator resolves nothing outside the document.
func compileSchemas() (*schemas, error) {
	m, err := schema.Compile(ossieSchema)
	if err != nil {
		return nil, fmt.Errorf("ossie: the embedded Ossie schema does not compile: %w", err)
	}
	b, err := schema.Compile([]byte(bindingSchema))
	if err != nil {
		return nil, fmt.Errorf("ossie: the binding manifest schema does not compile: %w", err)
	}
	return &schemas{model: m, binding: b}, nil
}

// violation returns the first schema violation of doc in a stable order,
// as "at <json pointer>: <keyword>", or "" when doc is valid.
func violation(s *schema.Schema, doc []byte) string {
	all := s.Validate(doc, schema.Limits{}, 0)
	if len(all) == 0 {
		return ""
	}
	// The deepest location is the most specific; ties break by name.
	sort.SliceStable(all, func(i, j int) bool {
		if len(all[i].InstancePath) != len(all[j].InstancePath) {
			return len(all[i].InstancePath) > len(all[j].InstancePath)
		}
		if all[i].InstancePath != all[j].InstancePath {
			return all[i].InstancePath < all[j].InstancePath
		}
		return all[i].Keyword < all[j].Keyword
	})
	path := all[0].InstancePath
	if path == "" {
		path = "/"
	}
	return fmt.Sprintf("at %s: %s", clip(path), all[0].Keyword)
}
