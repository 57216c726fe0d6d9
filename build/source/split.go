package source

import (
	"bytes"
	"errors"
	"io"
	"slices"
	"sync/atomic"

	"go.yaml.in/yaml/v3"

	"github.com/signpost-dev/signpost/internal/fastpath"
)

// A large declaration file is parsed in parts, so that its syntax tree,
// about twelve times the size of its text, is never held whole, and so that
// the parts of one file can be parsed at the same time. Split finds the
// parts by reading the lines at the left margin alone, which is cheap but
// not a YAML parser: an anchor named in one part and used in another, or a
// quoted scalar that runs over the start of an item, make a part fail to
// parse. ParsePart then says so, and the file must be parsed whole instead;
// when every part parses, the values are those of the whole file.

// Part is a piece of a YAML file that parses on its own: whole top-level
// entries, or a run of the items of one top-level block sequence.
type Part struct {
	start, end int // the part's bytes in the file
	// next is the sequence the next part goes on with, and items how many
	// of its items this part holds: a part that parses into another
	// number of them was cut where an item seemed to start but does not.
	next  string
	items int
	// Key is the top-level key whose sequence items the part holds, or ""
	// for a part of whole top-level entries, whose sequences hold their
	// first items.
	Key string
	// First is the index in Key's sequence of the part's first item.
	First int
}

// Offset is the index in the sequence of the top-level key of the part's
// first item: First for the sequence the part continues, else 0.
func (p Part) Offset(key string) int {
	if key == p.Key {
		return p.First
	}
	return 0
}

// SplitYAML cuts data, a YAML file of a top-level mapping whose keys are
// among keys, into parts of about size bytes (see Part). It returns nil
// parts when the file is to be parsed whole (ParseYAML): it is not larger
// than size, or its lines at the left margin are other than keys written
// plainly with their values below them, comments, and the items of their
// sequences. The File it returns has no Value: it finds positions from data.
// In a build without fast paths (package fastpath) every file is parsed
// whole.
func SplitYAML(path, rel string, data []byte, size int, keys []string) (*File, []Part) {
	if !fastpath.Enabled {
		return nil, nil
	}
	return splitYAML(path, rel, data, size, keys)
}

// splitYAML is SplitYAML in a build with fast paths.
func splitYAML(path, rel string, data []byte, size int, keys []string) (*File, []Part) {
	if len(data) <= size || len(data) > MaxFileSize {
		return nil, nil
	}
	parts := split(data, size, keys)
	if len(parts) < 2 {
		return nil, nil
	}
	return &File{Path: path, Rel: rel, data: data, isYAML: true}, parts
}

// entry is a top-level entry of a file being split.
type entry struct {
	key        string
	start      int
	whole      bool  // its value is not a block sequence
	itemIndent int   // the column of its sequence's dashes
	items      []int // where each of its sequence's items starts
}

func split(data []byte, size int, keys []string) []Part {
	var entries []*entry
	var e *entry
	for start := 0; start < len(data); {
		end, next := lineEnd(data, start)
		line := data[start:end]
		lineStart := start
		start = next
		indent := 0
		for indent < len(line) && line[indent] == ' ' {
			indent++
		}
		if indent == len(line) || line[indent] == '#' {
			continue // blank, or a comment
		}
		if indent == 0 && line[0] != '-' {
			key, ok := keyLine(line)
			if !ok || !slices.Contains(keys, key) || slices.ContainsFunc(entries, func(e *entry) bool { return e.key == key }) {
				return nil
			}
			e = &entry{key: key, start: lineStart}
			entries = append(entries, e)
			continue
		}
		if e == nil {
			return nil
		}
		item := isItem(line[indent:])
		switch {
		case e.whole:
			if indent == 0 {
				return nil
			}
		case len(e.items) == 0 && item:
			e.itemIndent = indent
			e.items = append(e.items, lineStart)
		case len(e.items) == 0:
			// A mapping, or any other value: the entry is kept whole.
			if indent == 0 {
				return nil
			}
			e.whole = true
		case indent < e.itemIndent:
			return nil
		case indent == e.itemIndent:
			if !item {
				return nil
			}
			e.items = append(e.items, lineStart)
		}
	}
	if len(entries) == 0 {
		return nil
	}
	// Each part is whole entries up to the first items of a sequence that
	// is too long, then runs of its items, then whole entries again.
	var parts []Part
	cur := Part{start: 0}
	for i, e := range entries {
		end := len(data)
		if i+1 < len(entries) {
			end = entries[i+1].start
		}
		for j, at := range e.items {
			if j > 0 && at-cur.start >= size {
				cur.end, cur.next, cur.items = at, e.key, j-cur.First
				parts = append(parts, cur)
				cur = Part{start: at, Key: e.key, First: j}
			}
		}
		if cur.Key != "" {
			// The rest of the entries start a new part of their own.
			cur.end = end
			parts = append(parts, cur)
			cur = Part{start: end}
		}
	}
	if cur.start < len(data) {
		cur.end = len(data)
		parts = append(parts, cur)
	}
	return parts
}

