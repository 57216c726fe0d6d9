// Package source parses the files of a catalog, YAML and JSON, into decoded
// JSON values that remember where they came from: a JSON pointer into a
// value can be turned back into the line and column of the file, so that
// every diagnostic points at what the author wrote. It bounds what a file may
// cost (size, depth, aliases) before decoding it, and says which problems a
// check finds after the schema are already covered by a schema error
// (Covered), so that one run reports every other one.
package source

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"

	"github.com/signpost-dev/signpost/internal/fastpath"
	"github.com/signpost-dev/signpost/schemas"
)

// Pos is a place in a declaration file. Line and Col are 1-based; zero means
// the place is the file (or folder) as a whole.
type Pos struct {
	File string `json:"file"`
	Line int    `json:"line,omitempty"`
	Col  int    `json:"column,omitempty"`
}

func (p Pos) String() string {
	switch {
	case p.Line == 0:
		return p.File
	case p.Col == 0:
		return fmt.Sprintf("%s:%d", p.File, p.Line)
	}
	return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
}

// Limits on any one input file. They keep hostile or accidental input (a
// multi-gigabyte file, a billion-laughs alias bomb, ten thousand nested
// brackets) from exhausting memory or the stack.
const (
	MaxFileSize     = 16 << 20
	MaxDepth        = 64
	maxAliasedNodes = 100_000
)

// source is one file of the catalog, parsed into a JSON value. It keeps the
// file's bytes, so that a JSON pointer can be turned back into a line and
// column; the file is parsed again for that, only when a diagnostic needs
// it, which keeps the syntax trees of a large catalog out of memory.
type File struct {
	Path  string // as shown to the user: the catalog folder joined with Rel
	Rel   string // slash-separated, relative to the catalog folder
	Value any    // the file's content as decoded JSON values

	data   []byte
	isYAML bool
	// reread and sum replace data once Unload lets it go: positions read
	// the file again, and use it only when its bytes are the ones parsed.
	reread func() ([]byte, error)
	sum    [sha256.Size]byte
	parsed bool // positions are parsed: the bytes are no longer needed

	posOnce sync.Once
	node    *yaml.Node     // document content, for YAML files
	jsonPos map[string]Pos // pointer to position, for JSON files
}

// Problem is a diagnostic not yet tied to a file.
type Problem struct {
	Line, Col int
	Pointer   string // used when Line is 0
	Rule, Msg string
}

// ParseYAML parses data as a single YAML document into JSON values.
func ParseYAML(path, rel string, data []byte) (*File, []Problem) {
	s := &File{Path: path, Rel: rel, data: data, isYAML: true}
	if len(data) > MaxFileSize {
		return s, []Problem{{Line: 1, Col: 1, Rule: "file-size", Msg: fmt.Sprintf("file is %d bytes; the limit is %d: split it into several files", len(data), MaxFileSize)}}
	}
	text, flows := flowsOf(data)
	v, ps, ok := parseYAML(text, flows)
	if !ok {
		v, ps, _ = parseYAML(data, nil)
	}
	s.Value = v
	return s, ps
}

// parseYAML parses text as a single YAML document into JSON values, with
// the values of flows in place of their placeholders (see jsonFlows). ok
// is false when flows were given and text must be parsed as written: it
// does not parse, or a placeholder stands where no value is.
func parseYAML(text []byte, flows map[flowAt]*flow) (v any, ps []Problem, ok bool) {
	redo := flows != nil
	dec := yaml.NewDecoder(bytes.NewReader(text))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, nil, true // empty file: value stays nil
		}
		return nil, []Problem{yamlSyntaxProblem(text, err)}, !redo
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		return nil, []Problem{{Line: extra.Line, Col: extra.Column, Rule: "yaml-syntax", Msg: "more than one YAML document in the file: keep one document per file"}}, !redo
	} else if !errors.Is(err, io.EOF) {
		return nil, []Problem{yamlSyntaxProblem(text, err)}, !redo
	}
	if len(doc.Content) == 0 {
		return nil, nil, true
	}
	// Without an anchor no node is reached twice, so each can be let go
	// once converted: a large file's syntax tree then shrinks as its
	// values grow, instead of the two being held at once.
	c := yamlConverter{release: !hasAnchor(doc.Content[0]), flows: flows}
	v = c.convert(doc.Content[0], 0)
	return v, c.problems, c.placed()
}

// hasAnchor reports whether any node of the tree n defines an anchor.
func hasAnchor(n *yaml.Node) bool {
	stack := []*yaml.Node{n}
	for len(stack) > 0 {
		n, stack = stack[len(stack)-1], stack[:len(stack)-1]
		if n.Anchor != "" {
			return true
		}
		stack = append(stack, n.Content...)
	}
	return false
}

