package signing_test

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/signpost-dev/signpost/build/signing"
)

// counter is a deterministic random source: 0, 1, 2, … as bytes.
type counter struct{ n byte }

func (c *counter) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = c.n
		c.n++
	}
	return len(p), nil
}

func testKey(t *testing.T) *ecdsa.PrivateKey {
	t.Helper()
	k, err := signing.GenerateKey(&counter{1})
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// TestGenerateKeyDeterministic: the same random bytes make the same key,
// written as the same JWK, which reads back as that key.
func TestGenerateKeyDeterministic(t *testing.T) {
	a, b := testKey(t), testKey(t)
	ja, err := signing.MarshalPrivateJWK(a)
	if err != nil {
		t.Fatal(err)
	}
	jb, _ := signing.MarshalPrivateJWK(b)
	if !bytes.Equal(ja, jb) {
		t.Fatalf("two keys of the same random bytes differ:\n%s\n%s", ja, jb)
	}
	const want = `{"crv":"P-256","kty":"EC","x":`
	if !strings.HasPrefix(string(ja), want) || !strings.Contains(string(ja), `"d":"AQIDBAUGBwgJCgsMDQ4PEBESExQVFhcYGRobHB0eHyA"`) {
		t.Fatalf("JWK = %s", ja)
	}
	back, err := signing.ParsePrivateJWK(ja)
	if err != nil || !back.Equal(a) {
		t.Fatalf("ParsePrivateJWK: %v", err)
	}
	// An all-zero source never makes a scalar: an error, not a loop.
	if _, err := signing.GenerateKey(bytes.NewReader(make([]byte, 64*32))); err == nil {
		t.Fatal("a source of zeros made a key")
	}
}

// TestParsePrivateJWKErrorsHideKey: no error repeats the key's text.
func TestParsePrivateJWKErrorsHideKey(t *testing.T) {
	k := testKey(t)
	j, _ := signing.MarshalPrivateJWK(k)
	var m map[string]string
	_ = json.Unmarshal(j, &m)
	d := m["d"]
	cases := map[string]string{
		"truncated": string(j[:len(j)-2]),
		"wrong x":   strings.Replace(string(j), m["x"], m["y"], 1),
		"bad d":     strings.Replace(string(j), d, d[:20], 1),
		"ed25519":   `{"kty":"OKP","crv":"Ed25519","d":"` + d + `"}`,
		"public":    `{"kty":"EC","crv":"P-256","x":"` + m["x"] + `","y":"` + m["y"] + `"}`,
	}
	for name, in := range cases {
		_, err := signing.ParsePrivateJWK([]byte(in))
		if err == nil {
			t.Errorf("%s: no error", name)
			continue
		}
		if strings.Contains(err.Error(), d[:8]) || strings.Contains(err.Error(), d[len(d)-8:]) {
			t.Errorf("%s: error repeats the key: %v", name, err)
		}
	}
}

func TestDERToJOSE(t *testing.T) {
	// r with a leading zero byte (its high bit set), s short.
	der := []byte{0x30, 0x26, 0x02, 0x21, 0x00, 0x80}
	der = append(der, bytes.Repeat([]byte{1}, 31)...)
	der = append(der, 0x02, 0x01, 0x05)
	got, err := signing.DERToJOSE(der)
	if err != nil {
		t.Fatal(err)
	}
	want := append(append([]byte{0x80}, bytes.Repeat([]byte{1}, 31)...), append(make([]byte, 31), 5)...)
	if !bytes.Equal(got, want) {
		t.Fatalf("got %x\nwant %x", got, want)
	}
	for _, bad := range [][]byte{nil, {0x30, 0x00}, {0x30, 0x03, 0x02, 0x01, 0x00}, append(der, 0)} {
		if _, err := signing.DERToJOSE(bad); err == nil {
			t.Errorf("%x: no error", bad)
		}
	}
}

func TestDIDWeb(t *testing.T) {
	for domain, ok := range map[string]bool{
		"example.com": true, "xn--bcher-kva.example": true, "a-b.example.co": true,
		"": false, "Example.com": false, "example.com.": false, "example.com:8443": false,
		"127.0.0.1": false, "example.123": false, "bücher.example": false, "-a.example": false, "a..b": false,
	} {
		did, err := signing.DIDWeb(domain)
		if (err == nil) != ok {
			t.Errorf("DIDWeb(%q) = %q, %v", domain, did, err)
		}
		if ok && did != "did:web:"+domain {
			t.Errorf("DIDWeb(%q) = %q", domain, did)
		}
	}
}

// verify checks a detached JWS over payload with pub, as a verifier would.
func verify(t *testing.T, jws string, payload []byte, pub *ecdsa.PublicKey) map[string]any {
	t.Helper()
	h, sig, ok := strings.Cut(jws, "..")
	if !ok {
		t.Fatalf("not detached: %s", jws)
	}
	hb, _ := base64.RawURLEncoding.DecodeString(h)
	var header map[string]any
	if err := json.Unmarshal(hb, &header); err != nil {
		t.Fatal(err)
	}
	sb, err := base64.RawURLEncoding.DecodeString(sig)
	if err != nil || len(sb) != 64 {
		t.Fatalf("signature %q", sig)
	}
	sum := sha256.Sum256([]byte(h + "." + base64.RawURLEncoding.EncodeToString(payload)))
	r, s := new(big.Int).SetBytes(sb[:32]), new(big.Int).SetBytes(sb[32:])
	if !ecdsa.Verify(pub, sum[:], r, s) {
		t.Fatalf("the signature does not verify")
	}
	return header
}

func testCatalog() map[string]any {
	return map[string]any{
		"specVersion": "1.0",
		"host":        map[string]any{"displayName": "Example Corp"},
		"entries": []any{
			map[string]any{"identifier": "urn:air:example.com:mcp:a", "type": "application/mcp-server-card+json", "url": "https://example.com/a.json", "digest": "sha256:00", "version": "1.0.0"},
			map[string]any{"identifier": "urn:air:example.com:mcp:b", "type": "application/mcp-server-card+json", "url": "https://other.example/b.json"},
			map[string]any{"identifier": "urn:air:example.com:mcp:c", "type": "application/mcp-server-card+json", "url": "http://127.0.0.1/c.json"},
			map[string]any{"identifier": "urn:air:example.com:tool-catalog:public", "type": "application/json", "data": map[string]any{"x": 1.0}},
			map[string]any{"identifier": "urn:air:other.example:mcp:d", "type": "application/mcp-server-card+json", "url": "https://other.example/d.json"},
		},
	}
}

// TestSign: every entry of the publisher with a digest or an https url has
// a Trust Manifest signed under the Publisher Profile, the catalog a root
// signature under the Catalog Profile, each verifying over its payload;
// signing twice gives the same bytes.
func TestSign(t *testing.T) {
	key := testKey(t)
	s, err := signing.NewKeySigner(key)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 3, 4, 5, 6, 7, 0, time.FixedZone("x", 3600))
	opts := signing.Options{Domain: "example.com", IssuedAt: at, ExpiresAt: at.Add(24 * time.Hour)}
	cat := testCatalog()
	if err := signing.Sign(t.Context(), s, opts, cat); err != nil {
		t.Fatal(err)
	}
	kid := "did:web:example.com#" + s.KeyID()
	entries := cat["entries"].([]any)
	wantSubjects := []string{
		`{"digest":"sha256:00","identifier":"urn:air:example.com:mcp:a","type":"application/mcp-server-card+json","version":"1.0.0"}`,
		`{"identifier":"urn:air:example.com:mcp:b","type":"application/mcp-server-card+json","url":"https://other.example/b.json"}`,
		``,
		`{"digest":"sha256:` + sha(`{"x":1}`) + `","identifier":"urn:air:example.com:tool-catalog:public","type":"application/json"}`,
		``,
	}
	for i, v := range entries {
		e := v.(map[string]any)
		tms, ok := e["trustManifests"].([]any)
		if wantSubjects[i] == "" {
			if ok {
				t.Errorf("entry %d has a Trust Manifest", i)
			}
			continue
		}
		m := tms[0].(map[string]any)
		subj, _ := json.Marshal(m["subject"])
		if string(subj) != wantSubjects[i] {
			t.Errorf("entry %d: subject %s, want %s", i, subj, wantSubjects[i])
		}
		sig := m["signature"].(map[string]any)
		if sig["signer"] != "did:web:example.com" || m["contributor"] != "did:web:example.com" || sig["profile"] != "did-web-v1" ||
			sig["issuedAt"] != "2026-03-04T04:06:07Z" || sig["expiresAt"] != "2026-03-05T04:06:07Z" {
			t.Errorf("entry %d: manifest %v", i, m)
		}
		payload, _ := signing.Payload(m)
		h := verify(t, sig["jws"].(string), payload, &key.PublicKey)
		if h["typ"] != "ai-catalog-trust-manifest+jws" || h["alg"] != "ES256" || h["kid"] != kid || len(h) != 3 {
			t.Errorf("entry %d: header %v", i, h)
		}
	}
	if cat["host"].(map[string]any)["identifier"] != "did:web:example.com" {
		t.Errorf("host %v", cat["host"])
	}
	payload, _ := signing.Payload(cat)
	if bytes.Contains(payload, []byte(`"jws":"`+cat["signature"].(map[string]any)["jws"].(string))) {
		t.Error("the payload holds its own jws")
	}
	if !bytes.Contains(payload, []byte(`"trustManifests"`)) {
		t.Error("the payload leaves out the manifests")
	}
	h := verify(t, cat["signature"].(map[string]any)["jws"].(string), payload, &key.PublicKey)
	if h["typ"] != "ai-catalog+jws" {
		t.Errorf("root header %v", h)
	}
	again := testCatalog()
	if err := signing.Sign(t.Context(), s, opts, again); err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(cat)
	b, _ := json.Marshal(again)
	if !bytes.Equal(a, b) {
		t.Error("two signatures of one catalog differ: the key signer is not deterministic")
	}
	// Bad options.
	for name, o := range map[string]signing.Options{
		"ip":      {Domain: "10.0.0.1", IssuedAt: at},
		"no time": {Domain: "example.com"},
		"expired": {Domain: "example.com", IssuedAt: at, ExpiresAt: at},
	} {
		if err := signing.Sign(context.Background(), s, o, testCatalog()); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func sha(s string) string {
	sum := sha256.Sum256([]byte(s))
	const hexd = "0123456789abcdef"
	out := make([]byte, 64)
	for i, b := range sum {
		out[2*i], out[2*i+1] = hexd[b>>4], hexd[b&15]
	}
	return string(out)
}

func TestDIDDocument(t *testing.T) {
	a := testKey(t)
	b, _ := signing.GenerateKey(&counter{100})
	doc, err := signing.DIDDocument("did:web:example.com", &a.PublicKey, []*ecdsa.PublicKey{&b.PublicKey, &a.PublicKey})
	if err != nil {
		t.Fatal(err)
	}
	ta, _ := signing.Thumbprint(&a.PublicKey)
	tb, _ := signing.Thumbprint(&b.PublicKey)
	got, _ := json.Marshal(doc["assertionMethod"])
	want, _ := json.Marshal([]string{"did:web:example.com#" + ta, "did:web:example.com#" + tb})
	if !bytes.Equal(got, want) {
		t.Fatalf("assertionMethod %s, want %s", got, want)
	}
	all, _ := json.Marshal(doc)
	if bytes.Contains(all, []byte(`"d"`)) {
		t.Fatal("the DID document holds a private key")
	}
}

func TestOpenLocal(t *testing.T) {
	dir := t.TempDir()
	k := testKey(t)
	j, _ := signing.MarshalPrivateJWK(k)
	s, err := signing.OpenLocal("env", "KEY", dir, func(string) string { return string(j) })
	if err != nil || !s.PublicJWK().Equal(&k.PublicKey) {
		t.Fatalf("env: %v", err)
	}
	if _, err := signing.OpenLocal("env", "KEY", dir, func(string) string { return "" }); err == nil || !strings.Contains(err.Error(), "KEY") {
		t.Errorf("unset: %v", err)
	}
	if _, err := signing.OpenLocal("file", "key.jwk", dir, nil); err == nil || !strings.Contains(err.Error(), "inside the catalog folder") {
		t.Errorf("inside: %v", err)
	}
	if _, _, err := signing.ParseSource("vault:x"); err == nil {
		t.Error("vault: accepted")
	}
	if fmtS := s.String(); strings.Contains(fmtS, "d") && strings.Contains(string(j), fmtS) {
		t.Error("String shows the key")
	}
}
