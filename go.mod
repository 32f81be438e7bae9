module github.com/doris-mcp/doris-mcp-server

go 1.26.8

require (
	github.com/go-sql-driver/mysql v1.10.1
	github.com/kaptinlin/jsonschema v0.9.8
)

require (
	filippo.io/edwards25519 v1.2.0 // indirect
	github.com/go-json-experiment/json v0.0.0-20260623181947-01eb4420fa68 // indirect
	github.com/goccy/go-yaml v1.19.2 // indirect
	github.com/kaptinlin/jsonpointer v0.4.28 // indirect
)
