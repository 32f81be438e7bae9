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

// reach walks links from the measure's model m. A last link that is the
// current model's primary entity names that model itself (local
// elements, as in order_id__ordered_at on orders); every other link joins
// to the one other model where the entity is primary or unique.
func (ix *index) reach(m *model, links []string) (*model, []hop, *Error) {
	cur := m
	var hops []hop
	for i, e := range links {
		if i == len(links)-1 && cur.primary == e {
			break
		}
		if cur.entityBy[e] == nil {
			return nil, nil, fail(ReasonGroupByInvalid, "entity "+e+" is not an entity of "+cur.name)
		}
		if cur.entityBy[e].typ == "natural" {
			return nil, nil, fail(ReasonValidityUnsupported, "joins on natural entity "+e+" need validity windows")
		}
		var to *model
		for _, cand := range ix.models {
			if cand == cur {
				continue
			}
			ce := cand.entityBy[e]
			if ce == nil || (ce.typ != "primary" && ce.typ != "unique") {
				continue
			}
			if to != nil {
				return nil, nil, fail(ReasonJoinAmbiguous, "entity "+e+" is primary or unique in more than one semantic model")
			}
			to = cand
		}
		if to == nil {
			return nil, nil, fail(ReasonGroupByInvalid, "no semantic model has "+e+" as a primary or unique entity")
		}
		hops = append(hops, hop{entity: e, from: cur, to: to})
		if len(hops) > maxHops {
			return nil, nil, fail(ReasonGroupByInvalid, "more than two joins to reach "+strings.Join(links, "__"))
		}
		cur = to
	}
	return cur, hops, nil
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
	owner, hops, err := ix.reach(me.model, r.links)
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
