package guard_test

import (
	"errors"
	"fmt"

	"github.com/doris-mcp/doris-mcp-server/guard"
)

func ExampleCheck() {
	st, err := guard.Check("SELECT c_name FROM customer WHERE c_custkey = %(key)s")
	fmt.Println(st.Kind, st.Keyword, st.Params, err)

	_, err = guard.Check("SELECT 1; COMMIT; DROP TABLE customer")
	var ge *guard.Error
	if errors.As(err, &ge) {
		fmt.Println(ge.Reason, ge.Pos)
	}
	fmt.Println(err)
	// Output:
	// Select SELECT [key] <nil>
	// MULTIPLE_STATEMENTS 10
	// guard: only one statement is allowed at byte 10
}

func ExampleBind() {
	st, err := guard.Bind(
		"SELECT * FROM orders WHERE o_custkey = %(key)s AND o_comment LIKE %(pattern)s",
		map[string]any{"key": 42, "pattern": "%it's%"},
	)
	fmt.Println(st.SQL, st.Kind, err)

	_, err = guard.Bind("SELECT %(a)s", map[string]any{"a": 1, "b": 2})
	fmt.Println(err)
	// Output:
	// SELECT * FROM orders WHERE o_custkey = 42 AND o_comment LIKE '%it''s%' Select <nil>
	// guard: parameters has a key that no placeholder uses at byte 0
}

func ExampleSessionControl() {
	fmt.Println(guard.SessionControl("SET query_timeout = 30"))
	fmt.Println(guard.SessionControl("SET query_timeout = 30; DROP TABLE t"))
	// Output:
	// true
	// false
}
