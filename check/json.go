package check

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	buildsecrets "github.com/signpost-dev/signpost/build/secrets"
	"github.com/signpost-dev/signpost/schemas"
)

// decode parses b as one JSON value (numbers as json.Number, so that they
// compare as written).
func decode(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("data after the JSON value")
	}
	return v, nil
}

// showPointer is the JSON pointer p for evidence: (root) when it is "".
func showPointer(p string) string {
	if p == "" {
		return "(root)"
	}
	return p
}

// diff returns where a and b (decoded JSON) first differ, "" if
// they are equal: a pointer and both values, "here" being a's and "there"
// b's. Whole documents are compared, whatever they hold: open JSON, read
// as decoded.
func diff(a, b any, ptr string) string {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok {
			break
		}
		keys := make([]string, 0, len(x)+len(y))
		for k := range x {
			keys = append(keys, k)
		}
		for k := range y {
			if _, ok := x[k]; !ok {
				keys = append(keys, k)
			}
		}
		slices.Sort(keys)
		for _, k := range keys {
			at := ptr + "/" + escape(k)
			va, oka := x[k]
			vb, okb := y[k]
			switch {
			case !oka:
				return at + ": missing here, " + show(vb) + " there"
			case !okb:
				return at + ": " + show(va) + " here, missing there"
			}
			if d := diff(va, vb, at); d != "" {
				return d
			}
		}
		return ""
	case []any:
		y, ok := b.([]any)
		if !ok {
			break
		}
		for i := range min(len(x), len(y)) {
			if d := diff(x[i], y[i], ptr+"/"+strconv.Itoa(i)); d != "" {
				return d
			}
		}
		if len(x) != len(y) {
			return fmt.Sprintf("%s: %d items here, %d there", showPointer(ptr), len(x), len(y))
		}
		return ""
	default:
		if a == b {
			return ""
		}
	}
	return showPointer(ptr) + ": " + show(a) + " here, " + show(b) + " there"
}

// show renders a decoded JSON value briefly.
func show(v any) string {
	switch v.(type) {
	case nil, map[string]any, []any:
		return schemas.KindOf(v)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	// Redacted before it is cut: a credential cut short is no longer
	// recognized, and its first characters would be shown.
	s := buildsecrets.Redact(string(b))
	if len(s) > 60 {
		cut := 57
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + `…`
	}
	return s
}

// escape makes token one reference token of a JSON pointer (RFC 6901).
func escape(token string) string {
	if !strings.ContainsAny(token, "~/") {
		return token
	}
	return pointerEscaper.Replace(token)
}

var pointerEscaper = strings.NewReplacer("~", "~0", "/", "~1")

// oneLine makes evidence one line of reasonable length.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 300 {
		cut := 297
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}
