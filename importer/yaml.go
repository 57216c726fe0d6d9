package importer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/signpost-dev/signpost/build/secrets"
	"github.com/signpost-dev/signpost/internal/english"
	"github.com/signpost-dev/signpost/schemas"
	"go.yaml.in/yaml/v3"
)

// ---------------------------------------------------------------------------
// YAML rendering

// sourceElementPointer is the JSON pointer a source gets for an array
// element or a registry list entry.
var sourceElementPointer = regexp.MustCompile(`#/(servers/)?[0-9]+$`)

// serversYAML renders the imported servers as one declaration file; see
// ServersYAML.
func serversYAML(servers []importedServer) ([]byte, error) {
	type counts struct{ docs, imported, noRemotes, invalid int }
	var files []string
	perFile := map[string]*counts{}
	seq := &yaml.Node{Kind: yaml.SequenceNode}
	for _, s := range servers {
		file := sourceElementPointer.ReplaceAllString(s.Source, "")
		c := perFile[file]
		if c == nil {
			c = &counts{}
			perFile[file] = c
			files = append(files, file)
		}
		c.docs++
		switch s.Status {
		case Imported:
			c.imported++
		case NoRemotes:
			c.noRemotes++
		default:
			c.invalid++
		}
		if s.Status != Imported {
			continue
		}
		if s.Server == nil {
			return nil, fmt.Errorf("%s: imported without a server", s.Source)
		}
		item, err := cardYAMLNode(s.Server, cardServer)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s.Source, err)
		}
		item.HeadComment = "# source: " + yamlCommentText(s.Source)
		if s.Reason != "" {
			item.HeadComment += "\n# import notes: " + yamlCommentText(s.Reason)
		}
		seq.Content = append(seq.Content, item)
	}
	if len(seq.Content) == 0 {
		seq.Style = yaml.FlowStyle
	}

	header := []string{
		"# MCP servers imported by `signpost import server` from MCP registry",
		"# server.json documents. Each one is published as a server card: review",
		"# the import notes, then edit freely.",
	}
	if len(files) == 0 {
		header = append(header, "# No documents were imported.")
	}
	for _, f := range files {
		c := perFile[f]
		header = append(header, fmt.Sprintf("# %s: %d %s, %d imported, %d not publishable, %d invalid",
			yamlCommentText(f), c.docs, english.Plural(c.docs, "document", "documents"), c.imported, c.noRemotes, c.invalid))
	}
	return declarationFile(header, "servers", seq)
}

// declarationFile encodes a declaration file of imports: the header
// comment, then key (tools or servers) holding seq, indented by two.
func declarationFile(header []string, key string, seq *yaml.Node) ([]byte, error) {
	root := &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{yamlStringNode(key), seq}}
	doc := &yaml.Node{Kind: yaml.DocumentNode, HeadComment: strings.Join(header, "\n"), Content: []*yaml.Node{root}}
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// yamlCommentText makes s safe inside a one-line YAML comment, redacted.
func yamlCommentText(s string) string {
	// A comment is written out as the declarations are: no credential an
	// input held, wherever the comment quotes it from (a title, a note on
	// a field, a recorded annotation), is repeated in it.
	s = secrets.Redact(s)
	if strings.ContainsFunc(s, func(r rune) bool { return r == '\n' || r == '\r' || !unicode.IsPrint(r) && r != ' ' }) {
		return strconv.Quote(s)
	}
	return s
}

// cardObject says which card object a map is, which fixes its key order.
type cardObject int

const (
	cardAny cardObject = iota // keys sorted
	cardServer
	cardRepository
	cardIcon
	cardRemote
	cardInput
	cardInputMap // variables: sorted keys, Input values
	cardWords    // a list of strings, rendered on one line
)

// cardKeyOrder is the order of the known fields of each card object; other
// keys follow, sorted.
var cardKeyOrder = map[cardObject][]string{
	cardServer:     {"name", "version", "description", "title", "websiteUrl", "repository", "icons", "remotes", "_meta"},
	cardRepository: {"url", "source", "subfolder", "id"},
	cardIcon:       {"src", "mimeType", "sizes", "theme"},
	cardRemote:     {"type", "url", "headers", "variables", "supportedProtocolVersions"},
	cardInput:      {"name", "description", "format", "isRequired", "isSecret", "value", "default", "placeholder", "choices", "variables"},
}

