package gate

import (
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

var testNow = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

func testKeys(t *testing.T) Keys {
	t.Helper()
	keys, err := ReadKeys([]byte(`{"data": [
		{"key": "acme/k1", "value": "acme-secret-0123456789-0123456789-abc"},
		{"key": "acme/k2", "value": "acme-secret-second-0123456789-012345"},
		{"key": "globex/k1", "value": "globex-secret-0123456789-0123456789"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	return keys
}

func TestMintVerify(t *testing.T) {
	keys := testKeys(t)
	tok, err := Mint(keys, "acme", "k1", testNow, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(tok, "."); got != 2 {
		t.Fatalf("token %q has %d dots, want a JWT of three parts", tok, got)
	}
	head, _ := base64.RawURLEncoding.DecodeString(strings.Split(tok, ".")[0])
	if string(head) != `{"alg":"HS256","kid":"k1","typ":"JWT"}` {
		t.Errorf("header %s", head)
	}
	other, _ := Mint(keys, "globex", "k1", testNow, time.Hour)
	// The same key signing a token for globex: only possible when an
	// operator shares a secret between tenants.
	shared := Keys{"acme/k1": keys["acme/k1"], "globex/k1": keys["acme/k1"]}
	forGlobex, _ := Mint(shared, "globex", "k1", testNow, time.Hour)
	parts := strings.Split(tok, ".")
	for _, c := range []struct {
		name, auth string
		at         time.Time
		want       error
	}{
		{"valid", "Bearer " + tok, testNow, nil},
		{"scheme in any case", "bearer " + tok, testNow.Add(59 * time.Minute), nil},
		{"no header", "", testNow, ErrNoToken},
		{"basic", "Basic dXNlcjpwYXNz", testNow, ErrMalformed},
		{"no scheme", tok, testNow, ErrMalformed},
		{"two parts", "Bearer " + parts[0] + "." + parts[1], testNow, ErrMalformed},
		{"alg none", "Bearer " + b64([]byte(`{"alg":"none","kid":"k1"}`)) + "." + parts[1] + ".", testNow, ErrMalformed},
		{"bad kid", "Bearer " + b64([]byte(`{"alg":"HS256","kid":"../globex/k1"}`)) + "." + parts[1] + "." + parts[2], testNow, ErrMalformed},
		{"no exp", "Bearer " + signed(keys["acme/k1"], `{"alg":"HS256","kid":"k1"}`, `{"aud":"acme"}`), testNow, ErrMalformed},
		{"unknown kid", "Bearer " + signed(keys["acme/k1"], `{"alg":"HS256","kid":"k9"}`, `{"aud":"acme","exp":2000000000}`), testNow, ErrUnknownKey},
		{"globex's token at acme", "Bearer " + other, testNow, ErrSignature},
		{"tampered claims", "Bearer " + parts[0] + "." + b64([]byte(`{"aud":"acme","exp":2000000000}`)) + "." + parts[2], testNow, ErrSignature},
		{"expired", "Bearer " + tok, testNow.Add(time.Hour), ErrExpired},
		{"not yet", "Bearer " + signed(keys["acme/k1"], `{"alg":"HS256","kid":"k1"}`, `{"aud":"acme","exp":2000000000,"nbf":1900000000}`), testNow, ErrExpired},
		{"audience list", "Bearer " + signed(keys["acme/k1"], `{"alg":"HS256","kid":"k1"}`, fmt.Sprintf(`{"aud":["x","acme"],"exp":%d}`, testNow.Add(time.Hour).Unix())), testNow, nil},
		{"a day ahead", "Bearer " + signed(keys["acme/k1"], `{"alg":"HS256","kid":"k1"}`, fmt.Sprintf(`{"aud":"acme","exp":%d}`, testNow.Add(24*time.Hour+time.Minute).Unix())), testNow, nil},
		{"over a day ahead", "Bearer " + signed(keys["acme/k1"], `{"alg":"HS256","kid":"k1"}`, fmt.Sprintf(`{"aud":"acme","exp":%d}`, testNow.Add(24*time.Hour+time.Minute+time.Second).Unix())), testNow, ErrTooLong},
		{"years ahead", "Bearer " + signed(keys["acme/k1"], `{"alg":"HS256","kid":"k1"}`, `{"aud":"acme","exp":2000000000}`), testNow, ErrTooLong},
		{"shared secret, other tenant", "Bearer " + forGlobex, testNow, ErrOtherTenant},
		{"too long", "Bearer " + tok + strings.Repeat("a", MaxToken), testNow, ErrMalformed},
	} {
		err := Verify(c.auth, "acme", c.at, keys.Lookup)
		if !errors.Is(err, c.want) {
			t.Errorf("%s: Verify = %v, want %v", c.name, err, c.want)
		}
	}
}

func signed(secret, header, claims string) string {
	s := b64([]byte(header)) + "." + b64([]byte(claims))
	return s + "." + b64(sign(secret, s))
}

func TestMintRefuses(t *testing.T) {
	keys := testKeys(t)
	if _, err := Mint(keys, "acme", "k9", testNow, time.Hour); err == nil || !strings.Contains(err.Error(), "no key acme/k9") {
		t.Errorf("unknown key: %v", err)
	}
	if _, err := Mint(keys, "acme", "k1", testNow, 25*time.Hour); err == nil {
		t.Error("a token of 25 hours was minted")
	}
	if kid, ok := keys.Latest("acme"); !ok || kid != "k2" {
		t.Errorf("Latest(acme) = %q, %v; want k2", kid, ok)
	}
	if _, ok := keys.Latest("initech"); ok {
		t.Error("Latest of a tenant without keys")
	}
}

func TestReadKeys(t *testing.T) {
	for _, c := range []struct{ file, want string }{
		{`{"data": [{"key": "acme", "value": "0123456789012345678901234567890123"}]}`, `key "acme" is not TENANT/KID`},
		{`{"data": [{"key": "Acme/k1", "value": "0123456789012345678901234567890123"}]}`, `is not TENANT/KID`},
		{`{"data": [{"key": "acme/k1", "value": "short"}]}`, "the secret has 5 bytes"},
		{`{"data": [{"key": "acme/k1", "value": "0123456789012345678901234567890123"}, {"key": "acme/k1", "value": "0123456789012345678901234567890123"}]}`, "appears twice"},
		{`{"keys": []}`, "not a keys file"},
	} {
		_, err := ReadKeys([]byte(c.file))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.file, err, c.want)
		}
		if err != nil && strings.Contains(err.Error(), "0123456789012345678901234567890123") {
			t.Errorf("the error repeats the secret: %v", err)
		}
	}
	keys := Keys{"acme/k1": NewSecret()}
	back, err := ReadKeys(keys.Marshal())
	if err != nil || back["acme/k1"] != keys["acme/k1"] || len(keys["acme/k1"]) != 43 {
		t.Errorf("round trip: %v %v", back, err)
	}
}

func TestRefuseAndCache(t *testing.T) {
	for _, c := range []struct {
		route string
		err   error
		want  Refusal
	}{
		{"/tools", ErrNoToken, Refusal{401, `Bearer realm="acme"`, "this site is tenant acme's: send Authorization: Bearer with a token for acme"}},
		{"/tools", ErrExpired, Refusal{401, `Bearer realm="acme", error="invalid_token"`, "the token has expired: send a valid token for acme"}},
		{"/tools", ErrOtherTenant, Refusal{403, "", "this site is tenant acme's, and the token is for another tenant"}},
		{"/tools/get_forecast", ErrOtherTenant, Refusal{Status: 404}},
		{"/tools/get_forecast", ErrNoToken, Refusal{401, `Bearer realm="acme"`, "this site is tenant acme's: send Authorization: Bearer with a token for acme"}},
	} {
		if got := Refuse("acme", c.route, c.err); got != c.want {
			t.Errorf("Refuse(%s, %v) = %+v, want %+v", c.route, c.err, got, c.want)
		}
	}
	for in, want := range map[string]string{
		"public, max-age=3600": "private, max-age=3600",
		"max-age=60":           "private, max-age=60",
		"private":              "private",
		"":                     "private",
		"no-store":             "private, no-store",
	} {
		if got := CacheControl(in); got != want {
			t.Errorf("CacheControl(%q) = %q, want %q", in, got, want)
		}
	}
	a := Access{Token: true, PublicDiscovery: true}
	if !a.IsPublic("/.well-known/ai-catalog.json") || a.IsPublic("/tools") || (Access{Token: true}).IsPublic("/.well-known/ai-catalog.json") || !(Access{}).IsPublic("/tools") {
		t.Error("IsPublic")
	}
}
