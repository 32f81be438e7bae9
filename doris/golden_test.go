package doris_test

import "flag"

// updateGoldens rewrites the golden files the tests of this package
// compare against, instead of comparing: go test ./doris -run X -update.
var updateGoldens = flag.Bool("update", false, "rewrite the golden files this package's tests compare against")
