package metadata_test

import (
	"testing"

	"github.com/doris-mcp/doris-mcp-server/doris/doristest"
)

func TestMain(m *testing.M) { doristest.Main(m, "doris/metadata") }