type yamlConverter struct {
	release    bool // drop each node's children once converted
	flows      map[flowAt]*flow
	misplaced  bool       // a flow met where its value cannot simply stand
	inAlias    int        // how many aliases the node being converted is under
	outerAlias *yaml.Node // the outermost of them, where a Problem is reported
	aliased    int        // nodes copied through aliases so far
	problems   []Problem
}

// placed reports whether every flow stood for a value, and each could
// stand there as decoded: otherwise the text must be parsed as written.
func (c *yamlConverter) placed() bool {
	if c.misplaced {
		return false
	}
	for _, f := range c.flows {
		if !f.used {
			return false
		}
	}
	return true
}

// flow returns the decoded value that the placeholder n stands for, if it
// is one. Under an alias, or nested too deep, the value is not used: the
// text is parsed again as written, so that what the parser reports of it
// is reported.
func (c *yamlConverter) flow(n *yaml.Node, depth int) (*flow, bool) {
	f := c.flows[flowAt{n.Line, n.Column}]
	if f == nil || n.Style != 0 || n.Value != "~" {
		return nil, false
	}
	if f.used || c.inAlias > 0 || depth+f.depth > MaxDepth {
		c.misplaced = true
		return nil, false
	}
	f.used = true
	return f, true
}

func (c *yamlConverter) fail(n *yaml.Node, rule, format string, args ...any) {
	c.problems = append(c.problems, Problem{Line: n.Line, Col: n.Column, Rule: rule, Msg: fmt.Sprintf(format, args...)})
}

func (c *yamlConverter) convert(n *yaml.Node, depth int) any {
	if depth > MaxDepth {
		c.fail(n, "too-deep", "nested more than %d levels deep", MaxDepth)
		return nil
	}
	if c.inAlias > 0 {
		// Every node an alias brings in is a copy: count them, so that a
		// few lines of nested aliases cannot expand into billions of values.
		if c.aliased++; c.aliased > maxAliasedNodes {
			if c.aliased == maxAliasedNodes+1 {
				c.fail(c.outerAlias, "alias-limit", "aliases expand to more than %d nodes: write the values out, or use fewer nested aliases", maxAliasedNodes)
			}
			return nil
		}
	}
	switch n.Kind {
	case yaml.AliasNode:
		if n.Alias == nil {
			c.fail(n, "yaml-syntax", "alias to an unknown anchor")
			return nil
		}
		if c.inAlias == 0 {
			c.outerAlias = n
		}
		c.inAlias++
		defer func() { c.inAlias-- }()
		return c.convert(n.Alias, depth)
	case yaml.MappingNode:
		m := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Kind == yaml.AliasNode && k.Alias != nil {
				k = k.Alias
			}
			if k.Kind != yaml.ScalarNode {
				c.fail(k, "yaml-key", "mapping keys must be plain strings")
				continue
			}
			if k.ShortTag() == "!!merge" {
				c.fail(k, "yaml-merge", "merge keys (<<) are not supported: write the fields out")
				continue
			}
			if k.ShortTag() == "!!null" {
				c.fail(k, "yaml-key", "mapping key is null")
				continue
			}
			if _, dup := m[k.Value]; dup {
				c.fail(k, "duplicate-key", "duplicate key %q (first at line %d)", k.Value, firstKeyLine(n, k.Value))
				continue
			}
			m[k.Value] = c.convert(v, depth+1)
			if c.release {
				n.Content[i+1] = nil // the keys stay, for firstKeyLine
			}
		}
		return m
	case yaml.SequenceNode:
		a := make([]any, 0, len(n.Content))
		for i, e := range n.Content {
			a = append(a, c.convert(e, depth+1))
			if c.release {
				n.Content[i] = nil
			}
		}
		return a
	case yaml.ScalarNode:
		if c.flows != nil {
			if f, ok := c.flow(n, depth); ok {
				return f.value
			}
		}
		return c.scalar(n)
	}
	c.fail(n, "yaml-syntax", "unexpected YAML node")
	return nil
}

// firstKeyLine is the line of the first occurrence of key in mapping n.
func firstKeyLine(n *yaml.Node, key string) int {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if k := n.Content[i]; k.Value == key {
			return k.Line
		}
	}
	return 0
}

