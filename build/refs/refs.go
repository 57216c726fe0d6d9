// Package refs knows the structure of a JSON Schema: which keywords hold
// subschemas (KeywordKind), how a local $ref resolves (Resolver), and whether
// a tool's schema is self-contained (Check).
//
// Check makes sure that a tool's JSON Schema is self-contained: every $ref
// names a schema inside the same document, nothing depends on dynamic scope or
// embedded resources, and no chain of references loops without consuming any
// part of the instance (a validator following it would never terminate).
//
// The checker walks the document once, following only schema positions (the
// members of keywords that hold subschemas), records every schema object as a
// node, then resolves the references and looks for cycles among the
// "in-place" edges with Tarjan's algorithm. Everything is linear in the size of
// the document, apart from sorting.
package refs

import (
	"cmp"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/signpost-dev/signpost/build/source"
	"github.com/signpost-dev/signpost/schemas"
)

// Problem is one reason a JSON Schema is not self-contained.
type Problem struct {
	Pointer string // RFC 6901 pointer of the offending value inside the schema (e.g. "/properties/a/$ref")
	Message string // one line: what is wrong and what to do
}

// MaxDepth is how many levels of nested schemas Check
// walks; the root is level 1. Deeper schemas are reported, not checked.
const MaxDepth = 256

// cycleChainShown is how many schemas of a long $ref cycle a message lists at
// each end before eliding the middle.
const cycleChainShown = 4

// Kind says what a keyword of a schema object holds.
type Kind uint8

const (
	Other        Kind = iota // not a keyword that holds subschemas (or unknown)
	Data                     // an instance value: enum, const, default, examples
	Schema                   // one subschema
	SchemaMap                // an object whose members are subschemas
	SchemaList               // an array of subschemas
	Items                    // a subschema, or (draft-07) an array of them
	Dependencies             // draft-07: members that are objects are subschemas
)

// KeywordKind returns what keyword k of a schema object holds.
func KeywordKind(k string) Kind {
	switch k {
	case "properties", "patternProperties", "dependentSchemas", "$defs", "definitions":
		return SchemaMap
	case "prefixItems", "allOf", "anyOf", "oneOf":
		return SchemaList
	case "items":
		return Items
	case "additionalProperties", "additionalItems", "unevaluatedProperties", "unevaluatedItems",
		"contains", "propertyNames", "not", "if", "then", "else", "contentSchema":
		return Schema
	case "dependencies":
		return Dependencies
	case "enum", "const", "default", "examples":
		return Data
	}
	return Other
}

// inPlaceKeyword reports whether the subschemas under keyword k apply to the
// same instance as the schema holding them (so recursion through them does
// not consume anything).
func inPlaceKeyword(k string) bool {
	switch k {
	case "allOf", "anyOf", "oneOf", "not", "if", "then", "else", "dependentSchemas", "dependencies":
		return true
	}
	return false
}

// Check checks every reference in schema (a decoded JSON value:
// map[string]any, []any, string, json.Number, bool, nil; the root of a tool's
// input or output schema) and returns the problems sorted by Pointer.
//
// A root that is not an object has no references and no problems.
func Check(schema any) []Problem {
	root, ok := schema.(map[string]any)
	if !ok {
		return nil
	}
	c := newRefChecker(root)
	c.indexAnchors()
	c.checkRefs()
	c.checkCycles()
	slices.SortFunc(c.problems, func(a, b Problem) int {
		if r := strings.Compare(a.Pointer, b.Pointer); r != 0 {
			return r
		}
		return strings.Compare(a.Message, b.Message)
	})
	return c.problems
}

// refChecker holds the state of one Check call, or the anchor index of a
// Resolver.
type refChecker struct {
	root      map[string]any
	unordered bool      // walk in map order: only the anchor index is wanted, and it does not depend on the order
	nodes     []refNode // every schema object at a schema position; nodes[0] is the root
	kids      []refKid  // scratch stack of the walk
	kws       []string  // scratch stack of the walk: keywords holding subschemas
	names     []string  // scratch: member names being sorted
	anchors   []refAnchor
	problems  []Problem
	tooDeep   bool // the depth problem was reported

	anchorNode map[string]int32 // anchor name -> node, filled by checkAnchors
	byIdentity []nodeIdentity   // nodes sorted by map identity, filled on demand
	refTarget  []int32          // node -> node its $ref names, or -1
}

