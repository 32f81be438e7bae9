package catalog

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/doris-mcp/doris-mcp-server/doris"
)

// TestEveryDeploymentCeilingIsStated: each bound the runtime enforces,
// under the default configuration and under a tight one, is the maximum
// the child's input schema states, and a default above it comes down
// with it.
func TestEveryDeploymentCeilingIsStated(t *testing.T) {
	tight := doris.DefaultConfig()
	tight.MaxResultRows, tight.QueryTimeout = 50, 7*time.Second
	tight.Lakehouse.MaxCatalogObjects, tight.Lakehouse.MaxVariantSampleRows = 5, 3
	tight.Governance.MaxAuditWindowDays = 2
	def := doris.DefaultConfig()
	for name, cfg := range map[string]doris.Config{"default": def, "tight": tight} {
		t.Run(name, func(t *testing.T) {
			ceilings := cfg.Ceilings()
			byChild := ceilingsByChild(ceilings)
			all := func(string, string) bool { return true }
			seen := 0
			for _, d := range domains {
				cd, err := newDomain(d, all, byChild)
				if err != nil {
					t.Fatal(err)
				}
				for _, cc := range cd.children {
					if _, err := cc.inputSchema(); err != nil { // the validator of the lowered schema
						t.Fatal(err)
					}
					for _, c := range cc.ceilings {
						seen++
						var s struct {
							Properties map[string]struct {
								Maximum int             `json:"maximum"`
								Default json.RawMessage `json:"default"`
							} `json:"properties"`
						}
						if err := json.Unmarshal(cc.inputJSON, &s); err != nil {
							t.Fatal(err)
						}
						p := s.Properties[c.Argument]
						var literal struct {
							Properties map[string]struct {
								Maximum int `json:"maximum"`
							} `json:"properties"`
						}
						json.Unmarshal([]byte(cc.Input), &literal)
						want := min(c.Max, literal.Properties[c.Argument].Maximum)
						if p.Maximum != want {
							t.Errorf("%s.%s: schema maximum %d, want %d", c.Child, c.Argument, p.Maximum, want)
						}
						var def int
						if p.Default != nil && json.Unmarshal(p.Default, &def) == nil && def > want {
							t.Errorf("%s.%s: default %d above the maximum %d", c.Child, c.Argument, def, want)
						}
					}
				}
			}
			if seen != len(ceilings) {
				t.Errorf("%d of %d ceilings reached a child", seen, len(ceilings))
			}
		})
	}
}

func TestApplyCeilingRefusesWhatItCannotBound(t *testing.T) {
	schema := []byte(`{"type":"object","properties":{"n":{"type":"string"}}}`)
	if _, err := applyCeiling(schema, doris.Ceiling{Child: "d.c", Argument: "n", Max: 3}); err == nil {
		t.Error("a ceiling on a non-integer property was accepted")
	}
	schema = []byte(`{"type":"object","properties":{"n":{"type":"integer","minimum":5,"maximum":9}}}`)
	if _, err := applyCeiling(schema, doris.Ceiling{Child: "d.c", Argument: "n", Max: 3}); err == nil {
		t.Error("a ceiling below the minimum was accepted")
	}
}