func (c *yamlConverter) scalar(n *yaml.Node) any {
	switch tag := n.ShortTag(); tag {
	case "!!str", "!!timestamp":
		return n.Value
	case "!!null":
		return nil
	case "!!bool":
		var b bool
		if err := n.Decode(&b); err != nil {
			c.fail(n, "yaml-type", "invalid boolean %q", n.Value)
		}
		return b
	case "!!int", "!!float":
		// Plain decimal numbers, by far the most common, are valid JSON
		// numbers as written; yaml.v3 converts the other forms (0x1F,
		// 1_000, .5, +1).
		if schemas.IsJSONNumber(n.Value) {
			return json.Number(n.Value)
		}
		var v any
		if err := n.Decode(&v); err != nil {
			c.fail(n, "yaml-type", "invalid number %q", n.Value)
			return nil
		}
		switch x := v.(type) {
		case int:
			return json.Number(strconv.Itoa(x))
		case int64:
			return json.Number(strconv.FormatInt(x, 10))
		case uint64:
			return json.Number(strconv.FormatUint(x, 10))
		case float64:
			if math.IsInf(x, 0) || math.IsNaN(x) {
				c.fail(n, "yaml-type", "%s is not a JSON number", n.Value)
				return nil
			}
			return json.Number(strconv.FormatFloat(x, 'g', -1, 64))
		}
		c.fail(n, "yaml-type", "invalid number %q", n.Value)
		return nil
	default:
		c.fail(n, "yaml-type", "unsupported YAML tag %s: quote the value to make it a string", tag)
		return nil
	}
}

// ParseJSON parses data as strict JSON (no duplicate keys, no trailing data)
// into JSON values, numbers as json.Number.
func ParseJSON(path, rel string, data []byte) (*File, []Problem) {
	s := &File{Path: path, Rel: rel, data: data}
	if len(data) > MaxFileSize {
		return s, []Problem{{Line: 1, Col: 1, Rule: "file-size", Msg: fmt.Sprintf("file is %d bytes; the limit is %d", len(data), MaxFileSize)}}
	}
	var v any
	ok := false
	if fastpath.Enabled { // else the token walk decodes every file
		v, ok = decodeJSON(data)
	}
	if !ok {
		// Walk the tokens to find the problem and where it is.
		var p *Problem
		if v, p = walkJSON(data); p != nil {
			return s, []Problem{*p}
		}
	}
	s.Value = v
	return s, nil
}

// walkJSON parses data token by token, and says where the first problem is.
func walkJSON(data []byte) (any, *Problem) {
	p := jsonParser{data: data, dec: json.NewDecoder(bytes.NewReader(data))}
	p.dec.UseNumber()
	v, err := p.value(0, nil)
	if err == nil {
		off := p.start()
		if _, terr := p.dec.Token(); terr != io.EOF {
			err = p.errorAt(off, "unexpected data after the JSON value")
		}
	}
	if err != nil {
		var jp *jsonProblem
		if errors.As(err, &jp) {
			line, col := lineCol(data, jp.offset)
			return nil, &Problem{Line: line, Col: col, Rule: jp.rule, Msg: jp.msg}
		}
		line, col := lineCol(data, p.start())
		return nil, &Problem{Line: line, Col: col, Rule: "json-syntax", Msg: "invalid JSON: " + err.Error()}
	}
	return v, nil
}

// decodeJSON decodes data in one call of json.Decoder.Decode, several times
// faster than walking its tokens, when data is one valid JSON value nested at
// most MaxDepth levels deep and without duplicate keys. ok is false
// otherwise: then the token walk finds the problem.
func decodeJSON(data []byte) (v any, ok bool) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	if d.Decode(&v) != nil {
		return nil, false
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, false // trailing data
	}
	// data is valid JSON; Decode keeps the last of duplicate keys.
	if tooDeep, repeats := jsonShape(data); tooDeep || repeats {
		return nil, false
	}
	return v, true
}

// jsonSpan is where a string's contents are in a file.
type jsonSpan struct{ start, end int }