// refNode is a schema object and where it sits: under keyword kw of its
// parent, possibly at member key or element idx of that keyword's value.
type refNode struct {
	value  map[string]any
	parent int32
	form   uint8 // segKeyword, segMember or segElement
	kw     string
	key    string
	idx    int32
	hasRef bool
	ref    any
}

const (
	segKeyword = iota // /kw
	segMember         // /kw/key
	segElement        // /kw/idx
)

type refKid struct {
	value map[string]any
	form  uint8
	kw    string
	key   string
	idx   int32
}

// refAnchor is a plain-name fragment declared by keyword kw of a node.
type refAnchor struct {
	name string
	node int32
	kw   string
}

func newRefChecker(root map[string]any) *refChecker {
	// Room for a typical tool schema, so the walk rarely grows the slices:
	// the GitHub and Kubernetes MCP servers' schemas have 5 objects at the
	// median and 11 at the 90th percentile, the generated catalogs' 16 and
	// 23. Room for many more cost a build of 10,000 tools 0.1 s of zeroing.
	c := &refChecker{root: root, nodes: make([]refNode, 1, 16), kids: make([]refKid, 0, 16)}
	c.nodes[0] = refNode{value: root, parent: -1}
	return c
}

// indexAnchors walks the schema and fills anchorNode: the one rule of what
// an anchor names, for Check and Resolver alike.
func (c *refChecker) indexAnchors() {
	c.walk(0, 1)
	c.checkAnchors()
}

// walk records the keywords of node id that matter here and descends into its
// subschemas, in a fixed order (keyword, then member name or element index)
// so that node ids, and so every choice made below, do not depend on map
// iteration order; unordered skips the sorting. depth is the level of node
// id.
func (c *refChecker) walk(id int32, depth int) {
	m := c.nodes[id].value
	kwStart := len(c.kws)
	for k, v := range m {
		switch k {
		case "$ref":
			c.nodes[id].hasRef = true
			c.nodes[id].ref = v
			continue
		case "$anchor":
			c.anchorKeyword(id, k, v)
			continue
		case "$dynamicAnchor":
			name, _ := v.(string)
			if isAnchorName(name) {
				c.anchors = append(c.anchors, refAnchor{name, id, k})
				c.report(id, k, fmt.Sprintf("$dynamicAnchor is not supported: tool schemas resolve statically; write \"$anchor\": %q instead", name))
			} else {
				c.report(id, k, "$dynamicAnchor is not supported: tool schemas resolve statically; name the schema with $anchor instead")
			}
			continue
		case "$recursiveAnchor":
			c.report(id, k, "$recursiveAnchor (draft 2019-09) is not supported: tool schemas resolve statically; remove it")
			continue
		case "$dynamicRef":
			c.report(id, k, "$dynamicRef is not supported: tool schemas resolve statically; use $ref with a local pointer such as \"#/$defs/…\"")
			continue
		case "$recursiveRef":
			c.report(id, k, "$recursiveRef (draft 2019-09) is not supported: tool schemas resolve statically; use $ref with a local pointer such as \"#\"")
			continue
		case "$id":
			c.idKeyword(id, v)
			continue
		}
		if kind := KeywordKind(k); kind != Other && kind != Data {
			c.kws = append(c.kws, k)
		}
	}
	kws := c.kws[kwStart:]
	if !c.unordered {
		slices.Sort(kws)
	}
	start := len(c.kids)
	for _, k := range kws {
		switch v := m[k]; KeywordKind(k) {
		case Schema:
			if sm, ok := v.(map[string]any); ok {
				c.kids = append(c.kids, refKid{value: sm, form: segKeyword, kw: k})
			}
		case SchemaMap, Dependencies:
			if mm, ok := v.(map[string]any); ok {
				c.memberKids(k, mm)
			}
		case SchemaList:
			c.listKids(k, v)
		case Items:
			if sm, ok := v.(map[string]any); ok {
				c.kids = append(c.kids, refKid{value: sm, form: segKeyword, kw: k})
			} else {
				c.listKids(k, v)
			}
		}
	}
	c.kws = c.kws[:kwStart]
	end := len(c.kids)
	c.nodes = slices.Grow(c.nodes, end-start)
	for i := start; i < end; i++ {
		k := c.kids[i]
		if depth >= MaxDepth {
			if !c.tooDeep {
				c.tooDeep = true
				c.problems = append(c.problems, Problem{
					Pointer: c.pointer(id) + kidSegment(k.form, k.kw, k.key, k.idx),
					Message: fmt.Sprintf("schema nested deeper than %d levels; flatten it, for example by moving parts under $defs", MaxDepth),
				})
			}
			break
		}
		kid := int32(len(c.nodes))
		c.nodes = append(c.nodes, refNode{value: k.value, parent: id, form: k.form, kw: k.kw, key: k.key, idx: k.idx})
		c.walk(kid, depth+1)
	}
	c.kids = c.kids[:start]
}

