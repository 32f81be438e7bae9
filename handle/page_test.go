package handle_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/doris-mcp/doris-mcp-server/handle"
)

// TestPage walks a list page by page, and refuses a cursor over a list
// that changed, one of another principal and one of another collection.
func TestPage(t *testing.T) {
	s, err := handle.New([]byte("page-test-secret-0123456789abcdef-XYZ"))
	if err != nil {
		t.Fatal(err)
	}
	claims := handle.Claims{Kind: "list-page", Scope: "tools:list", Resource: "mcp://tools", Principal: "alice"}
	list := make([]string, 25)
	for i := range list {
		list[i] = fmt.Sprintf("tool_%02d", i)
	}
	id := func(i int) string { return list[i] }
	var seen []string
	cursor := ""
	for pages := 0; ; pages++ {
		lo, hi, next, err := s.Page(claims, cursor, len(list), 10, id)
		if err != nil {
			t.Fatal(err)
		}
		seen = append(seen, list[lo:hi]...)
		if next == "" {
			if pages != 2 {
				t.Fatalf("%d pages, want 3", pages+1)
			}
			break
		}
		cursor = next
	}
	if len(seen) != 25 || seen[0] != "tool_00" || seen[24] != "tool_24" {
		t.Fatalf("pages served %v", seen)
	}
	_, _, second, _ := s.Page(claims, "", len(list), 10, id)
	changed := append([]string{"tool_00a"}, list...)
	if _, _, _, err := s.Page(claims, second, len(changed), 10, func(i int) string { return changed[i] }); !errors.Is(err, &handle.Error{Reason: handle.ReasonStale}) {
		t.Errorf("cursor over a changed list: %v, want stale", err)
	}
	bob := claims
	bob.Principal = "bob"
	if _, _, _, err := s.Page(bob, second, len(list), 10, id); !errors.Is(err, &handle.Error{Reason: handle.ReasonPrincipalChanged}) {
		t.Errorf("another principal's cursor: %v", err)
	}
	other := claims
	other.Resource = "mcp://prompts"
	if _, _, _, err := s.Page(other, second, len(list), 10, id); !errors.Is(err, &handle.Error{Reason: handle.ReasonWrongResource}) {
		t.Errorf("another collection's cursor: %v", err)
	}
}