// jsonShape reports whether valid JSON data nests objects and arrays more
// than MaxDepth levels deep, and whether an object repeats a key. A key
// written with an escape counts as repeated: only its decoded form can tell.
func jsonShape(data []byte) (tooDeep, repeats bool) {
	var keys []jsonSpan // the keys of the objects open
	var opens []int     // for each object or array open, where its keys start in keys
	var last jsonSpan   // the last string
	escaped := false
	key := func(s jsonSpan) []byte { return data[s.start:s.end] }
	for i := 0; i < len(data); i++ {
		switch data[i] {
		case '"':
			start := i + 1
			escaped = false
			for i++; data[i] != '"'; i++ {
				if data[i] == '\\' {
					i++ // the escaped byte, or the u of \uXXXX
					escaped = true
				}
			}
			last = jsonSpan{start, i}
		case ':': // outside strings, each colon follows a key
			if escaped {
				return false, true
			}
			keys = append(keys, last)
		case '{', '[':
			if len(opens) == MaxDepth {
				return true, false
			}
			opens = append(opens, len(keys))
		case '}', ']':
			from := opens[len(opens)-1]
			opens = opens[:len(opens)-1]
			obj := keys[from:]
			keys = keys[:from]
			if len(obj) <= 8 {
				for j := range obj {
					for _, k := range obj[:j] {
						if bytes.Equal(key(k), key(obj[j])) {
							return false, true
						}
					}
				}
				continue
			}
			slices.SortFunc(obj, func(a, b jsonSpan) int { return bytes.Compare(key(a), key(b)) })
			for j := 1; j < len(obj); j++ {
				if bytes.Equal(key(obj[j-1]), key(obj[j])) {
					return false, true
				}
			}
		}
	}
	return false, false
}

type jsonProblem struct {
	offset    int
	rule, msg string
}

func (e *jsonProblem) Error() string { return e.msg }

// jsonParser walks json.Decoder tokens, recording where each value starts
// when record is set (only done when a diagnostic needs a position).
type jsonParser struct {
	data   []byte
	dec    *json.Decoder
	record map[string]Pos
	path   []string
	// at converts the offsets of record, which only grow, into lines and
	// columns: a recording is often one line of megabytes, and converting
	// each offset from the start of the file made parsing it quadratic.
	at cursor
}

// cursor converts increasing byte offsets of one file into 1-based lines
// and columns (in bytes), reading each byte once.
type cursor struct{ off, line, lineStart int }

// lineCol is lineCol(data, off) for an off at least the last one asked.
func (c *cursor) lineCol(data []byte, off int) (int, int) {
	off = min(off, len(data))
	if c.line == 0 || off < c.off {
		*c = cursor{line: 1}
	}
	for i := c.off; i < off; i++ {
		if data[i] == '\n' {
			c.line++
			c.lineStart = i + 1
		}
	}
	c.off = off
	return c.line, off - c.lineStart + 1
}

func (p *jsonParser) errorAt(offset int, msg string) error {
	rule := "json-syntax"
	if strings.HasPrefix(msg, "duplicate key") {
		rule = "duplicate-key"
	} else if strings.HasPrefix(msg, "nested") {
		rule = "too-deep"
	}
	return &jsonProblem{offset: offset, rule: rule, msg: msg}
}

// start returns the offset of the next token: the decoder's offset is just
// past the previous one, so skip separators.
func (p *jsonParser) start() int {
	off := int(p.dec.InputOffset())
	for off < len(p.data) {
		switch p.data[off] {
		case ' ', '\t', '\r', '\n', ',', ':':
			off++
			continue
		}
		break
	}
	return off
}

func (p *jsonParser) value(depth int, tok json.Token) (any, error) {
	off := p.start()
	if tok == nil {
		var err error
		if tok, err = p.dec.Token(); err != nil {
			if err == io.EOF {
				return nil, p.errorAt(off, "unexpected end of JSON")
			}
			return nil, err
		}
	}
	if p.record != nil {
		line, col := p.at.lineCol(p.data, off)
		p.record[Pointer(p.path)] = Pos{Line: line, Col: col}
	}
	d, ok := tok.(json.Delim)
	if !ok {
		return tok, nil
	}
	if depth >= MaxDepth {
		return nil, p.errorAt(off, fmt.Sprintf("nested more than %d levels deep", MaxDepth))
	}
	switch d {
	case '{':
		m := map[string]any{}
		for p.dec.More() {
			koff := p.start()
			kt, err := p.dec.Token()
			if err != nil {
				return nil, err
			}
			k := kt.(string)
			if _, dup := m[k]; dup {
				return nil, p.errorAt(koff, fmt.Sprintf("duplicate key %q", k))
			}
			p.path = append(p.path, k)
			v, err := p.value(depth+1, nil)
			p.path = p.path[:len(p.path)-1]
			if err != nil {
				return nil, err
			}
			m[k] = v
		}
		_, err := p.dec.Token()
		return m, err
	case '[':
		a := []any{}
		for p.dec.More() {
			p.path = append(p.path, strconv.Itoa(len(a)))
			v, err := p.value(depth+1, nil)
			p.path = p.path[:len(p.path)-1]
			if err != nil {
				return nil, err
			}
			a = append(a, v)
		}
		_, err := p.dec.Token()
		return a, err
	}
	return nil, p.errorAt(off, fmt.Sprintf("unexpected %q", d))
}

