package jsonenc

import (
	"bytes"
	"encoding/json"
	"testing"
)

// stdEncode is encoding/json's output, the reference for Append.
func stdEncode(t testing.TB, v any) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "plain", "quote \" backslash \\", "\x00\x01\b\f\n\r\t\x1f", "<html>&", "\u2028\u2029", "\xff\xfe", "é😀", "a\u00a0b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := appendString(nil, s), stdEncode(t, s); !bytes.Equal(got, want) {
			t.Fatalf("appendString(%q) = %s, want %s", s, got, want)
		}
		v := map[string]any{s: []any{s, json.Number("1.5"), true, nil, 42, struct{ A string }{s}}}
		if got, want := appendValue(nil, v), stdEncode(t, v); !bytes.Equal(got, want) {
			t.Fatalf("appendValue = %s, want %s", got, want)
		}
	})
}
