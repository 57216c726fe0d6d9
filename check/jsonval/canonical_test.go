package jsonval

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestCanonical holds Canonical to RFC 8785's examples and to what node's
// JSON.stringify writes of the same numbers.
func TestCanonical(t *testing.T) {
	numbers := `[333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001, -0, 0.0, 1e21, 1e20, 1e-6, 1e-7, 1.5e-7, 123456789012345678901, 9007199254740993, -1.25e+300, 5e-324, 1.7976931348623157e308, 100, 1.0, 2.50e1, 0.1, 1234.5678e-10]`
	for in, want := range map[string]string{
		numbers: `[333333333.3333333,1e+30,4.5,0.002,1e-27,0,0,1e+21,100000000000000000000,0.000001,1e-7,1.5e-7,123456789012345680000,9007199254740992,-1.25e+300,5e-324,1.7976931348623157e+308,100,1,25,0.1,1.2345678e-7]`,
		// RFC 8785, 3.2.3: the order of keys.
		`{"\u20ac":"Euro Sign","\r":"Carriage Return","\ufb33":"Hebrew Letter Dalet With Dagesh","1":"One","\ud83d\ude00":"Emoji: Grinning Face","\u0080":"Control","\u00f6":"Latin Small Letter O With Diaeresis"}`: "{\"\\r\":\"Carriage Return\",\"1\":\"One\",\"\u0080\":\"Control\",\"ö\":\"Latin Small Letter O With Diaeresis\",\"€\":\"Euro Sign\",\"😀\":\"Emoji: Grinning Face\",\"\ufb33\":\"Hebrew Letter Dalet With Dagesh\"}",
		// RFC 8785, 3.2.2: strings and literals.
		`{"string":"\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/","literals":[null,true,false],"s":"\u2028<>&\u007f"}`: "{\"literals\":[null,true,false],\"s\":\"\u2028<>&\u007f\",\"string\":\"€$\\u000f\\nA'B\\\"\\\\\\\\\\\"/\"}",
	} {
		d := json.NewDecoder(strings.NewReader(in))
		d.UseNumber()
		var v any
		if err := d.Decode(&v); err != nil {
			t.Fatal(err)
		}
		got, err := Canonical(v)
		if err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		if got != want {
			t.Errorf("Canonical(%s)\n got %s\nwant %s", in, got, want)
		}
	}
	if _, err := Canonical(json.Number("1e400")); err == nil {
		t.Error("Canonical(1e400) succeeded")
	}
}
