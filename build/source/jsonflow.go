package source

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode/utf8"
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
	nodes int // how many values it holds, itself included
	used  bool
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
// has no such escape), no character
// YAML does not allow or reads as a line break, no object that repeats a
// key (YAML reports it), no deeper nesting than a file allows, and numbers
// YAML reads as numbers (1e999 is a string to it).
func decodeFlow(j []byte) *flow {
	if !yamlSafeJSON(j) || !json.Valid(j) {
		return nil
	}
	if tooDeep, repeats := jsonShape(j); tooDeep || repeats {
		return nil
	}
	d := json.NewDecoder(bytes.NewReader(j))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil {
		return nil
	}
	f := &flow{value: v}
	if !f.measure(v, 0) {
		return nil
	}
	return f
}

// yamlSafeJSON reports whether j holds only characters that YAML reads in
// a double-quoted scalar as JSON does: no tab, no backslash before u or /,
// and
// none of the characters YAML does not print or reads as line breaks
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

// measure counts the values of v into f, and reports whether each of its
// numbers is one YAML reads as a number.
func (f *flow) measure(v any, depth int) bool {
	f.nodes++
	switch x := v.(type) {
	case map[string]any:
		f.depth = max(f.depth, depth+1)
		for _, e := range x {
			if !f.measure(e, depth+1) {
				return false
			}
		}
	case []any:
		f.depth = max(f.depth, depth+1)
		for _, e := range x {
			if !f.measure(e, depth+1) {
				return false
			}
		}
	case json.Number:
		s := string(x)
		if _, err := strconv.ParseInt(s, 0, 64); err == nil {
			return true
		}
		if _, err := strconv.ParseUint(s, 0, 64); err == nil {
			return true
		}
		_, err := strconv.ParseFloat(s, 64)
		return err == nil
	}
	return true
}
