package check_test

import (
	"bytes"
	"encoding/json"
	"maps"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/check"
	"github.com/signpost-dev/signpost/internal/fakecred"
)

// fakeToken is a GitHub token for the test, made at run time so that no
// file holds one.
func fakeToken(seed string) string {
	return "gh" + "p_" + fakecred.Chars(seed, 36, fakecred.Alnum)
}

// leakingSite serves the example as signpost serve does, with a credential
// placed wherever a finding quotes what the origin sends: every tool's
// document has one in its description (tools.item quotes the value that
// differs from the list), every response one in a Cache-Control value
// and one in a CORS header's value (cache.control, cors.every-response),
// /tools one as its ETag (cache.etag), and the MCP catalog names a card
// at a URL whose query holds one (card.status names the URL).
func leakingSite(t *testing.T, toks map[string]string) http.Handler {
	example := correctHandler(t)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := httptest.NewRecorder()
		plain := r.Clone(r.Context()) // bodies to rewrite, not gzip
		plain.Header.Del("Accept-Encoding")
		example.ServeHTTP(rec, plain)
		body := rec.Body.Bytes()
		switch {
		case r.URL.Path == spec.RouteMCPCatalog && rec.Code == http.StatusOK:
			var doc map[string]any
			if err := json.Unmarshal(body, &doc); err != nil {
				t.Error(err)
				break
			}
			entries, _ := doc["entries"].([]any)
			doc["entries"] = append(entries, map[string]any{"identifier": "urn:mcp:server:com.example/leaky", "mediaType": spec.ContentTypeServerCardV1, "url": "https://example.com/cards/leaky.json?api_key=" + toks["query"]})
			body, _ = json.Marshal(doc)
		case strings.HasPrefix(r.URL.Path, "/tools/") && rec.Code == http.StatusOK:
			var doc map[string]any
			if err := json.Unmarshal(body, &doc); err != nil {
				break // the tool catalogue's groups are not descriptors
			}
			if d, ok := doc["description"].(string); ok {
				doc["description"] = toks["description"] + " " + d
				body, _ = json.Marshal(doc)
			}
		}
		h := w.Header()
		maps.Copy(h, rec.Header())
		h.Del("Content-Length")
		h.Set("Cache-Control", h.Get("Cache-Control")+", x-key="+toks["cache"])
		h.Set("Access-Control-Expose-Headers", "ETag, X-"+toks["cors"])
		if r.URL.Path == spec.RouteTools {
			h.Set("ETag", `"`+toks["etag"]+`"`)
		}
		w.WriteHeader(rec.Code)
		w.Write(body)
	})
}

// TestReportRedactsCredentials: an origin that sends credentials in its
// documents, its headers and the URLs it names gets a report, in text
// (brief and verbose) and in JSON, that quotes where they are and repeats
// none of them.
func TestReportRedactsCredentials(t *testing.T) {
	toks := map[string]string{}
	for _, place := range []string{"description", "cache", "cors", "etag", "query"} {
		toks[place] = fakeToken("check-redact-" + place)
	}
	r := runOn(t, leakingSite(t, toks), "https://example.com", check.Options{})

	// Each credential reached a finding, and was cut there.
	quoted := map[string]bool{}
	for _, f := range r.Findings {
		switch {
		case f.Rule == "tools.item" && strings.Contains(f.Evidence, `"ghp_…`):
			quoted["description"] = true
		case strings.HasPrefix(f.Evidence, "Cache-Control: ") && strings.Contains(f.Evidence, "x-ke…"):
			quoted["cache"] = true
		case strings.Contains(f.Evidence, "Access-Control-Expose-Headers: ETag, X-gh…"):
			quoted["cors"] = true
		case f.Rule == "cache.etag" && strings.Contains(f.Evidence, `ETag: "ghp_…"`):
			quoted["etag"] = true
		case strings.HasSuffix(f.URL, "/cards/leaky.json?api_key=ghp_…"):
			quoted["query"] = true
		}
	}
	for place := range toks {
		if !quoted[place] {
			t.Errorf("no finding quotes the credential placed in the %s, redacted", place)
		}
	}

	var brief, verbose, js bytes.Buffer
	if err := r.WriteText(&brief, false); err != nil {
		t.Fatal(err)
	}
	if err := r.WriteText(&verbose, true); err != nil {
		t.Fatal(err)
	}
	if err := r.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	for format, out := range map[string]string{"text": brief.String(), "verbose text": verbose.String(), "json": js.String()} {
		for place, tok := range toks {
			if leaks(out, tok) {
				t.Errorf("the %s report repeats the credential placed in the %s", format, place)
			}
		}
	}
}

// leaks reports whether out repeats six characters or more of tok past
// its first four, which a redacted hint shows.
func leaks(out, tok string) bool {
	for i := 4; i+6 <= len(tok); i++ {
		if strings.Contains(out, tok[i:i+6]) {
			return true
		}
	}
	return false
}

// TestEvidenceRedactedBeforeCut: a credential where a long evidence is
// cut short is redacted whole, before the cut.
func TestEvidenceRedactedBeforeCut(t *testing.T) {
	tok := fakeToken("check-redact-cut")
	f := check.Finding{Rule: "r", Evidence: strings.Repeat("x ", 140) + tok}.Redacted()
	if leaks(f.Evidence, tok) || len(f.Evidence) > 300 {
		t.Errorf("evidence %q repeats the credential, or is longer than 300 bytes", f.Evidence)
	}
}

// TestShownValueRedactedBeforeCut: a JSON value quoted in evidence is cut
// to 60 bytes; a credential that straddles the cut is redacted first, so
// that no prefix of it longer than a redaction's shows.
func TestShownValueRedactedBeforeCut(t *testing.T) {
	tok := fakeToken("check-show-cut")
	for _, at := range []int{0, 20, 40, 50} {
		v := strings.Repeat("x", at) + " " + tok + " tail of the description"
		if got := check.Show(v); leaks(got, tok) {
			t.Errorf("credential at %d: shown as %q, which repeats it", at, got)
		}
	}
}