// memberKids adds the members of mm, the value of keyword k, that are schema
// objects, in the order of their names.
func (c *refChecker) memberKids(k string, mm map[string]any) {
	c.kids = slices.Grow(c.kids, len(mm))
	if c.unordered || len(mm) < 2 {
		for name, sv := range mm {
			if sm, ok := sv.(map[string]any); ok {
				c.kids = append(c.kids, refKid{value: sm, form: segMember, kw: k, key: name})
			}
		}
		return
	}
	// Sorting the names and looking each up again is cheaper than sorting
	// the kids.
	nameStart := len(c.names)
	c.names = slices.Grow(c.names, len(mm))
	for name := range mm {
		c.names = append(c.names, name)
	}
	names := c.names[nameStart:]
	slices.Sort(names)
	for _, name := range names {
		if sm, ok := mm[name].(map[string]any); ok {
			c.kids = append(c.kids, refKid{value: sm, form: segMember, kw: k, key: name})
		}
	}
	clear(names) // let the strings go
	c.names = c.names[:nameStart]
}

func (c *refChecker) listKids(k string, v any) {
	list, ok := v.([]any)
	if !ok {
		return
	}
	for i, sv := range list {
		if sm, ok := sv.(map[string]any); ok {
			c.kids = append(c.kids, refKid{value: sm, form: segElement, kw: k, idx: int32(i)})
		}
	}
}

func (c *refChecker) anchorKeyword(id int32, k string, v any) {
	name, ok := v.(string)
	switch {
	case !ok:
		c.report(id, k, fmt.Sprintf("$anchor must be a string, not %s", schemas.KindOf(v)))
	case !isAnchorName(name):
		c.report(id, k, fmt.Sprintf("$anchor %q is not a plain name: start with a letter or \"_\", then use only letters, digits, \".\", \"_\" and \"-\"", name))
	default:
		c.anchors = append(c.anchors, refAnchor{name, id, k})
	}
}

// idKeyword accepts $id at the root only. A draft-07 anchor ("$id": "#name")
// below the root is still registered as an anchor, so that the $refs using it
// resolve and the only problem reported is the one to fix.
func (c *refChecker) idKeyword(id int32, v any) {
	s, _ := v.(string)
	anchor := ""
	if strings.HasPrefix(s, "#") && isAnchorName(s[1:]) {
		anchor = s[1:]
		c.anchors = append(c.anchors, refAnchor{anchor, id, "$id"})
	}
	switch {
	case id == 0:
	case anchor != "":
		c.report(id, "$id", fmt.Sprintf("$id %q is a draft-07 anchor; write \"$anchor\": %q instead", s, anchor))
	default:
		c.report(id, "$id", "$id is only allowed at the root: an embedded $id starts a new schema resource and changes what the $refs inside it resolve against; remove it and name the schema with $anchor if a $ref needs it")
	}
}

