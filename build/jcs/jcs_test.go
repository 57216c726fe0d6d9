package jcs_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/signpost-dev/signpost/build/jcs"
)

// TestRFC8785Numbers holds the numbers of RFC 8785, Appendix B: each IEEE
// 754 double, by its bits, and how JCS writes it; NaN and Infinity are
// refused.
func TestRFC8785Numbers(t *testing.T) {
	for _, c := range []struct{ bits, want string }{
		{"0000000000000000", "0"},
		{"8000000000000000", "0"},
		{"0000000000000001", "5e-324"},
		{"8000000000000001", "-5e-324"},
		{"7fefffffffffffff", "1.7976931348623157e+308"},
		{"ffefffffffffffff", "-1.7976931348623157e+308"},
		{"4340000000000000", "9007199254740992"},
		{"c340000000000000", "-9007199254740992"},
		{"4430000000000000", "295147905179352830000"},
		{"44b52d02c7e14af5", "9.999999999999997e+22"},
		{"44b52d02c7e14af6", "1e+23"},
		{"44b52d02c7e14af7", "1.0000000000000001e+23"},
		{"444b1ae4d6e2ef4e", "999999999999999700000"},
		{"444b1ae4d6e2ef4f", "999999999999999900000"},
		{"444b1ae4d6e2ef50", "1e+21"},
		{"3eb0c6f7a0b5ed8c", "9.999999999999997e-7"},
		{"3eb0c6f7a0b5ed8d", "0.000001"},
		{"41b3de4355555553", "333333333.3333332"},
		{"41b3de4355555554", "333333333.33333325"},
		{"41b3de4355555555", "333333333.3333333"},
		{"41b3de4355555556", "333333333.3333334"},
		{"41b3de4355555557", "333333333.33333343"},
		{"becbf647612f3696", "-0.0000033333333333333333"},
		{"43143ff3c1cb0959", "1424953923781206.2"},
		{"7fffffffffffffff", ""}, // NaN
		{"7ff0000000000000", ""}, // Infinity
	} {
		bits, err := strconv.ParseUint(c.bits, 16, 64)
		if err != nil {
			t.Fatal(err)
		}
		got, err := jcs.Marshal(math.Float64frombits(bits))
		if c.want == "" {
			var e *jcs.Error
			if !errors.As(err, &e) {
				t.Errorf("%s: %s, %v; want an *Error", c.bits, got, err)
			}
			continue
		}
		if err != nil || string(got) != c.want {
			t.Errorf("%s: %s, %v; want %s", c.bits, got, err, c.want)
		}
	}
}

// TestRFC8785Examples holds the examples of RFC 8785, section 3.2.2 (the
// serialization of primitives) and 3.2.3 (the sorting of properties).
func TestRFC8785Examples(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{
			`{"numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
			  "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
			  "literals": [null, true, false]}`,
			`{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\u000f\nA'B\"\\\\\"/"}`,
		},
		{
			`{"\u20ac": "Euro Sign", "\r": "Carriage Return", "\ufb33": "Hebrew Letter Dalet With Dagesh",
			  "1": "One", "\ud83d\ude00": "Emoji: Grinning Face", "\u0080": "Control",
			  "\u00f6": "Latin Small Letter O With Diaeresis"}`,
			"{\"\\r\":\"Carriage Return\",\"1\":\"One\",\"\u0080\":\"Control\",\"ö\":\"Latin Small Letter O With Diaeresis\",\"\u20ac\":\"Euro Sign\",\"\U0001F600\":\"Emoji: Grinning Face\",\"\ufb33\":\"Hebrew Letter Dalet With Dagesh\"}",
		},
		// What encoding/json escapes and JCS does not.
		{`"<a & b>\u2028\u2029\u007f"`, "\"<a & b>\u2028\u2029\u007f\""},
		{`[1, -0, 1.0, 100, 1e2, -1.5e-7, 9007199254740991, -9007199254740991]`, `[1,0,1,100,100,-1.5e-7,9007199254740991,-9007199254740991]`},
		{` { "b" : [ ] , "a" : { } } `, `{"a":{},"b":[]}`},
	} {
		got, err := jcs.Transform([]byte(c.in))
		if err != nil || string(got) != c.want {
			t.Errorf("Transform(%s) = %s, %v; want %s", c.in, got, err, c.want)
		}
	}
}

