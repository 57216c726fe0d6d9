package secrets

import (
	"encoding/base64"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/signpost-dev/signpost/internal/fakecred"
)

var (
	fakeTelegram = fakecred.Chars("tg-id", 9, "123456789") + ":" + "AA" + fakecred.Chars("tg", 33, fakecred.Alnum+"_-")
	fakePyPI     = "py" + "pi-" + "AgEIcHlwaS5vcmc" + fakecred.Chars("pypi", 70, fakecred.Alnum+"_-")
	fakeSAS      = strings.NewReplacer("+", "%2B", "/", "%2F", "=", "%3D").Replace(base64.StdEncoding.EncodeToString(fakecred.Bytes("sas", 32)))
	fakeAmzSig   = fakecred.Chars("amz-sig", 64, "0123456789abcdef")
	fakeLetters  = "YozlmDhGuKwurDMNxg" // a password of letters only, in random case
	fakeHexKey   = fakecred.Chars("hex-key", 64, "0123456789abcdef")
	fakeB64Key   = base64.StdEncoding.EncodeToString(fakecred.Bytes("b64-key", 32))
	fakeGitSHA   = fakecred.Chars("commit", 40, "0123456789abcdef")
)

func TestFindSecretsShapes(t *testing.T) {
	tests := []struct {
		name, in, reason, secret string
	}{
		{"telegram", fakeTelegram, "looks like a Telegram bot token (" + hint(fakeTelegram) + ")", fakeTelegram},
		{"telegram in prose", "Bot " + fakeTelegram + " posts alerts.", "contains a Telegram bot token (" + hint(fakeTelegram) + ")", fakeTelegram},
		{"pypi", "Upload with " + fakePyPI, "contains a PyPI API token (pypi…)", fakePyPI[5:]},
		{"bare aws secret", fakeAWSSecret, "looks like an AWS secret access key (" + hint(fakeAWSSecret) + ")", fakeAWSSecret},
		{"bare aws secret in prose", "Use it with secret " + fakeAWSSecret + " for uploads.", "contains an AWS secret access key (" + hint(fakeAWSSecret) + ")", fakeAWSSecret},
		{"query sig", "https://acme.blob.core.windows.net/c/f.csv?sv=2022-11-02&sr=b&sig=" + fakeSAS, `contains a credential labelled "sig" (` + hint(fakeSAS) + ")", fakeSAS},
		{"query X-Amz-Signature", "https://b.s3.amazonaws.com/f?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Signature=" + fakeAmzSig, `contains a credential labelled "X-Amz-Signature" (` + hint(fakeAmzSig) + ")", fakeAmzSig},
		{"query signature", "https://cdn.example.com/f?expires=1700000000&signature=" + fakeGenericAPI, `contains a credential labelled "signature" (` + hint(fakeGenericAPI) + ")", fakeGenericAPI},
		{"query key", "https://maps.example.com/embed?key=" + fakeGenericAPI + "&q=Oslo", `contains a credential labelled "key" (` + hint(fakeGenericAPI) + ")", fakeGenericAPI},
		{"query password of letters", "https://old.example.com/login?user=ops&password=" + fakeLetters, `contains a credential labelled "password" (` + hint(fakeLetters) + ")", fakeLetters},
		{"password of letters in prose", "Log in with password: " + fakeLetters + ", then change it.", `contains a credential labelled "password" (` + hint(fakeLetters) + ")", fakeLetters},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Find(tt.in)
			if diff := cmp.Diff([]Finding{{Pointer: "", Reason: tt.reason}}, got); diff != "" {
				t.Errorf("Find(%.60q) mismatch (-want +got):\n%s", tt.in, diff)
			}
			for _, f := range got {
				if leaksSecret(f.Reason, tt.secret) {
					t.Errorf("reason %q repeats the secret", f.Reason)
				}
			}
		})
	}
}

// Values that resemble the shapes above without being credentials.
func TestFindSecretsShapesNot(t *testing.T) {
	for _, s := range []string{
		"Pinned to commit " + fakeGitSHA + " upstream.",
		fakeGitSHA,
		strings.ToUpper(fakeGitSHA),
		"src/components/navigation/HeaderMenu",
		"Edit src/components/navigation/HeaderMenus.tsx to change it.",
		base64.StdEncoding.EncodeToString([]byte("The weather is fine today!!!")),
		"listRepositoryCollaboratorInvitations2x",
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmn",
		"a" + fakeAWSSecret,       // 41 characters
		fakeAWSSecret + "==",      // base64 data
		"x-" + fakeAWSSecret,      // part of a longer token
		fakeAWSSecret[:39] + ".j", // part of a JWT-like run
		"Meeting 12345678:AA is at noon, ticket 1234567890:" + strings.Repeat("A", 35),
		"id 123456789:" + "BA" + fakecred.Chars("tg", 33, fakecred.Alnum+"_-"),
		"https://example.com/w.png?v=3&size=48&key=light",
		"https://acme.blob.core.windows.net/c/f?sv=2022-11-02&sig=<signature>",
		"https://cdn.example.com/f?signature=" + "abc123def",
		"The signature=" + fakeGenericAPI + " of the function", // not a query parameter
		"Set key=" + fakeGenericAPI + " in the map",
		"Password: the account's Password, never logged.",
		"token: getAccessTokenFromHeader",
	} {
		if got := Find(s); got != nil {
			t.Errorf("Find(%q) = %v, want none", s, got)
		}
	}
}