// cardChild is the kind of the value under key of a map of kind k (for
// arrays, of their elements).
func cardChild(k cardObject, key string) cardObject {
	switch {
	case k == cardServer && key == "repository":
		return cardRepository
	case k == cardServer && key == "icons":
		return cardIcon
	case k == cardServer && key == "remotes":
		return cardRemote
	case k == cardRemote && key == "headers":
		return cardInput
	case (k == cardRemote || k == cardInput) && key == "variables":
		return cardInputMap
	case k == cardInputMap:
		return cardInput
	case k != cardAny && (key == "sizes" || key == "choices" || key == "supportedProtocolVersions"):
		return cardWords
	}
	return cardAny
}

// cardYAMLNode builds the YAML node of a decoded JSON value.
func cardYAMLNode(v any, k cardObject) (*yaml.Node, error) {
	switch t := v.(type) {
	case map[string]any:
		n := &yaml.Node{Kind: yaml.MappingNode}
		order := cardKeyOrder[k]
		keys := slices.Sorted(maps.Keys(t))
		slices.SortStableFunc(keys, func(a, b string) int {
			ia, ib := slices.Index(order, a), slices.Index(order, b)
			if ia < 0 {
				ia = len(order)
			}
			if ib < 0 {
				ib = len(order)
			}
			return ia - ib
		})
		for _, key := range keys {
			val, err := cardYAMLNode(t[key], cardChild(k, key))
			if err != nil {
				return nil, err
			}
			n.Content = append(n.Content, yamlStringNode(key), val)
		}
		if len(n.Content) == 0 {
			n.Style = yaml.FlowStyle
		}
		return n, nil
	case []any:
		n := &yaml.Node{Kind: yaml.SequenceNode}
		scalars := true
		for _, e := range t {
			val, err := cardYAMLNode(e, k)
			if err != nil {
				return nil, err
			}
			scalars = scalars && val.Kind == yaml.ScalarNode
			n.Content = append(n.Content, val)
		}
		// Short lists of words (sizes, choices, protocol versions) read best
		// on one line; other lists (in _meta) stay one item a line.
		if len(t) == 0 || scalars && k == cardWords {
			n.Style = yaml.FlowStyle
		}
		return n, nil
	case string:
		return yamlStringNode(t), nil
	case bool:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: strconv.FormatBool(t)}, nil
	case nil:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}, nil
	case json.Number:
		return yamlNumberNode(string(t))
	case float64:
		out := strconv.FormatFloat(t, 'g', -1, 64)
		if !strings.ContainsAny(out, ".eEIN") {
			out += ".0"
		}
		return yamlNumberNode(out)
	case int:
		return yamlNumberNode(strconv.Itoa(t))
	case int64:
		return yamlNumberNode(strconv.FormatInt(t, 10))
	}
	return nil, fmt.Errorf("cannot render a %T in YAML", v)
}

// yamlNumberNode is a number scalar written as in the JSON source, so
// 1.50 and 12345678901234567890 stay as they were: tagged as YAML reads it
// back (an integer when it fits 64 bits, a float otherwise), so no explicit
// tag is written.
func yamlNumberNode(s string) (*yaml.Node, error) {
	if _, err := strconv.ParseInt(s, 10, 64); err == nil {
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: s}, nil
	}
	if _, err := strconv.ParseUint(s, 10, 64); err == nil {
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: s}, nil
	}
	if _, err := strconv.ParseFloat(s, 64); err != nil || !schemas.IsJSONNumber(s) {
		return nil, fmt.Errorf("%q is not a number YAML can hold", s)
	}
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!float", Value: s}, nil
}

// yamlStringNode is a string scalar. The encoder quotes what would read back as
// another type; words that YAML 1.1 readers take for booleans are quoted too.
func yamlStringNode(s string) *yaml.Node {
	n := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s}
	switch strings.ToLower(s) {
	case "y", "n", "yes", "no", "on", "off":
		n.Style = yaml.DoubleQuotedStyle
	}
	return n
}
