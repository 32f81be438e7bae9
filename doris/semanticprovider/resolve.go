package semanticprovider

import (
	"strconv"
	"strings"
)

// Resolution: which model owns an element named by entity links, and
// which joins reach it from a measure's model.

// hop is one join from a model to the model where entity is primary or
// unique.
type hop struct {
	entity string
	from   *model
	to     *model
}

// reach finds the model that owns element r.element along the entity
// links of r, from the measure's model m, as MetricFlow resolves entity
// paths:
//   - a single link that is a linkable entity of m (its primary entity, or
//     a unique or natural one) names m's own elements (order_id__ordered_at
//     on orders), and m's own elements win over joined ones, as MetricFlow
//     satisfies a group-by from the measure's data set before joining;
//   - otherwise each link joins to a model where the entity is primary or
//     unique; several models may share a primary entity (MetricFlow's
//     PrimaryEntityDimensionPairs validation keeps their dimension names
//     apart), so the path is the one whose last model owns the element.
//
// A path with fewer joins wins over a longer one; two paths of the same
// length that both reach the element are ambiguous (MetricFlow would pick
// one by the order of its source nodes, which this provider does not
// guess).
func (ix *index) reach(m *model, r ref) (*model, []hop, *Error) {
	links := r.links
	if len(links) == 0 {
		return m, nil, nil
	}
	if len(links) == 1 && m.localLink(links[0]) && m.owns(r) {
		return m, nil, nil
	}
	var (
		found    *model
		foundHop []hop
		ambig    bool
		firstErr *Error
	)
	note := func(err *Error) {
		if firstErr == nil {
			firstErr = err
		}
	}
	var walk func(cur *model, i int, hops []hop)
	walk = func(cur *model, i int, hops []hop) {
		e := links[i]
		last := i == len(links)-1
		// A later link that is the current model's primary entity names
		// that model itself (customer__region on a model whose primary
		// entity is region): its elements, without another join.
		if last && i > 0 && cur.primary == e && cur.owns(r) {
			if found == nil || len(hops) < len(foundHop) {
				found, foundHop, ambig = cur, append([]hop(nil), hops...), false
			} else if len(hops) == len(foundHop) && found != cur {
				ambig = true
			}
			return
		}
		from := cur.entityBy[e]
		if from == nil {
			note(fail(ReasonGroupByInvalid, "entity "+e+" is not an entity of "+cur.name))
			return
		}
		if from.typ == "natural" {
			note(fail(ReasonValidityUnsupported, "joins on natural entity "+e+" need validity windows"))
			return
		}
		reached := false
		for _, cand := range ix.models {
			if cand == cur {
				continue
			}
			ce := cand.entityBy[e]
			if ce == nil || (ce.typ != "primary" && ce.typ != "unique") {
				continue
			}
			reached = true
			next := append(append([]hop(nil), hops...), hop{entity: e, from: cur, to: cand})
			if len(next) > maxHops {
				note(fail(ReasonGroupByInvalid, "more than two joins to reach "+r.text))
				continue
			}
			if !last {
				walk(cand, i+1, next)
				continue
			}
			if !cand.owns(r) {
				continue
			}
			switch {
			case found == nil || len(next) < len(foundHop):
				found, foundHop, ambig = cand, next, false
			case len(next) == len(foundHop):
				ambig = true
			}
		}
		if !reached {
			note(fail(ReasonGroupByInvalid, "no semantic model has "+e+" as a primary or unique entity"))
		}
	}
	walk(m, 0, nil)
	if ambig {
		return nil, nil, fail(ReasonJoinAmbiguous, r.text+" is reached through more than one semantic model")
	}
	if found == nil {
		if firstErr != nil {
			return nil, nil, firstErr
		}
		return nil, nil, fail(ReasonGroupByInvalid, r.text+" is not reachable from "+m.name)
	}
	return found, foundHop, nil
}

// localLink reports whether entity e prefixes m's own elements: its
// primary entity, or a unique or natural entity (MetricFlow's
// entity_links_for_local_elements).
func (m *model) localLink(e string) bool {
	if m.primary == e {
		return true
	}
	en := m.entityBy[e]
	return en != nil && (en.typ == "primary" || en.typ == "unique" || en.typ == "natural")
}