// TestRefused: what JCS cannot take is an *Error naming where it is.
func TestRefused(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"a":1,"a":2}`, `/a: the member name "a" appears twice in its object`},
		{`{"x":{"b":1,"b":1}}`, `/x/b: the member name "b" appears twice`},
		{`[9007199254740992]`, `/0: the integer 9007199254740992 is beyond ±(2^53-1)`},
		{`{"n":-12345678901234567890}`, `/n: the integer -12345678901234567890 is beyond`},
		{`[1e400]`, `/0: the number 1e400 is out of the range`},
		{`["\ud800"]`, `(root): the escape \ud800 at byte 2 is half of a surrogate pair alone`},
		{`["\udc00\ud800"]`, `half of a surrogate pair alone`},
		{`{"k":"\uffff"}`, `/k: the noncharacter U+FFFF at byte 0, which I-JSON forbids`},
		{"[\"\xed\xa0\x80\"]", `invalid UTF-8 at byte 2`},
		{"[\"\xff\"]", `invalid UTF-8 at byte 2`},
		{`[1,]`, `not JSON`},
		{`[1] [2]`, `data after the JSON value`},
	} {
		_, err := jcs.Transform([]byte(c.in))
		var e *jcs.Error
		if !errors.As(err, &e) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Transform(%s): %v; want an *Error with %q", c.in, err, c.want)
		}
	}
	for _, c := range []struct {
		v    any
		want string
	}{
		{map[string]any{"a": []any{"ok", "\xed\xa0\x80"}}, "/a/1: a surrogate code point"},
		{map[string]any{"a/b": map[string]any{"\ufdd0": true}}, "/a~1b/\ufdd0: the member name the noncharacter U+FDD0"},
		{[]any{json.Number("01")}, `/0: "01" is not a JSON number`},
		{[]any{int64(1) << 60}, "/0: the integer 1152921504606846976 is beyond"},
		{[]any{math.Inf(-1)}, "/0: the number -Inf is not finite"},
		{[]any{struct{}{}}, "/0: a Go value of type struct {} is not a JSON value"},
	} {
		out, err := jcs.Append([]byte("x"), c.v)
		if err == nil || !strings.Contains(err.Error(), c.want) || string(out) != "x" {
			t.Errorf("Append(%#v) = %q, %v; want dst unchanged and an error with %q", c.v, out, err, c.want)
		}
	}
}

// TestDeep: nesting beyond the bound is refused, not a stack overflow.
func TestDeep(t *testing.T) {
	in := strings.Repeat("[", 20000) + strings.Repeat("]", 20000)
	if _, err := jcs.Transform([]byte(in)); err == nil || !strings.Contains(err.Error(), "nested more than") {
		t.Errorf("Transform of 20000 nested arrays: %v", err)
	}
}

// ExampleAppend_withoutMember canonicalizes a document without one of its
// members, as a detached signature over it (a JWS over "the catalog minus
// its signature's jws") needs: decode, delete the member, Append.
func ExampleAppend_withoutMember() {
	doc := []byte(`{"specVersion":"1.0","entries":[],"signature":{"signer":"did:web:example.com","jws":"eyJhbGciOiJFUzI1NiJ9..c2ln"}}`)
	v, err := jcs.Decode(doc)
	if err != nil {
		panic(err)
	}
	delete(v.(map[string]any)["signature"].(map[string]any), "jws")
	payload, err := jcs.Append(nil, v)
	if err != nil {
		panic(err)
	}
	fmt.Println(string(payload))
	// Output: {"entries":[],"signature":{"signer":"did:web:example.com"},"specVersion":"1.0"}
}

// FuzzTransform: any input either is refused or has a canonical form that
// is its own canonical form and means what the input meant.
func FuzzTransform(f *testing.F) {
	for _, s := range []string{`{"a":[1,2.5,"x\n"],"b":null}`, `"\ud83d\ude00"`, `1e21`, `{"\u20ac":1,"\ud83d\ude00":2,"\ufb33":3}`, `[-0.0000033333333333333333]`, `{"a":1,"a":2}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		out, err := jcs.Transform(in)
		if err != nil {
			var e *jcs.Error
			if !errors.As(err, &e) {
				t.Fatalf("Transform(%q): %v is not an *Error", in, err)
			}
			return
		}
		again, err := jcs.Transform(out)
		if err != nil || string(again) != string(out) {
			t.Fatalf("Transform(%q) = %q, whose own form is %q, %v", in, out, again, err)
		}
		var a, b any
		if err := json.Unmarshal(in, &a); err != nil {
			t.Fatalf("Transform accepted %q, which encoding/json refuses: %v", in, err)
		}
		if err := json.Unmarshal(out, &b); err != nil {
			t.Fatalf("Transform(%q) = %q, not JSON: %v", in, out, err)
		}
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("Transform(%q) = %q: %v, want %v", in, out, b, a)
		}
	})
}
