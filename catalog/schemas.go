package catalog

import "fmt"

// The envelope schemas. They are literal too: the shapes Hosts rely on are
// greppable here, and tests validate every envelope the dispatcher emits
// against them.

// domainInputSchema is the input of every domain tool in hierarchical mode:
// {} discovers; child_tool + arguments (+ manifest_version) executes.
const domainInputSchema = `{"type":"object","additionalProperties":false,` +
	`"properties":{"child_tool":{"type":"string","minLength":1,"maxLength":128},` +
	`"arguments":{"type":"object"},` +
	`"manifest_version":{"type":"string","minLength":1,"maxLength":128}},` +
	`"dependentRequired":{"arguments":["child_tool"],"manifest_version":["child_tool"]}}`

// domainOutputSchema is the output of every domain tool: a manifest, a
// child result or an error envelope. It names each branch's required
// members and stays small: it is repeated in all eight tools of
// tools/list.
const domainOutputSchema = `{"type":"object","required":["mode","domain"],` +
	`"properties":{"mode":{"enum":["manifest","result","error"]},"domain":{"type":"string"},` +
	`"error":{"type":"object","required":["code","message","retryable","details"]}},"oneOf":[` +
	`{"properties":{"mode":{"const":"manifest"}},"required":["manifest_version","children"]},` +
	`{"properties":{"mode":{"const":"result"}},"required":["child_tool","data","metadata","warnings"]},` +
	`{"properties":{"mode":{"const":"error"}},"required":["error"]}]}`

// errorEnvelopeBody is the error branch shared by both exposure modes.
const errorEnvelopeBody = `{"properties":{"mode":{"const":"error"},"error":{"type":"object",` +
	`"required":["code","message","retryable","details"],"properties":{"code":{"type":"string"},` +
	`"message":{"type":"string"},"retryable":{"type":"boolean"},` +
	`"details":{"type":"object","required":["rediscover"],"properties":{"rediscover":{"type":"boolean"}}}}}},` +
	`"required":["error"]}`

// flatOutputSchema wraps a child result schema for a flat tool: the result
// envelope or the error envelope.
func flatOutputSchema(childResult string) string {
	return `{"type":"object","required":["mode","domain"],` +
		`"properties":{"mode":{"enum":["result","error"]},"domain":{"type":"string"}},"oneOf":[` +
		`{"properties":{"mode":{"const":"result"},"child_tool":{"type":"string"},"data":` + childResult +
		`,"metadata":{"type":"object"},"warnings":{"type":"array","items":{"type":"string"}}},` +
		`"required":["child_tool","data","metadata","warnings"]},` + errorEnvelopeBody + `]}`
}

const (
	statusSchema   = `{"enum":["success","partial"]}`
	warningsSchema = `{"type":"array","items":{"type":"string"}}`
	evidenceSchema = `{"type":"array","items":{"type":"object"}}`

	querySchema = `{"type":"object","required":["columns","rows","row_count","truncated"],"properties":{` +
		`"columns":{"type":"array","items":{"type":"object","required":["name","type"],` +
		`"properties":{"name":{"type":"string"},"type":{"type":"string"}}}},` +
		`"rows":{"type":"array","items":{"type":"object"}},` +
		`"row_count":{"type":"integer","minimum":0},"truncated":{"type":"boolean"}}}`

	sectionSchema = `{"type":"object","required":["status"],"properties":{` +
		`"status":{"enum":["success","partial","unavailable"]},"data":{},` +
		`"warnings":{"type":"array","items":{"type":"string"}},"source":{"type":"string"},` +
		`"reason_code":{"type":"string"}}}`

	tableContextSchema = `{"type":"object","required":["schema"],"properties":{` +
		`"schema":` + sectionSchema + `,"comments":` + sectionSchema +
		`,"indexes":` + sectionSchema + `,"basic":` + sectionSchema + `}}`
)

// childResultSchema is the schema of a child result of family f whose
// family data is described by data.
func childResultSchema(f Family, data string) string {
	var body, extraRequired, extraProps string
	switch f {
	case Collection:
		body = `{"type":"object","required":["items","next_cursor","truncated"],"properties":{` +
			`"items":{"type":"array","items":` + data + `},` +
			`"next_cursor":{"type":["string","null"]},"truncated":{"type":"boolean"}}}`
	case Detail:
		body = data
	case Diagnostic:
		body = data
		extraRequired = `,"evidence"`
		extraProps = `,"evidence":` + evidenceSchema
	case Query:
		body = querySchema
	case TableContext:
		body = tableContextSchema
		extraProps = `,"evidence":` + evidenceSchema
	default:
		panic(fmt.Sprintf("catalog: unknown family %d", f))
	}
	return `{"type":"object","required":["status","data","warnings","metadata"` + extraRequired + `],` +
		`"properties":{"status":` + statusSchema + `,"data":` + body + `,"warnings":` + warningsSchema +
		`,"metadata":{"type":"object"}` + extraProps + `}}`
}
