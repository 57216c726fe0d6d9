// Package refs knows the structure of a JSON Schema: which keywords hold
// subschemas (KeywordKind), how a local $ref resolves (Resolve), and whether
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
	c.walk(0, 1)
	c.checkAnchors()
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

// Resolve returns the subschema a local $ref names within root ("#",
// "#/json/pointer" with ~0 ~1 and %-escapes, or "#anchor" naming a $anchor)
// and its canonical pointer.
//
// ok is false when ref is not local, does not resolve, or names a value that
// is not an object or a boolean. An anchor is looked up among the schema
// positions of root; when it is defined twice (an error Check
// reports), the definition with the smallest pointer wins. Resolve does
// not check whether a pointer target sits at a schema position;
// Check does.
func Resolve(root any, ref string) (target any, pointer string, ok bool) {
	kind, frag, _ := splitLocalRef(ref)
	switch kind {
	case refToRoot, refToPointer:
		v, _, _, fail := lookupRefPointer(root, frag, false)
		if fail != "" || !isSchemaValue(v) {
			return nil, "", false
		}
		return v, frag, true
	case refToAnchor:
		m, isMap := root.(map[string]any)
		if !isMap {
			return nil, "", false
		}
		c := newRefChecker(m)
		c.walk(0, 1)
		c.checkAnchors()
		id, found := c.anchorNode[frag]
		if !found {
			return nil, "", false
		}
		return c.nodes[id].value, c.pointer(id), true
	}
	return nil, "", false
}

// resolvePointer returns the value at an RFC 6901 pointer in doc.
func resolvePointer(doc any, pointer string) (any, bool) {
	v, _, _, fail := lookupRefPointer(doc, pointer, false)
	if fail != "" {
		return nil, false
	}
	return v, true
}

// refChecker holds the state of one Check call.
type refChecker struct {
	root     map[string]any
	nodes    []refNode // every schema object at a schema position; nodes[0] is the root
	kids     []refKid  // scratch stack of the walk
	anchors  []refAnchor
	problems []Problem
	tooDeep  bool // the depth problem was reported

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
	// Room for a typical tool schema, so the walk rarely grows the slices.
	c := &refChecker{root: root, nodes: make([]refNode, 1, 64), kids: make([]refKid, 0, 32)}
	c.nodes[0] = refNode{value: root, parent: -1}
	return c
}

