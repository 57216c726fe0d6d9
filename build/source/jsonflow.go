package source

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode/utf8"

	"github.com/signpost-dev/signpost/internal/fastpath"
)

// Catalogs often write a schema as one line of JSON after its key
// ("inputSchema: {"type": "object", ...}"), and the YAML parser reads such a
// flow collection a character at a time: it was most of the time spent
// parsing a large catalog. JSON on one line that YAML reads the same way
// is decoded as JSON instead: the parser sees a null in its place, which
// the converter replaces with the decoded value. The YAML parse of the
// file tells which placeholders stand where a value is: a line inside a
// block scalar or a quoted string is not one, and then the file is parsed
// again as written.

// flowAt is where a placeholder is in the text the parser reads: its
// 1-based line and column.
type flowAt struct{ line, col int }

// flow is a value written as JSON on one line, decoded.
type flow struct {
	value any
	depth int // how deep its arrays and objects nest: 0 for none
	used  bool
}

// flowsOf is jsonFlows of data in a build with fast paths; in one without
// (package fastpath), YAML parses every value.
func flowsOf(data []byte) ([]byte, map[flowAt]*flow) {
	if !fastpath.Enabled {
		return data, nil
	}
	return jsonFlows(data)
}

// jsonFlows finds the lines of data of the form "key: JSON" or "- key:
// JSON", whose JSON is an object or array that YAML reads as JSON does. It
// returns a copy of data with each such JSON replaced by "~", and the
// decoded values at their places; nil when there is none.
func jsonFlows(data []byte) ([]byte, map[flowAt]*flow) {
	var text []byte
	var flows map[flowAt]*flow
	copied := 0 // data before this offset is in text
	line := 0
	for start := 0; start < len(data); {
		line++
		end := bytes.IndexByte(data[start:], '\n')
		next := start + end + 1
		if end < 0 {
			end, next = len(data)-start, len(data)
		}
		l := data[start : start+end]
		if i := jsonValueStart(l); i >= 0 {
			j := bytes.TrimRight(l[i:], " \r")
			if f := decodeFlow(j); f != nil {
				if flows == nil {
					flows = map[flowAt]*flow{}
					text = make([]byte, 0, len(data))
				}
				flows[flowAt{line, i + 1}] = f
				text = append(text, data[copied:start+i]...)
				text = append(text, '~')
				copied = start + i + len(j)
			}
		}
		start = next
	}
	if flows == nil {
		return data, nil
	}
	return append(text, data[copied:]...), flows
}

// jsonValueStart returns where the value of a line "key: {" or "- key: ["
// starts, indentation allowed, with a plain key; -1 for any other line.
func jsonValueStart(l []byte) int {
	i := 0
	for i < len(l) && l[i] == ' ' {
		i++
	}
	if i+1 < len(l) && l[i] == '-' && l[i+1] == ' ' {
		for i += 2; i < len(l) && l[i] == ' '; i++ {
		}
	}
	k := i
	for i < len(l) && (l[i] >= 'a' && l[i] <= 'z' || l[i] >= 'A' && l[i] <= 'Z' || l[i] == '_' || i > k && (l[i] >= '0' && l[i] <= '9' || l[i] == '-')) {
		i++
	}
	if i == k || i+2 >= len(l) || l[i] != ':' || l[i+1] != ' ' {
		return -1
	}
	for i++; i < len(l) && l[i] == ' '; i++ {
	}
	if i < len(l) && (l[i] == '{' || l[i] == '[') {
		return i
	}
	return -1
}

// decodeFlow decodes j when it is JSON that YAML reads as the same value:
// nil otherwise, for YAML to read. Beyond being valid JSON, it has no tab,
// no \u escape (YAML rejects the halves of a surrogate pair), no \/ (YAML
// has no such escape), no character YAML does not allow or reads as a line
// break, no object that repeats a key (YAML reports it), no deeper nesting
// than a file allows, and numbers YAML reads as numbers (1e999 is a string
// to it).
func decodeFlow(j []byte) *flow {
	if !yamlSafeJSON(j) {
		return nil
	}
	p := flowParser{data: j}
	v, ok := p.value(0)
	if !ok || p.skipSpace() != len(j) {
		return nil
	}
	return &flow{value: v, depth: p.depth}
}

// flowParser decodes JSON as encoding/json does into any, numbers as
// json.Number, in one pass that also measures its depth,
// and refuses what decodeFlow leaves to YAML: a repeated key, nesting
// deeper than a file allows, a number YAML reads as a string. Its input
// has passed yamlSafeJSON: no \u escape, no control character.
type flowParser struct {
	data  []byte
	i     int
	depth int
}

func (p *flowParser) skipSpace() int {
	for p.i < len(p.data) && p.data[p.i] == ' ' {
		p.i++
	}
	return p.i
}

// value decodes the value at p.i, nested depth arrays and objects deep.
func (p *flowParser) value(depth int) (any, bool) {
	if depth > MaxDepth {
		return nil, false
	}
	if p.skipSpace() == len(p.data) {
		return nil, false
	}
	switch c := p.data[p.i]; {
	case c == '{':
		p.depth = max(p.depth, depth+1)
		return p.object(depth)
	case c == '[':
		p.depth = max(p.depth, depth+1)
		return p.array(depth)
	case c == '"':
		return p.str()
	case c == '-' || c >= '0' && c <= '9':
		return p.number()
	}
	rest := p.data[p.i:]
	switch {
	case bytes.HasPrefix(rest, []byte("true")):
		p.i += 4
		return true, true
	case bytes.HasPrefix(rest, []byte("false")):
		p.i += 5
		return false, true
	case bytes.HasPrefix(rest, []byte("null")):
		p.i += 4
		return nil, true
	}
	return nil, false
}