// owns reports whether m has the element r names, of the kind r asks for.
func (m *model) owns(r ref) bool {
	if r.kind != refEntity && m.dimBy[r.element] != nil {
		return true
	}
	return r.kind != refDimension && r.kind != refTimeDim && r.grain == grainNone && m.entityBy[r.element] != nil
}

// elemKind is what a resolved reference is.
type elemKind int

const (
	elemMetricTime elemKind = iota
	elemDimension
	elemTimeDimension
	elemEntity
)

// element is a reference resolved against one measure: the expression it
// reads and the joins it needs.
type element struct {
	kind  elemKind
	dim   *dimension
	ent   *entity
	owner *model
	hops  []hop
	grain grain
}

// resolve resolves r for measure me. A dimension name wins over an entity
// name; a granularity on a categorical dimension is refused.
func (ix *index) resolve(me *measure, r ref) (element, *Error) {
	if r.element == metricTime && len(r.links) == 0 {
		if r.kind == refEntity {
			return element{}, fail(ReasonGroupByInvalid, "metric_time is not an entity")
		}
		td := me.model.dimBy[me.aggTime]
		g := r.grain
		if g == grainNone {
			g = td.grain
		}
		if g < td.grain {
			return element{}, fail(ReasonGrainUnsupported, "metric_time of "+me.name+" is not finer than "+td.grain.String())
		}
		return element{kind: elemMetricTime, dim: td, owner: me.model, grain: g}, nil
	}
	if len(r.links) == 0 && r.kind != refEntity && r.kind != refName {
		return element{}, fail(ReasonGroupByInvalid, r.text+" needs an entity prefix, as in entity__"+r.element)
	}
	owner, hops, err := ix.reach(me.model, r)
	if err != nil {
		return element{}, err
	}
	if d := owner.dimBy[r.element]; d != nil && r.kind != refEntity && len(r.links) > 0 {
		if d.err != nil {
			return element{}, d.err
		}
		if d.validity {
			return element{}, fail(ReasonValidityUnsupported, "dimension "+d.name+" is an SCD validity dimension")
		}
		if !d.isTime {
			if r.grain != grainNone || r.kind == refTimeDim {
				return element{}, fail(ReasonGroupByInvalid, d.name+" is not a time dimension")
			}
			return element{kind: elemDimension, dim: d, owner: owner, hops: hops}, nil
		}
		g := r.grain
		if g == grainNone {
			g = d.grain
		}
		if g < d.grain {
			return element{}, fail(ReasonGrainUnsupported, d.name+" is defined at "+d.grain.String())
		}
		return element{kind: elemTimeDimension, dim: d, owner: owner, hops: hops, grain: g}, nil
	}
	if e := owner.entityBy[r.element]; e != nil && r.kind != refDimension && r.kind != refTimeDim && r.grain == grainNone {
		if e.err != nil {
			return element{}, e.err
		}
		return element{kind: elemEntity, ent: e, owner: owner, hops: hops}, nil
	}
	return element{}, fail(ReasonGroupByInvalid, r.text+" is not reachable from measure "+me.name)
}

// outName is the output column of a resolved group-by, with the default
// granularity filled in (metric_time becomes metric_time__day).
func outName(r ref, el element) string {
	switch el.kind {
	case elemMetricTime, elemTimeDimension:
		r.grain = el.grain
	default:
		r.grain = grainNone
	}
	return r.dunder()
}

// hopPath is the key of a join path: the entity names walked so far.
func hopPath(hops []hop, n int) string {
	parts := make([]string, n)
	for i := 0; i < n; i++ {
		parts[i] = hops[i].entity
	}
	return strings.Join(parts, "__")
}

// joinSet assigns table aliases to the join paths of one leaf, in order of
// first use: s0 is the measure's model.
type joinSet struct {
	root  *model
	order []string
	alias map[string]string
	hop   map[string]hop
}

func newJoinSet(root *model) *joinSet {
	return &joinSet{root: root, alias: map[string]string{"": "s0"}, hop: map[string]hop{}}
}

// aliasFor adds the joins of hops and returns the alias of the last model.
func (j *joinSet) aliasFor(hops []hop) string {
	for i := range hops {
		k := hopPath(hops, i+1)
		if _, ok := j.alias[k]; !ok {
			j.alias[k] = "s" + strconv.Itoa(len(j.alias))
			j.order = append(j.order, k)
			j.hop[k] = hops[i]
		}
	}
	return j.alias[hopPath(hops, len(hops))]
}