// lineEnd returns where the line that starts at start ends, and where the
// next one starts. The lines are YAML's: a line break is LF, CR LF, or a
// bare CR, NEL, LS or PS, which the YAML parser also takes for one; a part
// cut at LF alone could hide from the splitter a line that the parser reads
// at the left margin (a key after a comment and a bare CR).
func lineEnd(data []byte, start int) (end, next int) {
	lf := bytes.IndexByte(data[start:], '\n')
	stop := len(data)
	if lf >= 0 {
		stop = start + lf + 1
	}
	// Most lines hold no other break, nor a byte that could start one.
	if seg := data[start:stop]; bytes.IndexByte(seg, '\r') < 0 && bytes.IndexByte(seg, 0xC2) < 0 && bytes.IndexByte(seg, 0xE2) < 0 {
		if lf < 0 {
			return len(data), len(data)
		}
		return start + lf, stop
	}
	for i := start; i < stop; i++ {
		switch c := data[i]; {
		case c == '\n':
			return i, i + 1
		case c == '\r':
			if i+1 < len(data) && data[i+1] == '\n' {
				return i, i + 2
			}
			return i, i + 1
		case c == 0xC2 && i+1 < len(data) && data[i+1] == 0x85:
			return i, i + 2
		case c == 0xE2 && i+2 < len(data) && data[i+1] == 0x80 && (data[i+2] == 0xA8 || data[i+2] == 0xA9):
			return i, i + 3
		}
	}
	return len(data), len(data)
}

// keyLine returns the key of a line that starts a top-level entry whose
// value is written below it: a plain key, a colon, and nothing after it but
// a comment.
func keyLine(line []byte) (string, bool) {
	i := 0
	for i < len(line) && (line[i] >= 'a' && line[i] <= 'z' || line[i] >= 'A' && line[i] <= 'Z' || line[i] == '_' || i > 0 && (line[i] >= '0' && line[i] <= '9' || line[i] == '-')) {
		i++
	}
	if i == 0 || i == len(line) || line[i] != ':' {
		return "", false
	}
	rest := bytes.TrimLeft(line[i+1:], " \t")
	if len(rest) > 0 && (rest[0] != '#' || len(rest) == len(line[i+1:])) {
		return "", false // a value on the key's line, or "key:#..."
	}
	return string(line[:i]), true
}

// isItem reports whether a line, its indentation removed, starts an item
// of a block sequence.
func isItem(s []byte) bool {
	return len(s) == 1 && s[0] == '-' || len(s) > 1 && s[0] == '-' && (s[1] == ' ' || s[1] == '\t')
}

// ParsePart parses a part of the file SplitYAML made, into the top-level
// mapping of its entries, or for a run of items a mapping of Key to them.
// ok is false when the part does not parse on its own, or when anything in
// it is a problem that the file parsed whole would report (a duplicate key,
// too deep a value): the file must then be parsed whole with ParseYAML.
// aliased counts the nodes that aliases bring in, over all the file's
// parts, held to the same limit as one file. Parts may be parsed at once.
func (s *File) ParsePart(p Part, aliased *atomic.Int64) (value map[string]any, ok bool) {
	data := s.data[p.start:p.end]
	text, flows := flowsOf(data)
	value, n, ok := parsePart(text, p.Key, flows)
	if !ok && flows != nil {
		value, n, ok = parsePart(data, p.Key, nil)
	}
	if !ok || aliased.Add(int64(n)) > maxAliasedNodes {
		return nil, false
	}
	if items, _ := value[p.next].([]any); p.next != "" && len(items) != p.items {
		return nil, false
	}
	return value, true
}

// parsePart parses the text of a part: the entries of a mapping, or the
// items of the sequence of key. aliased is the nodes its aliases bring in.
func parsePart(text []byte, key string, flows map[flowAt]*flow) (value map[string]any, aliased int, ok bool) {
	dec := yaml.NewDecoder(bytes.NewReader(text))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil || len(doc.Content) == 0 {
		return nil, 0, false
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return nil, 0, false
	}
	root := doc.Content[0]
	c := yamlConverter{release: !hasAnchor(root), flows: flows}
	switch {
	case key == "" && root.Kind == yaml.MappingNode:
		value, _ = c.convert(root, 0).(map[string]any)
	case key != "" && root.Kind == yaml.SequenceNode:
		value = map[string]any{key: c.convert(root, 1)}
	default:
		return nil, 0, false
	}
	return value, c.aliased, len(c.problems) == 0 && c.placed()
}