// walk records the keywords of node id that matter here and descends into its
// subschemas, in a fixed order so that node ids (and so every choice made
// below) do not depend on map iteration order. depth is the level of node id.
func (c *refChecker) walk(id int32, depth int) {
	m := c.nodes[id].value
	start := len(c.kids)
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
		switch KeywordKind(k) {
		case Schema:
			if sm, ok := v.(map[string]any); ok {
				c.kids = append(c.kids, refKid{value: sm, form: segKeyword, kw: k})
			}
		case SchemaMap, Dependencies:
			if mm, ok := v.(map[string]any); ok {
				for name, sv := range mm {
					if sm, ok := sv.(map[string]any); ok {
						c.kids = append(c.kids, refKid{value: sm, form: segMember, kw: k, key: name})
					}
				}
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
	end := len(c.kids)
	if end-start > 1 {
		slices.SortFunc(c.kids[start:end], compareRefKids)
	}
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

func compareRefKids(a, b refKid) int {
	if r := strings.Compare(a.kw, b.kw); r != 0 {
		return r
	}
	if r := strings.Compare(a.key, b.key); r != 0 {
		return r
	}
	return int(a.idx) - int(b.idx)
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
	byName := make(map[string][]refAnchor, len(c.anchors))
	for _, a := range c.anchors {
		byName[a.name] = append(byName[a.name], a)
	}
	for name, sites := range byName {
		if len(sites) == 1 {
			c.anchorNode[name] = sites[0].node
			continue
		}
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

// localRefKind classifies a $ref string.
type localRefKind uint8

const (
	refEmpty     localRefKind = iota // ""
	refExternal                      // does not start with "#"
	refMalformed                     // starts with "#" but cannot be used
	refToRoot                        // "#"
	refToPointer                     // "#/…"
	refToAnchor                      // "#name"
)

// splitLocalRef classifies ref and returns its %-decoded fragment, or for
// refMalformed the rest of a message saying what is wrong.
func splitLocalRef(ref string) (kind localRefKind, frag, fail string) {
	switch {
	case ref == "":
		return refEmpty, "", ""
	case ref[0] != '#':
		return refExternal, "", ""
	}
	frag, ok := percentDecode(ref[1:])
	switch {
	case !ok:
		return refMalformed, "", "has a malformed %-escape; write \"%25\" for a literal \"%\""
	case frag == "":
		return refToRoot, "", ""
	case frag[0] == '/':
		return refToPointer, frag, ""
	case isAnchorName(frag):
		return refToAnchor, frag, ""
	}
	return refMalformed, "", "is neither a JSON pointer fragment (\"#/…\") nor an anchor name (\"#name\"); write one of those"
}

// percentDecode decodes the %XX escapes of a URI fragment.
func percentDecode(s string) (string, bool) {
	n := strings.Count(s, "%")
	if n == 0 {
		return s, true
	}
	b := make([]byte, 0, len(s)) // not len(s)-2*n: a "%" may lack its two digits
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			b = append(b, s[i])
			continue
		}
		if i+2 >= len(s) {
			return "", false
		}
		hi, ok1 := unhex(s[i+1])
		lo, ok2 := unhex(s[i+2])
		if !ok1 || !ok2 {
			return "", false
		}
		b = append(b, hi<<4|lo)
		i += 2
	}
	return string(b), true
}

func unhex(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// isAnchorName reports whether s matches ^[A-Za-z_][A-Za-z0-9._-]*$.
func isAnchorName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'A' <= c && c <= 'Z', 'a' <= c && c <= 'z', c == '_':
		case i > 0 && ('0' <= c && c <= '9' || c == '.' || c == '-'):
		default:
			return false
		}
	}
	return true
}

// refPosition says where a value sits relative to the schema structure.
type refPosition uint8

const (
	posSchema    refPosition = iota // a schema position
	posKeyword                      // the whole value of a keyword that holds schemas (e.g. "/$defs")
	posData                         // inside enum, const, default or examples
	posOther                        // inside any other keyword's value
	posMisshapen                    // inside a keyword that holds schemas, but not at one (wrong type)
)

// lookupRefPointer returns the value at pointer in doc. With classify, it also
// says where that value sits, assuming doc is a schema, and the keyword that
// decides it. On failure, fail says which step failed.
func lookupRefPointer(doc any, pointer string, classify bool) (v any, pos refPosition, kw, fail string) {
	if pointer == "" {
		return doc, posSchema, "", ""
	}
	if pointer[0] != '/' {
		return nil, 0, "", fmt.Sprintf("%q is not a JSON pointer: it must start with \"/\"", pointer)
	}
	v, pos = doc, posSchema
	for i := 1; ; {
		j := strings.IndexByte(pointer[i:], '/')
		if j < 0 {
			j = len(pointer)
		} else {
			j += i
		}
		tok, ok := unescapeRefToken(pointer[i:j])
		if !ok {
			return nil, 0, "", fmt.Sprintf("%q is not a valid JSON pointer token: \"~\" must be followed by 0 or 1", pointer[i:j])
		}
		where := pointer[:i-1]
		if where == "" {
			where = "the schema"
		}
		var next any
		switch x := v.(type) {
		case map[string]any:
			var found bool
			if next, found = x[tok]; !found {
				return nil, 0, "", fmt.Sprintf("%s has no member %q", where, tok)
			}
		case []any:
			n, isIndex := ArrayIndex(tok)
			if !isIndex {
				return nil, 0, "", fmt.Sprintf("%s is an array and %q is not an index", where, tok)
			}
			if n >= len(x) {
				return nil, 0, "", fmt.Sprintf("%s has no element %d (it has %d)", where, n, len(x))
			}
			next = x[n]
		default:
			return nil, 0, "", fmt.Sprintf("%s is %s, so it has no member %q", where, schemas.KindOf(v), tok)
		}
		if classify {
			switch pos {
			case posSchema: // v is an object: a boolean has no members
				kw = tok
				_, isMap := next.(map[string]any)
				_, isList := next.([]any)
				switch KeywordKind(tok) {
				case Schema:
					pos = posIf(isSchemaValue(next), posSchema, posMisshapen)
				case SchemaMap, Dependencies:
					pos = posIf(isMap, posKeyword, posMisshapen)
				case SchemaList:
					pos = posIf(isList, posKeyword, posMisshapen)
				case Items:
					pos = posIf(isList, posKeyword, posIf(isSchemaValue(next), posSchema, posMisshapen))
				case Data:
					pos = posData
				default:
					pos = posOther
				}
			case posKeyword:
				pos = posIf(isSchemaValue(next), posSchema, posMisshapen)
			}
		}
		v = next
		if j == len(pointer) {
			return v, pos, kw, ""
		}
		i = j + 1
	}
}

func posIf(cond bool, yes, no refPosition) refPosition {
	if cond {
		return yes
	}
	return no
}

func unescapeRefToken(s string) (string, bool) {
	if strings.IndexByte(s, '~') < 0 {
		return s, true
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '~' {
			b.WriteByte(s[i])
			continue
		}
		if i+1 == len(s) || (s[i+1] != '0' && s[i+1] != '1') {
			return "", false
		}
		if s[i+1] == '0' {
			b.WriteByte('~')
		} else {
			b.WriteByte('/')
		}
		i++
	}
	return b.String(), true
}

// ArrayIndex parses an RFC 6901 array index: "0" or digits without a leading zero.
func ArrayIndex(s string) (int, bool) {
	if s == "" || len(s) > 9 || (len(s) > 1 && s[0] == '0') {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
		n = n*10 + int(s[i]-'0')
	}
	return n, true
}

func isSchemaValue(v any) bool {
	switch v.(type) {
	case map[string]any, bool:
		return true
	}
	return false
}