// checkAnchors reports duplicate anchors (all but the one with the smallest
// pointer) and fills anchorNode.
func (c *refChecker) checkAnchors() {
	if len(c.anchors) == 0 {
		return
	}
	c.anchorNode = make(map[string]int32, len(c.anchors))
	var dups map[string][]refAnchor // only the names defined more than once
	for i, a := range c.anchors {
		if _, seen := c.anchorNode[a.name]; !seen {
			c.anchorNode[a.name] = int32(i)
			continue
		}
		if dups == nil {
			dups = map[string][]refAnchor{}
		}
		dups[a.name] = append(dups[a.name], a)
	}
	for name, i := range c.anchorNode {
		if sites, dup := dups[name]; dup {
			dups[name] = append(sites, c.anchors[i])
			continue
		}
		c.anchorNode[name] = c.anchors[i].node
	}
	for name, sites := range dups {
		ptrs := make([]string, len(sites))
		order := make([]int, len(sites))
		for i, s := range sites {
			ptrs[i] = c.pointer(s.node) + "/" + source.EscapePointer(s.kw)
			order[i] = i
		}
		slices.SortFunc(order, func(a, b int) int { return strings.Compare(ptrs[a], ptrs[b]) })
		first := order[0]
		c.anchorNode[name] = sites[first].node
		for _, i := range order[1:] {
			c.problems = append(c.problems, Problem{
				Pointer: ptrs[i],
				Message: fmt.Sprintf("anchor %q is already defined at %s; anchors must be unique within a schema", name, ptrs[first]),
			})
		}
	}
}

// checkRefs resolves every $ref and fills refTarget.
func (c *refChecker) checkRefs() {
	c.refTarget = make([]int32, len(c.nodes))
	for id := range c.nodes {
		c.refTarget[id] = -1
		if c.nodes[id].hasRef {
			c.checkRef(int32(id))
		}
	}
}

func (c *refChecker) checkRef(id int32) {
	raw := c.nodes[id].ref
	ref, ok := raw.(string)
	if !ok {
		c.report(id, "$ref", fmt.Sprintf("$ref must be a string such as \"#/$defs/name\", not %s", schemas.KindOf(raw)))
		return
	}
	kind, frag, fail := splitLocalRef(ref)
	switch kind {
	case refEmpty:
		c.report(id, "$ref", "$ref is empty; write \"#\" to refer to the root schema")
		return
	case refExternal:
		if strings.HasPrefix(ref, "/") {
			if _, _, _, f := lookupRefPointer(c.root, ref, false); f == "" {
				c.report(id, "$ref", fmt.Sprintf("$ref %q is a relative URI, not a local reference; write %q", ref, "#"+ref))
				return
			}
		}
		c.report(id, "$ref", fmt.Sprintf("external $ref %q: a tool schema must be self-contained; copy the definition under $defs and point at it with #/$defs/…", ref))
		return
	case refMalformed:
		c.report(id, "$ref", fmt.Sprintf("$ref %q %s", ref, fail))
		return
	case refToAnchor:
		target, found := c.anchorNode[frag]
		if !found {
			c.report(id, "$ref", fmt.Sprintf("$ref %q does not resolve: no $anchor %q in this schema", ref, frag))
			return
		}
		c.refTarget[id] = target
		return
	}
	v, pos, kw, fail := lookupRefPointer(c.root, frag, true)
	switch {
	case fail != "":
		c.report(id, "$ref", fmt.Sprintf("$ref %q does not resolve: %s", ref, fail))
	case !isSchemaValue(v):
		c.report(id, "$ref", fmt.Sprintf("$ref %q resolves to %s, not to a schema (an object or a boolean)", ref, schemas.KindOf(v)))
	case pos == posKeyword:
		c.report(id, "$ref", fmt.Sprintf("$ref %q names the whole %q keyword, not a schema; point at one of its entries, such as \"#%s/…\"", ref, kw, frag))
	case pos == posData:
		c.report(id, "$ref", fmt.Sprintf("$ref %q points into the %q value, which is data, not a schema; define the schema under $defs and point at it with #/$defs/…", ref, kw))
	case pos == posOther:
		c.report(id, "$ref", fmt.Sprintf("$ref %q points under %q, which is not a keyword that holds schemas; move the definition under $defs and point at it with #/$defs/…", ref, kw))
	case pos == posMisshapen:
		c.report(id, "$ref", fmt.Sprintf("$ref %q points inside %q but not at one of its subschemas, because the value there has the wrong type; point at a schema under $defs instead", ref, kw))
	default:
		m, isMap := v.(map[string]any)
		if !isMap {
			return // a boolean schema: nothing to follow
		}
		target := c.nodeOf(m)
		switch {
		case target >= 0:
			c.refTarget[id] = target
		case !c.tooDeep: // below the depth limit, it is reported already
			c.report(id, "$ref", fmt.Sprintf("$ref %q points at a value that is not in a schema position; move the definition under $defs and point at it with #/$defs/…", ref))
		}
	}
}

