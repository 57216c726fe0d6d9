package compact

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// projection is Schema with every kept keyword written out: the projection
// before the output rules leave out what a model needs least.
func projection(schema any) any {
	return decode(writer{verbatim: true}.project(nil, schema))
}

// The output rules: what the projection keeps but a compact schema leaves
// out, each only widening or exact.
var outputCases = []struct {
	name     string
	opts     Options
	in, want string
}{
	{
		name: "narrowing-only constraints are left out",
		in: `{"type": "object", "additionalProperties": false, "minProperties": 1, "maxProperties": 9, "dependentRequired": {"a": ["b"]},
			"properties": {
				"a": {"type": "string", "minLength": 1, "maxLength": 39, "pattern": "^[a-z]+$", "format": "email"},
				"b": {"type": "integer", "minimum": 1, "maximum": 100, "exclusiveMinimum": 0, "exclusiveMaximum": 101, "multipleOf": 2, "default": 10},
				"c": {"type": "array", "items": {"type": "string", "pattern": "^x"}, "minItems": 1, "maxItems": 3, "uniqueItems": true},
				"d": {"type": "object", "additionalProperties": {"type": "string", "maxLength": 3}}}}`,
		want: `{"type": "object", "properties": {
				"a": {"type": "string", "format": "email"},
				"b": {"type": "integer", "default": 10},
				"c": {"type": "array", "items": {"type": "string"}},
				"d": {"type": "object", "additionalProperties": {"type": "string"}}}}`,
	},
	{
		name: "an items or additionalProperties left empty is left out",
		in:   `{"type": "array", "items": {"pattern": "^x"}}`,
		want: `{"type": "array"}`,
	},
	{
		name: "the type an enum or const implies is left out",
		in: `{"type": "object", "properties": {"a": {"type": "string", "enum": ["x", "y"]}, "b": {"type": "number", "enum": [1, 2.5]},
			"c": {"type": "integer", "const": 3}, "d": {"type": ["string", "null"], "enum": ["x", null]}, "e": {"type": "string", "enum": ["x", 1]}}}`,
		want: `{"type": "object", "properties": {"a": {"enum": ["x", "y"]}, "b": {"enum": [1, 2.5]}, "c": {"const": 3},
			"d": {"enum": ["x", null]}, "e": {"type": "string", "enum": ["x", 1]}}}`,
	},
	{
		name: "a long enum is left out, the type of its values kept",
		in:   `{"enum": ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m", "n", "o", "p", "q"]}`,
		want: `{"type": "string"}`,
	},
	{
		name: "an enum of sixteen values stays",
		in:   `{"enum": ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m", "n", "o", "p"]}`,
		want: `{"enum": ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m", "n", "o", "p"]}`,
	},
	{
		name: "descriptions are tidied, and left out when they restate the name",
		in: `{"type": "object", "description": "The tool's input.", "properties": {
				"owner": {"type": "string", "description": "Repository owner"},
				"issue_number": {"type": "number", "description": "The issue number."},
				"pullNumber": {"type": "number", "description": "Pull request number"},
				"workflow_ids": {"type": "array", "description": "The workflow IDs", "items": {"type": "string", "description": "A workflow ID."}},
				"ns": {"type": "string", "description": "Optional: the namespace."},
				"x": {"type": "string", "description": "A value..."}}}`,
		want: `{"type": "object", "description": "Tool's input", "properties": {
				"owner": {"type": "string", "description": "Repository owner"},
				"issue_number": {"type": "number"},
				"pullNumber": {"type": "number", "description": "Pull request number"},
				"workflow_ids": {"type": "array", "items": {"type": "string"}},
				"ns": {"type": "string", "description": "Namespace"},
				"x": {"type": "string", "description": "Value..."}}}`,
	},
	{
		name: "without descriptions, only the notes stay",
		opts: Options{NoDescriptions: true},
		in: `{"type": "object", "description": "Input.", "$defs": {"n": {"type": "object", "properties": {"next": {"$ref": "#/$defs/n"}}}},
			"properties": {"a": {"type": "string", "description": "Something."}, "n": {"$ref": "#/$defs/n"}}}`,
		want: `{"type": "object", "properties": {"a": {"type": "string"},
			"n": {"type": "object", "properties": {"next": {"description": "recursive: see the standard view"}}}}}`,
	},
}

