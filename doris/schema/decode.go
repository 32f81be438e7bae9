package schema

import (
	"bytes"
	"encoding"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Decode checks doc as Check does under s and decodes it into v with
// encoding/json, member names matched exactly: a member whose name differs
// only in case from a member of the target struct is refused, where
// encoding/json would fill that member with it (CVE-2026-27896 is that
// mistake in an MCP SDK). With s.Known, members the target struct does not
// declare are refused as well. A refusal by the checks is an *Error; a
// value of the wrong type for its target is encoding/json's error.
func Decode(doc []byte, v any, s Strict) error {
	if err := check(doc, s); err != nil {
		return err
	}
	if t := reflect.TypeOf(v); t != nil {
		var path []Step
		if err := exactNames(doc, t, s.Known, &path); err != nil {
			return err
		}
	}
	dec := json.NewDecoder(bytes.NewReader(doc))
	if s.Known {
		dec.DisallowUnknownFields()
	}
	if s.Numbers {
		dec.UseNumber()
	}
	return dec.Decode(v)
}

var (
	unmarshalerType     = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// exactNames walks doc along the type t it is about to be decoded into
// and refuses member names that encoding/json would match only without
// regard to case (and, with known, names it would not match at all).
// Where the type decides for itself (an Unmarshaler, an interface, a
// json.RawMessage) the walk stops: whatever decodes that part later is
// responsible for it.
func exactNames(doc []byte, t reflect.Type, known bool, path *[]Step) *Error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if reflect.PointerTo(t).Implements(unmarshalerType) || reflect.PointerTo(t).Implements(textUnmarshalerType) && KindOf(doc) == String {
		return nil
	}
	var bad *Error
	switch t.Kind() {
	case reflect.Struct:
		if KindOf(doc) != Object {
			return nil
		}
		fields := fieldsOf(t)
		Members(doc, func(name string, val []byte) error {
			if ft, ok := fields.exact[name]; ok {
				*path = append(*path, Step{Name: name, Index: -1})
				bad = exactNames(val, ft, known, path)
				*path = (*path)[:len(*path)-1]
			} else if fields.folds(name) {
				bad = nameError(CaseVariant, "member name differs only in case from a known member", name, *path)
			} else if known {
				bad = nameError(Unknown, "unknown member", name, *path)
			}
			if bad != nil {
				return errStop
			}
			return nil
		})
	case reflect.Map:
		if KindOf(doc) != Object {
			return nil
		}
		et := t.Elem()
		Members(doc, func(name string, val []byte) error {
			*path = append(*path, Step{Name: name, Index: -1})
			bad = exactNames(val, et, known, path)
			*path = (*path)[:len(*path)-1]
			if bad != nil {
				return errStop
			}
			return nil
		})
	case reflect.Slice, reflect.Array:
		if KindOf(doc) != Array {
			return nil
		}
		et := t.Elem()
		Elements(doc, func(i int, val []byte) error {
			*path = append(*path, Step{Index: i})
			bad = exactNames(val, et, known, path)
			*path = (*path)[:len(*path)-1]
			if bad != nil {
				return errStop
			}
			return nil
		})
	}
	return bad
}

func nameError(r Reason, msg, name string, path []Step) *Error {
	return &Error{Reason: r, Msg: msg, Name: name, InName: true, Path: append([]Step(nil), path...), Offset: -1}
}

// structFields are the member names encoding/json matches for a struct
// type, with the type each decodes into.
type structFields struct {
	exact map[string]reflect.Type
	names []string
}

// folds reports whether name matches a member without regard to case, as
// encoding/json matches names.
func (f *structFields) folds(name string) bool {
	for _, n := range f.names {
		if strings.EqualFold(n, name) || string(foldName(n)) == string(foldName(name)) {
			return true
		}
	}
	return false
}

// foldName is encoding/json's case folding of member names: ASCII letters
// upper-cased, other runes as unicode.ToUpper(unicode.ToLower(r)).
func foldName(s string) []byte {
	out := make([]byte, 0, len(s))
	for _, r := range s {
		if r < utf8.RuneSelf {
			if 'a' <= r && r <= 'z' {
				r -= 'a' - 'A'
			}
			out = append(out, byte(r))
			continue
		}
		out = utf8.AppendRune(out, unicode.ToUpper(unicode.ToLower(r)))
	}
	return out
}

var fieldCache sync.Map // reflect.Type -> *structFields

func fieldsOf(t reflect.Type) *structFields {
	if f, ok := fieldCache.Load(t); ok {
		return f.(*structFields)
	}
	f := &structFields{exact: map[string]reflect.Type{}}
	collectFields(t, f)
	fieldCache.Store(t, f)
	return f
}

// collectFields gathers the JSON member names of t's fields, following
// embedded structs as encoding/json does; where two fields would claim
// one name the shallower one is kept (encoding/json's finer rules only
// ever drop names, which makes this walk no weaker).
func collectFields(t reflect.Type, f *structFields) {
	type field struct {
		name  string
		t     reflect.Type
		depth int
	}
	var all []field
	var walk func(t reflect.Type, depth int)
	walk = func(t reflect.Type, depth int) {
		if depth > 16 {
			return
		}
		for i := range t.NumField() {
			sf := t.Field(i)
			tag := sf.Tag.Get("json")
			if tag == "-" {
				continue
			}
			name, _, _ := strings.Cut(tag, ",")
			if sf.Anonymous && name == "" {
				et := sf.Type
				if et.Kind() == reflect.Pointer {
					et = et.Elem()
				}
				if et.Kind() == reflect.Struct {
					walk(et, depth+1)
					continue
				}
			}
			if !sf.IsExported() {
				continue
			}
			if name == "" {
				name = sf.Name
			}
			all = append(all, field{name, sf.Type, depth})
		}
	}
	walk(t, 0)
	slices.SortStableFunc(all, func(a, b field) int { return a.depth - b.depth })
	for _, fl := range all {
		if _, dup := f.exact[fl.name]; !dup {
			f.exact[fl.name] = fl.t
			f.names = append(f.names, fl.name)
		}
	}
}
