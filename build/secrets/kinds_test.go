package secrets

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/signpost-dev/signpost/internal/fakecred"
)

// published returns what the loader finds in a tool whose description,
// title and input schema are given: Find on each string, and
// FindInSchema and Find on the schema.
func published(description, title string, schema any) []Finding {
	var out []Finding
	out = append(out, Find(description)...)
	out = append(out, Find(title)...)
	if schema != nil {
		out = append(out, FindInSchema(schema)...)
		out = append(out, Find(schema)...)
	}
	return out
}

// property is an input schema of one string property, "region", with the
// keyword kw set to v.
func property(kw string, v any) any {
	return map[string]any{"type": "object", "properties": map[string]any{
		"region": map[string]any{"type": "string", "description": "Where the job runs.", kw: v},
	}}
}

// plantings are the places of a tool a credential is planted in, each with
// the value of the tool that holds it.
func plantings(secret string) []struct {
	where string
	found []Finding
} {
	type p = struct {
		where string
		found []Finding
	}
	ps := []p{
		{"description", published("Calls the API with "+secret+" for now.", "", nil)},
		{"title", published("", secret, nil)},
		{"example", published("", "", property("examples", []any{secret}))},
		{"default", published("", "", property("default", secret))},
		{"pattern", published("", "", property("pattern", fakecred.RegexLiteral(secret)))},
		{"percent-encoded URL", published("See https://api.example.com/v1/"+fakecred.PercentEncode(secret)+"/items.", "", nil)},
		{"percent-encoded path", published("", "GET /v1/keys/"+fakecred.PercentEncode(secret), nil)},
	}
	if strings.HasPrefix(secret, "{") {
		// A JSON credential is also planted as the object it encodes.
		var v any
		if err := json.Unmarshal([]byte(secret), &v); err != nil {
			panic(err)
		}
		ps = append(ps, p{"default object", published("", "", property("default", v))})
	}
	return ps
}

// TestFindCredentialKinds plants one fake of every kind of credential in
// each place of a tool a client reads, as the client reads it (decoded),
// and wants it found everywhere. The reasons never repeat it.
func TestFindCredentialKinds(t *testing.T) {
	kinds := fakecred.Kinds()
	recognized, plain := 0, 0
	for _, k := range kinds {
		all, allPlain := true, true
		t.Run(k.Name, func(t *testing.T) {
			for i, pl := range plantings(k.Value) {
				if len(pl.found) == 0 {
					all = false
					allPlain = allPlain && i >= 4
					t.Errorf("%s: %.40q… not found", pl.where, k.Value)
				}
				for _, f := range pl.found {
					if leaksSecret(f.Reason, k.Secret) {
						t.Errorf("%s: reason %q repeats the secret", pl.where, f.Reason)
					}
				}
			}
		})
		if all {
			recognized++
		}
		if allPlain {
			plain++
		}
	}
	t.Logf("%d of %d credential kinds recognized in a description, a title, an example and a default; %d in every place (a pattern, percent-encoded)", plain, len(kinds), recognized)
}

// A diagnostic that quotes a credential of any kind, as written or as a
// client decodes it, never repeats it.
func TestRedactCredentialKinds(t *testing.T) {
	for _, k := range fakecred.Kinds() {
		for _, msg := range []string{
			`must match the pattern; got "` + k.Value + `"`,
			"toolId " + k.Value + " is not snake case",
			"url https://api.example.com/v1/" + fakecred.PercentEncode(k.Value) + " is not https",
		} {
			if got := Redact(msg); leaksSecret(got, k.Secret) {
				t.Errorf("%s: Redact(%.60q…) = %q repeats the secret", k.Name, msg, got)
			}
		}
	}
}

// TestRedactURLCredentialKinds: a credential of any kind in a URL's path,
// query or fragment is cut, whatever else the URL holds.
func TestRedactURLCredentialKinds(t *testing.T) {
	for _, k := range fakecred.Kinds() {
		enc := fakecred.PercentEncode(k.Value)
		for _, u := range []string{
			"https://api.example.com/v1/" + enc + "/card.json",
			"https://api.example.com/tools?view=compact&q=" + enc,
			"https://api.example.com/tools#" + enc,
		} {
			if got := RedactURL(u); leaksSecret(got, k.Secret) {
				t.Errorf("%s: RedactURL(%.60q…) = %q repeats the secret", k.Name, u, got)
			}
		}
	}
}
