package semanticprovider

import (
	"regexp"
	"strings"
	"sync"
)

// metricTime is the virtual time dimension that stands for each measure's
// aggregation time dimension.
const metricTime = "metric_time"

// maxHops is how many joins MetricFlow allows between a measure's semantic
// model and the model that owns a dimension.
const maxHops = 2

var (
	reName     = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,127}$`) })
	reQName    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`) })
	reFuncName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,63}$`) })
)

// validElementName reports whether s can name an entity or dimension in the
// double-underscore scheme: a plain name without "__" in it.
func validElementName(s string) bool {
	return reName().MatchString(s) && !strings.Contains(s, "__")
}

// refKind is what a reference names.
type refKind int

const (
	refName      refKind = iota // a plain name, resolved by lookup
	refDimension                // Dimension('…')
	refTimeDim                  // TimeDimension('…', 'grain')
	refEntity                   // Entity('…')
	refMetric                   // Metric('…')
)

// ref is a parsed group-by, order-by or filter reference: entity links, an
// element name and an optional granularity, as in customer__region__name or
// metric_time__month.
type ref struct {
	kind       refKind
	links      []string
	element    string
	grain      grain
	descending bool
	text       string // the reference as written, for messages
}

// dunder returns the output column name of r under MetricFlow's naming
// scheme: links, element and grain joined by "__".
func (r ref) dunder() string {
	parts := append(append([]string(nil), r.links...), r.element)
	if r.grain != grainNone {
		parts = append(parts, r.grain.String())
	}
	return strings.Join(parts, "__")
}

// parseDunder splits a name such as order_id__ordered_at__month into links,
// element and grain. A trailing part that names a granularity is the grain,
// as in MetricFlow; a date part (extract_year) is refused.
func parseDunder(s string, kind refKind) (ref, *Error) {
	r := ref{kind: kind, text: s}
	if !reQName().MatchString(s) || len(s) > 256 {
		return r, fail(ReasonGroupByInvalid, "not a valid element name")
	}
	parts := strings.Split(s, "__")
	for _, p := range parts {
		if p == "" {
			return r, fail(ReasonGroupByInvalid, "empty part in "+s)
		}
	}
	if len(parts) > 1 {
		last := parts[len(parts)-1]
		if g, known := parseGrain(last); known {
			if g == grainNone {
				return r, fail(ReasonGrainUnsupported, "sub-second granularity "+last)
			}
			r.grain = g
			parts = parts[:len(parts)-1]
		} else if strings.HasPrefix(last, "extract_") {
			return r, fail(ReasonGrainUnsupported, "date parts are not supported")
		}
	}
	r.element = parts[len(parts)-1]
	r.links = parts[:len(parts)-1]
	if len(r.links) > maxHops+1 {
		return r, fail(ReasonGroupByInvalid, "too many entity links in "+s)
	}
	return r, nil
}

// parseItem reads one group_by or order_by item: a plain dunder name or a
// call Dimension(…), TimeDimension(…), Entity(…) or Metric(…), with the
// methods .grain(…) and .descending(…). For order_by a leading "-" means
// descending.
func parseItem(s string, orderBy bool) (ref, *Error) {
	reason := ReasonGroupByInvalid
	if orderBy {
		reason = ReasonOrderByInvalid
	}
	s = strings.TrimSpace(s)
	desc := false
	if orderBy && strings.HasPrefix(s, "-") {
		desc = true
		s = strings.TrimSpace(s[1:])
	}
	if s == "" {
		return ref{}, fail(reason, "empty item")
	}
	var r ref
	var err *Error
	if strings.ContainsAny(s, "('\"") {
		p := callParser{src: s}
		r, err = p.call()
		if err == nil && !p.done() {
			err = fail(ReasonWhereInvalid, "unexpected text after the reference")
		}
	} else {
		r, err = parseDunder(s, refName)
	}
	if err != nil {
		if err.Reason == ReasonWhereInvalid || err.Reason == ReasonGroupByInvalid {
			err.Reason = reason
		}
		return r, err
	}
	r.descending = r.descending || desc
	return r, nil
}

// callParser reads the small Jinja subset MetricFlow uses inside {{ }} and
// in saved queries: Name('arg', key='v', entity_path=['a','b']).method('x').
type callParser struct {
	src string
	pos int
}

func (p *callParser) done() bool {
	p.space()
	return p.pos == len(p.src)
}

func (p *callParser) space() {
	for p.pos < len(p.src) && strings.IndexByte(" \t\r\n", p.src[p.pos]) >= 0 {
		p.pos++
	}
}

func (p *callParser) word() string {
	p.space()
	start := p.pos
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		if c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') {
			p.pos++
			continue
		}
		break
	}
	return p.src[start:p.pos]
}

func (p *callParser) punct(c byte) bool {
	p.space()
	if p.pos < len(p.src) && p.src[p.pos] == c {
		p.pos++
		return true
	}
	return false
}

func (p *callParser) str() (string, bool) {
	p.space()
	if p.pos >= len(p.src) || (p.src[p.pos] != '\'' && p.src[p.pos] != '"') {
		return "", false
	}
	q := p.src[p.pos]
	end := strings.IndexByte(p.src[p.pos+1:], q)
	if end < 0 {
		return "", false
	}
	s := p.src[p.pos+1 : p.pos+1+end]
	if strings.ContainsAny(s, "\\{}") {
		return "", false
	}
	p.pos += end + 2
	return s, true
}

// call parses one reference call.
func (p *callParser) call() (ref, *Error) {
	bad := func(msg string) (ref, *Error) { return ref{text: p.src}, fail(ReasonWhereInvalid, msg) }
	name := p.word()
	var kind refKind
	switch name {
	case "Dimension":
		kind = refDimension
	case "TimeDimension":
		kind = refTimeDim
	case "Entity":
		kind = refEntity
	case "Metric":
		kind = refMetric
	default:
		return bad("unknown reference " + name)
	}
	if !p.punct('(') {
		return bad("expected ( after " + name)
	}
	first, ok := p.str()
	if !ok {
		return bad("expected a quoted name in " + name)
	}
	r, err := parseDunder(first, kind)
	if err != nil {
		return r, err
	}
	r.kind = kind
	var path []string
	positional := 1
	for p.punct(',') {
		p.space()
		save := p.pos
		key := p.word()
		if key != "" && p.punct('=') {
			switch key {
			case "time_granularity_name", "time_granularity":
				s, ok := p.str()
				if !ok {
					return bad("expected a quoted granularity")
				}
				if err := setGrain(&r, s); err != nil {
					return r, err
				}
			case "entity_path":
				if path, ok = p.strList(); !ok {
					return bad("expected a list of quoted entity names")
				}
			case "descending":
				if r.descending, ok = p.boolean(); !ok {
					return bad("expected True or False")
				}
			case "group_by":
				return r, fail(ReasonWhereInvalid, "metric filters are not supported")
			default:
				return bad("unknown argument " + key)
			}
			continue
		}
		p.pos = save
		s, ok := p.str()
		if !ok || kind != refTimeDim || positional != 1 {
			return bad("unexpected argument in " + name)
		}
		positional++
		if err := setGrain(&r, s); err != nil {
			return r, err
		}
	}
	if !p.punct(')') {
		return bad("expected ) to close " + name)
	}
	for p.punct('.') {
		m := p.word()
		if !p.punct('(') {
			return bad("expected ( after ." + m)
		}
		switch m {
		case "grain":
			s, ok := p.str()
			if !ok {
				return bad("expected a quoted granularity")
			}
			if err := setGrain(&r, s); err != nil {
				return r, err
			}
		case "descending":
			if r.descending, ok = p.boolean(); !ok {
				return bad("expected True or False")
			}
		case "date_part":
			return r, fail(ReasonGrainUnsupported, "date parts are not supported")
		default:
			return bad("unknown method ." + m)
		}
		if !p.punct(')') {
			return bad("expected ) after ." + m)
		}
	}
	for _, e := range path {
		if !validElementName(e) {
			return bad("invalid entity in entity_path")
		}
	}
	if len(path) > 0 {
		r.links = append(path, r.links...)
		if len(r.links) > maxHops+1 {
			return r, fail(ReasonGroupByInvalid, "too many entity links")
		}
	}
	if kind == refEntity && r.grain != grainNone {
		return bad("an entity has no granularity")
	}
	return r, nil
}

func (p *callParser) strList() ([]string, bool) {
	if !p.punct('[') {
		return nil, false
	}
	var out []string
	if p.punct(']') {
		return out, true
	}
	for {
		s, ok := p.str()
		if !ok || len(out) >= maxHops+1 {
			return nil, false
		}
		out = append(out, s)
		if p.punct(']') {
			return out, true
		}
		if !p.punct(',') {
			return nil, false
		}
	}
}

func (p *callParser) boolean() (bool, bool) {
	switch p.word() {
	case "True", "true":
		return true, true
	case "False", "false":
		return false, true
	}
	return false, false
}

func setGrain(r *ref, s string) *Error {
	g, known := parseGrain(strings.ToLower(s))
	if !known {
		return fail(ReasonGrainUnsupported, "unknown granularity "+s)
	}
	if g == grainNone {
		return fail(ReasonGrainUnsupported, "sub-second granularity "+s)
	}
	r.grain = g
	return nil
}
