package catalog

import (
	"fmt"
	"regexp"
	"strconv"
	"sync"

	"github.com/doris-mcp/doris-mcp-server/doris"
)

// ceilingsByChild groups deployment ceilings by "domain.child".
func ceilingsByChild(cs []doris.Ceiling) map[string][]doris.Ceiling {
	m := map[string][]doris.Ceiling{}
	for _, c := range cs {
		m[c.Child] = append(m[c.Child], c)
	}
	return m
}

// boundedInteger matches a bounded integer property of a compact schema:
// its name, minimum, maximum and optional default.
var boundedInteger = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`"([^"\\]+)":\{"type":"integer","minimum":(-?\d+),"maximum":(\d+)(,"default":(\d+))?`)
})

// applyCeiling lowers the "maximum" (and a "default" above it) of the
// integer property c.Argument of a compact input schema to c.Max, so that
// discovery states the bound this deployment enforces. The contract table
// writes every bounded integer argument as
// "name":{"type":"integer","minimum":N,"maximum":M[,"default":D]; a ceiling
// on anything else is a defect of the ceiling list, reported as an error.
// A ceiling above the contract's own maximum changes nothing.
func applyCeiling(schema []byte, c doris.Ceiling) ([]byte, error) {
	var loc []int
	for _, m := range boundedInteger().FindAllSubmatchIndex(schema, -1) {
		if string(schema[m[2]:m[3]]) != c.Argument {
			continue
		}
		if loc != nil {
			return nil, fmt.Errorf("ceiling on %s: property %q appears more than once", c.Child, c.Argument)
		}
		loc = m[2:] // the offsets below count from the first group
	}
	if loc == nil {
		return nil, fmt.Errorf("ceiling on %s: no bounded integer property %q", c.Child, c.Argument)
	}
	minimum, _ := strconv.Atoi(string(schema[loc[2]:loc[3]]))
	maximum, _ := strconv.Atoi(string(schema[loc[4]:loc[5]]))
	if c.Max >= maximum {
		return schema, nil
	}
	if c.Max < minimum {
		return nil, fmt.Errorf("ceiling on %s.%s: %d is below the minimum %d", c.Child, c.Argument, c.Max, minimum)
	}
	out := make([]byte, 0, len(schema))
	out = append(out, schema[:loc[4]]...)
	out = strconv.AppendInt(out, int64(c.Max), 10)
	if loc[8] >= 0 {
		def, _ := strconv.Atoi(string(schema[loc[8]:loc[9]]))
		out = append(out, schema[loc[5]:loc[8]]...)
		out = strconv.AppendInt(out, int64(min(def, c.Max)), 10)
		out = append(out, schema[loc[9]:]...)
	} else {
		out = append(out, schema[loc[5]:]...)
	}
	return out, nil
}