func TestCompactSchemaOutput(t *testing.T) {
	for _, tc := range outputCases {
		t.Run(tc.name, func(t *testing.T) {
			in := decodeSchema(t, tc.in)
			got := tc.opts.Schema(in)
			if diff := cmp.Diff(decodeSchema(t, tc.want), decodeSchema(t, marshalSchema(t, got))); diff != "" {
				t.Errorf("Schema(%s) (-want +got):\n%s", tc.in, diff)
			}
			// Sound: what the projection accepts, the output accepts.
			checkSound(t, tc.name, in, 100, 7)
		})
	}
}

func TestRestates(t *testing.T) {
	for _, tc := range []struct {
		d, name string
		want    bool
	}{
		{"The issue number", "issue_number", true},
		{"Discussion Number", "discussionNumber", true},
		{"The ID of the gist", "gist_id", true},
		{"Filters for workflow runs.", "workflow_runs_filter", true},
		{"Repository name", "repo", false},
		{"Repository owner", "owner", false},
		{"", "owner", false},
		{"Owner", "", false},
		{"The repo", "repository", true},
		{"The re", "repository", false},
		{"Issues", "issue", true},
		{"Repos", "repository", true},
		{"\u212Aey", "key", true}, // the Kelvin sign lowers to k, as strings.ToLower has it
		{"--- .", "owner", false},
		{"Owner\xffOwner", "owner", true},
	} {
		if got := restates(tc.d, tc.name); got != tc.want {
			t.Errorf("restates(%q, %q) = %v; want %v", tc.d, tc.name, got, tc.want)
		}
	}
}

func FuzzRestates(f *testing.F) {
	for _, s := range [][2]string{{"The issue number", "issue_number"}, {"Repos", "repository"}, {"\u212Aey", "key"}, {"İd", "id"}, {"a\xffb", "a_b"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, d, name string) {
		if got, want := restates(d, name), restatesByFields(d, name); got != want {
			t.Errorf("restates(%q, %q) = %v; the reference says %v", d, name, got, want)
		}
	})
}

func FuzzPhrase(f *testing.F) {
	for _, s := range []string{"Page number for pagination (min 1)", "The owner: a user — or an org", "Short; x", "Values, e.g. a, b - c"} {
		f.Add(s, uint8(40))
	}
	f.Fuzz(func(t *testing.T, s string, max uint8) {
		if got, want := phrase(s, int(max)), phraseBySeparators(s, int(max)); got != want {
			t.Errorf("phrase(%q, %d) = %q; the reference says %q", s, max, got, want)
		}
	})
}

// appendReference is what the writer's output was: its value, encoded.
func appendReference(w writer, schema any) []byte { return w.projectValue(nil, schema) }

// writers are the writer's modes: the output, without descriptions, and
// the projection verbatim.
var writers = []writer{{}, {noDescriptions: true}, {verbatim: true}}

// TestAppendMatchesValue holds the writer to the bytes of the value it made
// before it wrote bytes, on every schema of the tests.
func TestAppendMatchesValue(t *testing.T) {
	var schemas []string
	for _, tc := range compactCases {
		schemas = append(schemas, tc.in)
	}
	for _, tc := range outputCases {
		schemas = append(schemas, tc.in)
	}
	schemas = append(schemas, compactSoundOnly...)
	schemas = append(schemas, compactBenchSchema)
	for _, s := range schemas {
		for _, w := range writers {
			in := decodeSchema(t, s)
			if got, want := w.projectBytes(nil, in), appendReference(w, in); !bytes.Equal(got, want) {
				t.Errorf("%+v of %s:\n got %s\nwant %s", w, s, got, want)
			}
		}
	}
}

func FuzzAppendMatchesValue(f *testing.F) {
	for _, tc := range compactCases {
		f.Add([]byte(tc.in))
	}
	for _, tc := range outputCases {
		f.Add([]byte(tc.in))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := decodeJSON(data)
		if err != nil {
			return
		}
		for _, w := range writers {
			if got, want := w.projectBytes(nil, v), appendReference(w, v); !bytes.Equal(got, want) {
				t.Fatalf("%+v of %s:\n got %s\nwant %s", w, data, got, want)
			}
		}
	})
}
