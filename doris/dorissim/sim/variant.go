package sim

import (
	"bytes"
	"encoding/json"
	"math/big"
	"sort"
	"strings"
)

// VARIANT columns are JSON text upstream. Path access v['a']['b'] becomes
// a JSON path lookup that yields the scalar itself (strings unquoted) or
// the JSON of an object or array, as Doris shows a VARIANT sub-column;
// inside VARIANT_TYPE() it yields the JSON value, whose type is then
// inferred from the data after the query ran (relayVariantTypes).
//
// VARIANT_TYPE(v) is a JSON object from each leaf path (dotted, relative to
// v) to the type Doris infers for the value: tinyint, smallint, int,
// bigint or largeint for integers by magnitude, double for other numbers,
// string, boolean, and array<T> for arrays of one scalar type (jsonb for
// others). JSON nulls and empty objects leave no path, as a null sub-column
// value is not stored. A scalar at the root is reported under the path "".

// rewriteVariant translates path access and VARIANT_TYPE() in sql.
func rewriteVariant(sql string) (string, bool) {
	all := lex(sql)
	idx := sigIndexes(all)
	type span struct {
		open, close int // sig positions of VARIANT_TYPE and its ")"
		label       string
	}
	var calls []span
	for k := 0; k+1 < len(idx); k++ {
		if !all[idx[k]].is("VARIANT_TYPE") || !all[idx[k+1]].isP("(") {
			continue
		}
		depth := 0
		for j := k + 1; j < len(idx); j++ {
			if all[idx[j]].isP("(") {
				depth++
			} else if all[idx[j]].isP(")") {
				if depth--; depth == 0 {
					calls = append(calls, span{k, j, join(all[idx[k] : idx[j]+1])})
					break
				}
			}
		}
	}
	inCall := func(k int) bool {
		for _, s := range calls {
			if k > s.open+1 && k < s.close {
				return true
			}
		}
		return false
	}
	changed := false
	for k := 0; k < len(idx); k++ {
		t := all[idx[k]]
		if !t.isIdent() || (k > 0 && all[idx[k-1]].isP(".")) {
			continue
		}
		last := k + 2*(chainLen(all, idx, k)-1)
		j, subs := last+1, 0
		path := "$"
		for j+2 < len(idx) && all[idx[j]].isP("[") && all[idx[j+2]].isP("]") {
			v := all[idx[j+1]]
			if v.kind == tkString {
				path += `."` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(v.str()) + `"`
			} else if v.kind == tkNumber && subs > 0 {
				path += "[" + v.text + "]"
			} else {
				break
			}
			subs++
			j += 3
		}
		if subs == 0 {
			continue
		}
		col := join(all[idx[k] : idx[last]+1])
		p := quoteString(path)
		expr := "COALESCE(JSON_VALUE(" + col + ", " + p + "), JSON_QUERY(" + col + ", " + p + "))"
		if inCall(k) {
			expr = "JSON_EXTRACT(" + col + ", " + p + ")"
		}
		all[idx[k]].text = expr
		for x := idx[k] + 1; x <= idx[j-1]; x++ {
			all[x].text = ""
		}
		changed = true
		k = j - 1
	}
	for _, s := range calls {
		all[idx[s.open]].text = "CONCAT"
		all[idx[s.open+1]].text = "(" + quoteString(variantTypeMark) + ", "
		all[idx[s.close]].text = ")" + (*conn)(nil).selectAlias(all, idx, s.open, s.close, s.label)
		changed = true
	}
	if !changed {
		return sql, false
	}
	return join(all), len(calls) > 0
}

// relayVariantTypes runs a query whose result carries VARIANT_TYPE()
// values and sends it with each value turned into its type map.
func (c *conn) relayVariantTypes(q, orig string) error {
	r, sent, err := c.upQuery(q, orig, 100000)
	if sent || err != nil {
		return err
	}
	if r.isOK {
		return c.sendOK(r.affected, "")
	}
	rows := make([][]any, len(r.rows))
	for i, row := range r.rows {
		out := make([]any, len(row))
		for j, v := range row {
			switch {
			case v == nil:
			case strings.HasPrefix(*v, variantTypeMark):
				out[j] = variantTypeOf(strings.TrimPrefix(*v, variantTypeMark))
			default:
				out[j] = *v
			}
		}
		rows[i] = out
	}
	return c.sendResult(r.cols, rows)
}

// variantTypeOf is VARIANT_TYPE() of one JSON document.
func variantTypeOf(doc string) string {
	dec := json.NewDecoder(strings.NewReader(doc))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return "{}"
	}
	types := map[string]string{}
	var walk func(prefix string, v any)
	walk = func(prefix string, v any) {
		if obj, ok := v.(map[string]any); ok {
			keys := make([]string, 0, len(obj))
			for k := range obj {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				p := k
				if prefix != "" {
					p = prefix + "." + k
				}
				walk(p, obj[k])
			}
			return
		}
		if t := scalarType(v); t != "" {
			types[prefix] = t
		}
	}
	walk("", v)
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(types) // map keys are encoded sorted
	return strings.TrimSpace(b.String())
}

// scalarType is the inferred type of a leaf value ("" for null).
func scalarType(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case bool:
		return "boolean"
	case string:
		return "string"
	case json.Number:
		return numberType(x)
	case []any:
		elem := ""
		for _, e := range x {
			t := scalarType(e)
			if _, isObj := e.(map[string]any); isObj || strings.HasPrefix(t, "array") || t == "" {
				return "jsonb"
			}
			elem = widerType(elem, t)
			if elem == "" {
				return "jsonb"
			}
		}
		if elem == "" {
			return "jsonb"
		}
		return "array<" + elem + ">"
	}
	return "jsonb"
}

// numberType picks the narrowest Doris type that holds n.
func numberType(n json.Number) string {
	s := n.String()
	if strings.ContainsAny(s, ".eE") {
		return "double"
	}
	i, ok := new(big.Int).SetString(s, 10)
	if !ok {
		return "double"
	}
	for _, b := range []struct {
		bits int
		name string
	}{{8, "tinyint"}, {16, "smallint"}, {32, "int"}, {64, "bigint"}, {128, "largeint"}} {
		lim := new(big.Int).Lsh(big.NewInt(1), uint(b.bits-1))
		if i.Cmp(new(big.Int).Neg(lim)) >= 0 && i.Cmp(lim) < 0 {
			return b.name
		}
	}
	return "double"
}

// widerType is the common type of two element types ("" when none).
func widerType(a, b string) string {
	if a == "" || a == b {
		return b
	}
	rank := map[string]int{"tinyint": 1, "smallint": 2, "int": 3, "bigint": 4, "largeint": 5, "double": 6}
	ra, oka := rank[a]
	rb, okb := rank[b]
	if !oka || !okb {
		return ""
	}
	if ra > rb {
		return a
	}
	return b
}