// lineCol converts a byte offset into a 1-based line and column (in bytes).
func lineCol(data []byte, off int) (int, int) {
	off = min(off, len(data))
	line := 1 + bytes.Count(data[:off], []byte{'\n'})
	col := off - bytes.LastIndexByte(data[:off], '\n')
	return line, col
}

// pos returns where the value at pointer is in the file: the value itself for
// scalars and flow collections, its key for block collections (so an error
// about a whole mapping points at the line that names it). A pointer that
// leads nowhere resolves to its deepest existing ancestor.
func (s *File) Pos(pointer string) Pos {
	if s == nil {
		return Pos{}
	}
	p := Pos{File: s.Path, Line: 1, Col: 1}
	s.posOnce.Do(s.parsePositions)
	segs := SplitPointer(pointer)
	switch {
	case s.node != nil:
		p.Line, p.Col = yamlPos(s.node, segs)
	case s.jsonPos != nil:
		for i := len(segs); i >= 0; i-- {
			if q, ok := s.jsonPos[Pointer(segs[:i])]; ok {
				p.Line, p.Col = q.Line, q.Col
				break
			}
		}
	}
	return p
}

// Unload lets go of the file's value and bytes, which a large catalog holds
// megabytes of after its values are copied out. Positions found later read
// the file again with reread, and fall back to the file's first line when
// its bytes are no longer the ones parsed. Unload must not run while
// another goroutine calls Pos.
func (s *File) Unload(reread func() ([]byte, error)) {
	s.Value = nil
	if s.data == nil || reread == nil {
		return
	}
	if !s.parsed {
		s.sum, s.reread = sha256.Sum256(s.data), reread
	}
	s.data = nil
}

// parsePositions parses the file again, keeping what positions need.
func (s *File) parsePositions() {
	s.parsed = true
	if s.data == nil && s.reread != nil {
		data, err := s.reread()
		if err != nil || sha256.Sum256(data) != s.sum {
			return
		}
		s.data, s.reread = data, nil
	}
	if len(s.data) > MaxFileSize {
		return
	}
	if s.isYAML {
		var doc yaml.Node
		if yaml.Unmarshal(s.data, &doc) == nil && len(doc.Content) > 0 {
			s.node = doc.Content[0]
		}
		return
	}
	jp := jsonParser{data: s.data, dec: json.NewDecoder(bytes.NewReader(s.data)), record: map[string]Pos{}}
	jp.dec.UseNumber()
	_, _ = jp.value(0, nil)
	s.jsonPos = jp.record
}

func yamlPos(n *yaml.Node, segs []string) (int, int) {
	line, col := n.Line, n.Column
	for depth, seg := range segs {
		if depth > MaxDepth {
			break
		}
		for n.Kind == yaml.AliasNode && n.Alias != nil {
			n = n.Alias
		}
		var next, key *yaml.Node
		switch n.Kind {
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				if n.Content[i].Value == seg {
					key, next = n.Content[i], n.Content[i+1]
				}
			}
		case yaml.SequenceNode:
			if i, err := strconv.Atoi(seg); err == nil && i >= 0 && i < len(n.Content) {
				next = n.Content[i]
			}
		}
		if next == nil {
			break
		}
		n = next
		line, col = n.Line, n.Column
		if key != nil && (n.Kind == yaml.MappingNode || n.Kind == yaml.SequenceNode) && n.Style&yaml.FlowStyle == 0 {
			line, col = key.Line, key.Column
		}
	}
	return line, col
}

// Pointer builds an RFC 6901 JSON pointer from unescaped segments.
func Pointer(segs []string) string {
	var b strings.Builder
	for _, s := range segs {
		b.WriteByte('/')
		b.WriteString(EscapePointer(s))
	}
	return b.String()
}

func EscapePointer(s string) string {
	if !strings.ContainsAny(s, "~/") {
		return s
	}
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(s)
}

// SplitPointer splits an RFC 6901 pointer into unescaped segments.
func SplitPointer(p string) []string {
	if p == "" {
		return nil
	}
	segs := strings.Split(strings.TrimPrefix(p, "/"), "/")
	for i, s := range segs {
		if strings.Contains(s, "~") {
			segs[i] = strings.NewReplacer("~1", "/", "~0", "~").Replace(s)
		}
	}
	return segs
}

// JoinPointer appends unescaped segments to a pointer.
func JoinPointer(base string, segs ...string) string {
	return base + Pointer(segs)
}