func TestFindSchemaKeyMaterial(t *testing.T) {
	tests := []struct {
		name   string
		schema string
		want   []Finding
	}{
		{"hex default", `{"properties":{"config":{"type":"string","default":"` + fakeHexKey + `"}}}`,
			[]Finding{{"/properties/config/default", `default value on property "config" looks like a hex key (` + hint(fakeHexKey) + ")"}}},
		{"hex of 32", `{"properties":{"config":{"default":"` + fakeHexKey[:32] + `"}}}`,
			[]Finding{{"/properties/config/default", `default value on property "config" looks like a hex key (` + hint(fakeHexKey) + ")"}}},
		{"upper-case hex enum", `{"properties":{"mode":{"enum":["fast","` + strings.ToUpper(fakeHexKey) + `"]}}}`,
			[]Finding{{"/properties/mode/enum/1", `enum value on property "mode" looks like a hex key (` + hint(strings.ToUpper(fakeHexKey)) + ")"}}},
		{"base64 const", `{"properties":{"mode":{"const":"` + fakeB64Key + `"}}}`,
			[]Finding{{"/properties/mode/const", `const value on property "mode" looks like a base64 key (` + hint(fakeB64Key) + ")"}}},
		{"examples in $defs", `{"$defs":{"Seed":{"examples":["` + fakeAWSSecret + `"]}}}`,
			[]Finding{{"/$defs/Seed/examples/0", `examples value on definition "Seed" looks like a base64 key (` + hint(fakeAWSSecret) + ")"}}},
		{"root default", `{"default":{"k":"` + fakeHexKey + `"}}`,
			[]Finding{{"/default/k", `default value looks like a hex key (` + hint(fakeHexKey) + ")"}}},
		{"secret property keeps its reason", `{"properties":{"token":{"default":"` + fakeHexKey + `"}}}`,
			[]Finding{{"/properties/token/default", `default value on secret property "token"`}}},
		{"digests and ids declared as such", `{"properties":{
			"commit":{"default":"` + fakeGitSHA + `"},
			"commitSha":{"default":"` + fakeGitSHA + `"},
			"request_id":{"default":"` + fakeHexKey[:32] + `"},
			"expected":{"description":"SHA-256 checksum of the file","default":"` + fakeHexKey + `"},
			"ref":{"title":"Git revision","enum":["` + fakeGitSHA + `"]},
			"workspace":{"format":"uuid","default":"` + fakeHexKey[:32] + `"}}}`, nil},
		{"not key material", `{"properties":{
			"config":{"default":"3f2b8c1e-9d4a-4e7b-8c21-6a5f0d9e7b43"},
			"digest":{"default":"sha256:` + fakeHexKey + `"},
			"theme":{"default":"#1a2b3c"},
			"op":{"enum":["listRepositoryCollaboratorInvitations2", "0123456789abcdef"]},
			"text":{"default":"` + base64.StdEncoding.EncodeToString([]byte("The weather is fine today, thank you!")) + `"},
			"path":{"default":"src/components/navigation/HeaderMenu/Index"},
			"same":{"default":"` + strings.Repeat("ab12", 10) + `"}}}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, FindInSchema(schemaJSON(t, tt.schema))); diff != "" {
				t.Errorf("FindInSchema mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// A string held many times over is scanned once per call, and each place
// that holds it is still reported.
func TestFindSecretsSharedString(t *testing.T) {
	long := strings.Repeat("Forecasts for any place. ", 40) + fakeGitHub
	v := []any{long, map[string]any{"a": long}, long}
	want := []Finding{
		{"/0", "contains a GitHub token (ghp_…)"},
		{"/1/a", "contains a GitHub token (ghp_…)"},
		{"/2", "contains a GitHub token (ghp_…)"},
	}
	if diff := cmp.Diff(want, Find(v)); diff != "" {
		t.Errorf("Find mismatch (-want +got):\n%s", diff)
	}
}

// benchAliased is a value that holds one 4 MB description n times, as
// YAML aliases give it: the same bytes each time.
func benchAliased(n int) []any {
	desc := strings.Repeat("Returns the forecast for a place: temperature, wind, rain and alerts. ", 4<<20/70)
	v := make([]any, n)
	for i := range v {
		v[i] = map[string]any{"description": desc}
	}
	return v
}

// BenchmarkFindSecretsAliased scans one 4 MB string referenced once and
// 300 times: the two take about the same time.
func BenchmarkFindSecretsAliased(b *testing.B) {
	for _, c := range []struct {
		name string
		n    int
	}{{"once", 1}, {"300-times", 300}} {
		v := benchAliased(c.n)
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if Find(v) != nil {
					b.Fatal("findings")
				}
			}
		})
	}
}

func TestRedact(t *testing.T) {
	token := "ghp_" + strings.Repeat("aB3dE6gH9jK2", 3)
	for _, tc := range []struct{ in, want string }{
		{"must be a domain name in lower case; got \"example.com\"", "must be a domain name in lower case; got \"example.com\""},
		{`must match the pattern; got "` + token + `"`, `must match the pattern; got "ghp_…"`},
		{"toolId " + token + " is not snake case, for example " + strings.ToLower(token), "toolId ghp_… is not snake case, for example ghp_…"},
		{`description contains a GitHub token (ghp_…)`, `description contains a GitHub token (ghp_…)`},
		{`got "password: ` + "YozlmDhGuKwurDMNxg7" + `"`, `got "pass…"`},
		// A private JSON Web Key quoted only up to a cut, its object left
		// open: after the "d", and inside it.
		{`got "{\"crv\":\"P-256\",\"d\":\"vvNrIbrXE48TQk2fa9Xp0Lm3ZqR7sT1uV5wX8yA2bC4\",\"kty\":\"EC\",\"x\":…"`,
			`got "{\"crv\":\"P-256\",\"d\":\"vvNr…\",\"kty\":\"EC\",\"x\":…"`},
		{`{"kty":"EC","d":"vvNrIbrXE48TQk2fa9Xp0Lm`, `{"kty":"EC","d":"vvNr…`},
		{`{"kty":"EC","x":"f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU"`, `{"kty":"EC","x":"f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU"`},
		// Text that only looks cut: a word, or too little to be a key.
		{`a JWK looks like {"kty":"RSA","d":"REDACTED"`, `a JWK looks like {"kty":"RSA","d":"REDACTED"`},
		{`a JWK looks like {"kty":"RSA","d":"value"`, `a JWK looks like {"kty":"RSA","d":"value"`},
	} {
		if got := Redact(tc.in); got != tc.want {
			t.Errorf("Redact(%q)\n = %q\nwant %q", tc.in, got, tc.want)
		}
	}
}

// TestRedactURL: a URL keeps what names the place and loses the
// credentials it holds, each cut where it is.
func TestRedactURL(t *testing.T) {
	token := "ghp_" + strings.Repeat("aB3dE6gH9jK2", 3)
	key := "AIza" + strings.Repeat("Xy7Q", 8) + "abc"
	for _, tc := range []struct{ in, want string }{
		{"https://example.com/tools/get_weather?view=compact", "https://example.com/tools/get_weather?view=compact"},
		{"https://example.com/x?token=hello&page=2", "https://example.com/x?token=hello&page=2"},
		{"https://example.com/x?view=compact&access_token=" + token + "#top", "https://example.com/x?view=compact&access_token=ghp_…#top"},
		{"https://example.com/x?key=" + key, "https://example.com/x?key=AIza…"},
		{"https://example.com/tools/" + token + "?view=compact", "https://example.com/tools/ghp_…?view=compact"},
		{"https://user:Yozl" + "mDhGuKwurDMNxg7@example.com/card.json", "https://user:Yozl…@example.com/card.json"},
		{"https://" + token + "@github.com/o/r", "https://ghp_…@github.com/o/r"},
		{"http://127.0.0.1:8080/x#" + token, "http://127.0.0.1:8080/x#ghp_…"},
		{"not a URL: " + token, "not a URL: ghp_…"},
	} {
		if got := RedactURL(tc.in); got != tc.want {
			t.Errorf("RedactURL(%q)\n = %q\nwant %q", tc.in, got, tc.want)
		}
	}
}

// BenchmarkFindInSchemaSharedRef: 2,000 secret-named properties all name
// one definition of 2,000 properties; the definition is walked once, not
// once per property.
func BenchmarkFindInSchemaSharedRef(b *testing.B) {
	def := map[string]any{}
	props := map[string]any{}
	for i := range 2000 {
		def["field"+strconv.Itoa(i)] = map[string]any{"type": "string"}
		props["password"+strconv.Itoa(i)] = map[string]any{"$ref": "#/$defs/shared"}
	}
	schema := map[string]any{"type": "object", "properties": props, "$defs": map[string]any{"shared": map[string]any{"type": "object", "properties": def}}}
	for b.Loop() {
		FindInSchema(schema)
	}
}