func (p *flowParser) object(depth int) (any, bool) {
	p.i++ // {
	m := map[string]any{}
	if p.skipSpace() < len(p.data) && p.data[p.i] == '}' {
		p.i++
		return m, true
	}
	for {
		if p.skipSpace() == len(p.data) || p.data[p.i] != '"' {
			return nil, false
		}
		key, ok := p.str()
		if !ok {
			return nil, false
		}
		if p.skipSpace() == len(p.data) || p.data[p.i] != ':' {
			return nil, false
		}
		p.i++
		v, ok := p.value(depth + 1)
		if _, repeated := m[key]; !ok || repeated {
			return nil, false
		}
		m[key] = v
		if more, ok := p.separator('}'); !more {
			return m, ok
		}
	}
}

func (p *flowParser) array(depth int) (any, bool) {
	p.i++ // [
	a := []any{}
	if p.skipSpace() < len(p.data) && p.data[p.i] == ']' {
		p.i++
		return a, true
	}
	for {
		v, ok := p.value(depth + 1)
		if !ok {
			return nil, false
		}
		a = append(a, v)
		if more, ok := p.separator(']'); !more {
			return a, ok
		}
	}
}

// separator reads what follows a member of an object or an element of an
// array: a comma, and more follow; or end, which closes it (more is false
// and ok true); or anything else, and the JSON is refused.
func (p *flowParser) separator(end byte) (more, ok bool) {
	if p.skipSpace() == len(p.data) {
		return false, false
	}
	switch p.data[p.i] {
	case ',':
		p.i++
		return true, true
	case end:
		p.i++
		return false, true
	}
	return false, false
}

// str decodes the string at p.i; its escapes are JSON's but \u and \/,
// which yamlSafeJSON refuses.
func (p *flowParser) str() (string, bool) {
	start := p.i + 1
	end := start
	for end < len(p.data) && p.data[end] != '"' && p.data[end] != '\\' {
		end++
	}
	if end < len(p.data) && p.data[end] == '"' {
		p.i = end + 1
		return string(p.data[start:end]), true
	}
	b := append([]byte(nil), p.data[start:end]...)
	for i := end; i < len(p.data); i++ {
		switch c := p.data[i]; c {
		case '"':
			p.i = i + 1
			return string(b), true
		case '\\':
			if i++; i == len(p.data) {
				return "", false
			}
			switch e := p.data[i]; e {
			case '"', '\\':
				b = append(b, e)
			case 'b':
				b = append(b, '\b')
			case 'f':
				b = append(b, '\f')
			case 'n':
				b = append(b, '\n')
			case 'r':
				b = append(b, '\r')
			case 't':
				b = append(b, '\t')
			default:
				return "", false
			}
		default:
			b = append(b, c)
		}
	}
	return "", false
}

// number reads a JSON number that YAML also reads as a number.
func (p *flowParser) number() (any, bool) {
	start := p.i
	digits := func() int {
		n := 0
		for p.i < len(p.data) && p.data[p.i] >= '0' && p.data[p.i] <= '9' {
			p.i++
			n++
		}
		return n
	}
	if p.data[p.i] == '-' {
		p.i++
	}
	switch n := digits(); {
	case n == 0, n > 1 && p.data[p.i-n] == '0':
		return nil, false
	}
	plain := p.i-start <= 18 // an integer of up to 18 digits fits int64
	if p.i < len(p.data) && p.data[p.i] == '.' {
		p.i++
		if digits() == 0 {
			return nil, false
		}
		plain = false
	}
	if p.i < len(p.data) && (p.data[p.i] == 'e' || p.data[p.i] == 'E') {
		p.i++
		if p.i < len(p.data) && (p.data[p.i] == '+' || p.data[p.i] == '-') {
			p.i++
		}
		if digits() == 0 {
			return nil, false
		}
		plain = false
	}
	n := json.Number(p.data[start:p.i])
	if !plain && !yamlNumber(string(n)) {
		return nil, false
	}
	return n, true
}

// yamlNumber reports whether YAML reads the JSON number s as a number: as
// an integer, or as a float within range (1e999 is a string to it).
func yamlNumber(s string) bool {
	if _, err := strconv.ParseInt(s, 0, 64); err == nil {
		return true
	}
	if _, err := strconv.ParseUint(s, 0, 64); err == nil {
		return true
	}
	_, err := strconv.ParseFloat(s, 64)
	return err == nil
}

// yamlSafeJSON reports whether j holds only characters that YAML reads in
// a double-quoted scalar as JSON does: no tab, no backslash before u or /,
// and none of the characters YAML does not print or reads as line breaks
// (DEL, C1 controls with NEL, U+2028, U+2029, U+FEFF, U+FFFE, U+FFFF).
func yamlSafeJSON(j []byte) bool {
	for i := 0; i < len(j); {
		c := j[i]
		if c < utf8.RuneSelf {
			if c < 0x20 || c == 0x7f || c == '\\' && i+1 < len(j) && (j[i+1] == 'u' || j[i+1] == '/') {
				return false
			}
			if c == '\\' {
				i++ // the escaped byte: neither u nor /
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(j[i:])
		switch {
		case r == utf8.RuneError && size == 1, r >= 0x80 && r <= 0x9f, r == 0x2028, r == 0x2029, r == 0xfeff, r == 0xfffe, r == 0xffff:
			return false
		}
		i += size
	}
	return true
}
