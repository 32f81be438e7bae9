package semanticprovider

import _ "embed" // the demo manifest

//go:embed testdata/demo_semantic_manifest.json
var demoManifest []byte

// DemoManifest returns a copy of the dbt semantic manifest over the demo
// schema (demo.orders, demo.customers, demo.products and the
// demo.v_daily_sales view), for the demo command to write next to its
// configuration and serve with --manifest demo=PATH.
func DemoManifest() []byte {
	return append([]byte(nil), demoManifest...)
}