// nodeIdentity pairs a node with the identity of its map.
type nodeIdentity struct {
	addr uintptr
	node int32
}

// nodeOf returns the node whose value is m, or -1. The maps of a decoded
// document are distinct and stay put while c.root holds them, so their
// addresses identify them.
func (c *refChecker) nodeOf(m map[string]any) int32 {
	if c.byIdentity == nil {
		c.byIdentity = make([]nodeIdentity, len(c.nodes))
		for i, n := range c.nodes {
			c.byIdentity[i] = nodeIdentity{reflect.ValueOf(n.value).Pointer(), int32(i)}
		}
		slices.SortFunc(c.byIdentity, func(a, b nodeIdentity) int { return cmp.Compare(a.addr, b.addr) })
	}
	addr := reflect.ValueOf(m).Pointer()
	i, found := slices.BinarySearchFunc(c.byIdentity, addr, func(e nodeIdentity, a uintptr) int { return cmp.Compare(e.addr, a) })
	if !found {
		return -1
	}
	return c.byIdentity[i].node
}

// checkCycles reports each strongly connected component of the graph of
// in-place edges (a $ref, or an in-place applicator such as allOf) that
// contains a cycle, once, at the $ref that closes the shortest cycle through
// the component's $ref target with the smallest pointer.
func (c *refChecker) checkCycles() {
	n := len(c.nodes)
	anyRef := false
	for _, t := range c.refTarget {
		if t >= 0 {
			anyRef = true
			break
		}
	}
	if !anyRef {
		return // every cycle goes through a $ref
	}

	// In-place children in compressed sparse row form: kids of v are
	// adj[off[v]:off[v+1]], in node order.
	ints := make([]int32, 6*n+1) // one allocation for the arrays below
	off, ints := ints[:n+1], ints[n+1:]
	for id := 1; id < n; id++ {
		if inPlaceKeyword(c.nodes[id].kw) {
			off[c.nodes[id].parent+1]++
		}
	}
	for v := 0; v < n; v++ {
		off[v+1] += off[v]
	}
	adj := make([]int32, off[n])
	fill, ints := ints[:n], ints[n:]
	copy(fill, off)
	for id := 1; id < n; id++ {
		if inPlaceKeyword(c.nodes[id].kw) {
			p := c.nodes[id].parent
			adj[fill[p]] = int32(id)
			fill[p]++
		}
	}
	degree := func(v int32) int32 {
		d := off[v+1] - off[v]
		if c.refTarget[v] >= 0 {
			d++
		}
		return d
	}
	edge := func(v, e int32) int32 {
		if e < off[v+1]-off[v] {
			return adj[off[v]+e]
		}
		return c.refTarget[v]
	}

	// Tarjan's strongly connected components, iteratively.
	index, ints := ints[:n], ints[n:] // 0: not visited yet
	low, ints := ints[:n], ints[n:]
	comp, ints := ints[:n], ints[n:] // strongly connected component in cyclic, or -1
	onStack := ints[:n]              // 1 while on the stack
	var stack []int32
	type frame struct{ v, e int32 }
	var calls []frame
	next := int32(1)
	var cyclic [][]int32
	for s := int32(0); s < int32(n); s++ {
		if index[s] != 0 {
			continue
		}
		index[s], low[s] = next, next
		next++
		stack = append(stack, s)
		onStack[s] = 1
		calls = append(calls, frame{s, 0})
		for len(calls) > 0 {
			f := &calls[len(calls)-1]
			v := f.v
			if f.e < degree(v) {
				w := edge(v, f.e)
				f.e++
				if index[w] == 0 {
					index[w], low[w] = next, next
					next++
					stack = append(stack, w)
					onStack[w] = 1
					calls = append(calls, frame{w, 0})
				} else if onStack[w] != 0 {
					low[v] = min(low[v], index[w])
				}
				continue
			}
			calls = calls[:len(calls)-1]
			if len(calls) > 0 {
				u := calls[len(calls)-1].v
				low[u] = min(low[u], low[v])
			}
			if low[v] != index[v] {
				continue
			}
			i := len(stack) - 1
			for stack[i] != v {
				i--
			}
			members := stack[i:]
			stack = stack[:i]
			for _, w := range members {
				onStack[w] = 0
				comp[w] = -1
			}
			if len(members) > 1 || c.refTarget[v] == v {
				for _, w := range members {
					comp[w] = int32(len(cyclic))
				}
				cyclic = append(cyclic, slices.Clone(members))
			}
		}
	}
	if len(cyclic) == 0 {
		return
	}

	prev := index // BFS: predecessor+1, 0 = not reached
	clear(prev)
	for ci, members := range cyclic {
		// Start at the $ref target inside the component with the smallest pointer.
		start, startPtr := int32(-1), ""
		for _, u := range members {
			t := c.refTarget[u]
			if t < 0 || comp[t] != int32(ci) {
				continue
			}
			if p := c.pointer(t); start < 0 || p < startPtr || (p == startPtr && t < start) {
				start, startPtr = t, p
			}
		}
		// Shortest path from start to a node whose $ref names start.
		queue := []int32{start}
		prev[start] = start + 1
		closing := int32(-1)
		for qi := 0; qi < len(queue); qi++ {
			u := queue[qi]
			if c.refTarget[u] == start {
				closing = u
				break
			}
			for e := int32(0); e < degree(u); e++ {
				w := edge(u, e)
				if comp[w] == int32(ci) && prev[w] == 0 {
					prev[w] = u + 1
					queue = append(queue, w)
				}
			}
		}
		if closing < 0 {
			continue // cannot happen: start reaches, inside its component, the $ref naming it
		}
		var path []int32 // closing, ..., start
		for u := closing; ; u = prev[u] - 1 {
			path = append(path, u)
			if u == start {
				break
			}
		}
		for _, u := range queue {
			prev[u] = 0
		}
		chain := []string{"#" + startPtr}
		for i := len(path) - 1; i > 0; i-- {
			// path[i] -> path[i-1]: show the schemas reached through a
			// $ref; an applicator step (allOf/0) adds nothing to read.
			from, to := path[i], path[i-1]
			if c.refTarget[from] == to {
				chain = append(chain, "#"+c.pointer(to))
			}
		}
		chain = append(chain, "#"+startPtr)
		if len(chain) > 2*cycleChainShown+1 {
			elided := len(chain) - 2*cycleChainShown
			chain = append(append(chain[:cycleChainShown:cycleChainShown], fmt.Sprintf("… %d more …", elided)), chain[len(chain)-cycleChainShown:]...)
		}
		c.problems = append(c.problems, Problem{
			Pointer: c.pointer(closing) + "/$ref",
			Message: "$ref cycle that never reaches a value: " + strings.Join(chain, " → "),
		})
	}
}

// report records a problem with keyword kw of node id.
func (c *refChecker) report(id int32, kw, msg string) {
	c.problems = append(c.problems, Problem{Pointer: c.pointer(id) + "/" + source.EscapePointer(kw), Message: msg})
}

// pointer returns the RFC 6901 pointer of node id.
func (c *refChecker) pointer(id int32) string {
	if id <= 0 {
		return ""
	}
	var buf [32]int32
	chain := buf[:0]
	for u := id; u > 0; u = c.nodes[u].parent {
		chain = append(chain, u)
	}
	var b strings.Builder
	for i := len(chain) - 1; i >= 0; i-- {
		n := &c.nodes[chain[i]]
		b.WriteString(kidSegment(n.form, n.kw, n.key, n.idx))
	}
	return b.String()
}

func kidSegment(form uint8, kw, key string, idx int32) string {
	switch form {
	case segMember:
		return "/" + source.EscapePointer(kw) + "/" + source.EscapePointer(key)
	case segElement:
		return "/" + source.EscapePointer(kw) + "/" + strconv.Itoa(int(idx))
	}
	return "/" + source.EscapePointer(kw)
}
