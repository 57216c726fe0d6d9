package publish

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// manifestCases are manifests as publish writes them and as a person or
// another version might: each must decode as json.Unmarshal decodes it.
var manifestCases = []string{
	`{}`,
	" {\n} \n",
	`{"tools.json":{"route":"/tools","sha256":"ab","contentType":"application/json","cacheControl":"public, max-age=300"}}` + "\n",
	`{"a":{"sha256":"x","contentType":"t","cacheControl":"c"},"b/c.json":{"route":"/b/c","sha256":"y","contentType":"t","cacheControl":"c"}}`,
	`{"a":{}, "a":{"route":"/a"}}`,             // the last of a repeated key
	`{"a":{"route":"/x","route":"/y"}}`,        // the last of a repeated field
	`{"é/ü.json":{"route":"/é","sha256":"1"}}`, // UTF-8
	`{"a\u00e9":{"route":"/a"}}`,               // an escape: encoding/json
	`{"a":{"Route":"/a"}}`,                     // a field in another case: encoding/json
	`{"a":{"route":null}}`,                     // null: encoding/json
	`{"a":{"size":3}}`,                         // another field: encoding/json
	`{"a":null}`,                               // encoding/json
	`null`,                                     // encoding/json
	`{"a":{"route":"/a"}} x`,                   // trailing text: an error
	`{"a":{"route":"/a"}`,                      // cut short: an error
	`{"a":{"route":"` + "\xff" + `"}}`,         // not UTF-8: encoding/json
	`{"a":{"route":"` + "\x01" + `"}}`,         // a control character: an error
	`[]`,                                       // an error
}

func TestUnmarshalManifest(t *testing.T) {
	for _, s := range manifestCases {
		checkManifest(t, []byte(s))
	}
}

// checkManifest holds unmarshalManifest and the fast path to
// json.Unmarshal: the fast path answers only what json.Unmarshal accepts,
// and the same way.
func checkManifest(t *testing.T, data []byte) {
	t.Helper()
	want := map[string]manifestEntry{}
	wantErr := json.Unmarshal(data, &want)
	got, err := unmarshalManifest(data)
	if (err != nil) != (wantErr != nil) {
		t.Fatalf("%q: error %v, json.Unmarshal's %v", data, err, wantErr)
	}
	if err == nil {
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("%q (-json.Unmarshal +got):\n%s", data, diff)
		}
	}
	fast, ok := decodeManifest(data)
	if ok && wantErr != nil {
		t.Fatalf("%q: the fast path accepts what json.Unmarshal refuses: %v", data, wantErr)
	}
	if ok {
		if diff := cmp.Diff(want, fast); diff != "" {
			t.Fatalf("%q (-json.Unmarshal +fast path):\n%s", data, diff)
		}
	}
}

// TestDecodeManifestTakesWhatPublishWrites: a manifest as manifestKeeping
// writes it takes the fast path.
func TestDecodeManifestTakesWhatPublishWrites(t *testing.T) {
	entries := map[string]manifestEntry{
		"tools.json":                   {Route: "/tools", SHA256: strings.Repeat("a", 64), ContentType: "application/json", CacheControl: "public, max-age=300"},
		"tools/get_issue.compact.json": {SHA256: strings.Repeat("b", 64), ContentType: "application/json", CacheControl: "public, max-age=300"},
		"ünïcode/ключ.json":            {Route: "/ünïcode", SHA256: "c", ContentType: "application/json; charset=utf-8", CacheControl: "no-cache"},
	}
	data, err := json.Marshal(entries)
	if err != nil {
		t.Fatal(err)
	}
	got, ok := decodeManifest(append(data, '\n'))
	if !ok {
		t.Fatalf("%s: not on the fast path", data)
	}
	if diff := cmp.Diff(entries, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func FuzzUnmarshalManifest(f *testing.F) {
	for _, s := range manifestCases {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkManifest(t, data) })
}
