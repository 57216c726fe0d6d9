package cloudfront

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/signpost-dev/signpost/build/gate"
	"github.com/signpost-dev/signpost/build/spec"
)

// TestGatedFunctions runs a gated site's functions on the tokens of
// gate's own tests and holds each answer to gate.Verify and gate.Refuse:
// the edge and serve refuse the same requests the same way.
func TestGatedFunctions(t *testing.T) {
	req, resp := Code("tenants/acme", true, &Gate{Tenant: "acme", PublicDiscovery: true})
	for name, src := range map[string][]byte{"viewer-request": req, "viewer-response": resp} {
		if len(src) > MaxSize {
			t.Errorf("%s: %d bytes, more than %d", name, len(src), MaxSize)
		}
		t.Logf("gated %s: %d bytes", name, len(src))
	}
	if !bytes.HasPrefix(req, []byte("import cf from 'cloudfront';\n")) || !bytes.Contains(req, []byte("\nasync function handler(event) {\n")) {
		t.Errorf("the gated viewer-request function does not import the store first or is not async:\n%.300s", req)
	}
	keys := gate.Keys{"acme/k1": gate.NewSecret(), "acme/k2": gate.NewSecret(), "globex/k1": gate.NewSecret()}
	now := time.Now()
	mint := func(k gate.Keys, tenant, kid string, at time.Time) string {
		tok, err := gate.Mint(k, tenant, kid, at, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	raw := func(header, claims, secret string) string {
		s := b64(header) + "." + b64(claims)
		return s + "." + hmacB64(secret, s)
	}
	exp := now.Add(time.Hour).Unix()
	good := mint(keys, "acme", "k1", now)
	auths := map[string]string{
		"good":             "Bearer " + good,
		"second key":       "Bearer " + mint(keys, "acme", "k2", now),
		"lower-case":       "bearer " + good,
		"none":             "",
		"basic":            "Basic dXNlcjpwYXNz",
		"globex's":         "Bearer " + mint(keys, "globex", "k1", now),
		"expired":          "Bearer " + mint(keys, "acme", "k1", now.Add(-2*time.Hour)),
		"other audience":   "Bearer " + raw(`{"alg":"HS256","kid":"k1"}`, fmt.Sprintf(`{"aud":"globex","exp":%d}`, exp), keys["acme/k1"]),
		"audience list":    "Bearer " + raw(`{"alg":"HS256","kid":"k1"}`, fmt.Sprintf(`{"aud":["x","acme"],"exp":%d}`, exp), keys["acme/k1"]),
		"alg none":         "Bearer " + b64(`{"alg":"none","kid":"k1"}`) + "." + b64(fmt.Sprintf(`{"aud":"acme","exp":%d}`, exp)) + ".",
		"unknown kid":      "Bearer " + raw(`{"alg":"HS256","kid":"k9"}`, fmt.Sprintf(`{"aud":"acme","exp":%d}`, exp), keys["acme/k1"]),
		"kid escape":       "Bearer " + raw(`{"alg":"HS256","kid":"../globex/k1"}`, fmt.Sprintf(`{"aud":"acme","exp":%d}`, exp), keys["globex/k1"]),
		"no exp":           "Bearer " + raw(`{"alg":"HS256","kid":"k1"}`, `{"aud":"acme"}`, keys["acme/k1"]),
		"string exp":       "Bearer " + raw(`{"alg":"HS256","kid":"k1"}`, `{"aud":"acme","exp":"2000000000"}`, keys["acme/k1"]),
		"not yet":          "Bearer " + raw(`{"alg":"HS256","kid":"k1"}`, fmt.Sprintf(`{"aud":"acme","exp":%d,"nbf":%d}`, exp, now.Add(10*time.Minute).Unix()), keys["acme/k1"]),
		"tampered":         "Bearer " + strings.Split(good, ".")[0] + "." + b64(`{"aud":"acme","exp":9999999999}`) + "." + strings.Split(good, ".")[2],
		"array claims":     "Bearer " + raw(`{"alg":"HS256","kid":"k1"}`, `[1]`, keys["acme/k1"]),
		"two parts":        "Bearer " + good[:strings.LastIndex(good, ".")],
		"too long":         "Bearer " + good + strings.Repeat("A", gate.MaxToken),
		"garbage":          "Bearer !!!.???.***",
		"signature padded": "Bearer " + good + "=",
		// What JavaScript and Go read differently, unless both are told.
		"claims upper case":  "Bearer " + raw(`{"alg":"HS256","kid":"k1"}`, fmt.Sprintf(`{"AUD":"acme","EXP":%d}`, exp), keys["acme/k1"]),
		"header upper case":  "Bearer " + raw(`{"ALG":"HS256","KID":"k1"}`, fmt.Sprintf(`{"aud":"acme","exp":%d}`, exp), keys["acme/k1"]),
		"exp 1e400":          "Bearer " + raw(`{"alg":"HS256","kid":"k1"}`, `{"aud":"acme","exp":1e400}`, keys["acme/k1"]),
		"nbf 1e400":          "Bearer " + raw(`{"alg":"HS256","kid":"k1"}`, fmt.Sprintf(`{"aud":"acme","exp":%d,"nbf":-1e400}`, exp), keys["acme/k1"]),
		"nbf null":           "Bearer " + raw(`{"alg":"HS256","kid":"k1"}`, fmt.Sprintf(`{"aud":"acme","exp":%d,"nbf":null}`, exp), keys["acme/k1"]),
		"trailing BOM":       "Bearer " + good + "\ufeff",
		"trailing NBSP":      "Bearer " + good + "\u00a0",
		"trailing tab":       "Bearer " + good + "\t",
		"escaped claim name": "Bearer " + raw(`{"alg":"HS256","kid":"k1"}`, fmt.Sprintf(`{"aud":"acme","\u0065xp":%d}`, exp), keys["acme/k1"]),
		"duplicate exp":      "Bearer " + raw(`{"alg":"HS256","kid":"k1"}`, fmt.Sprintf(`{"aud":"acme","exp":1,"exp":%d}`, exp), keys["acme/k1"]),
		"non-canonical sig":  "Bearer " + nonCanonical(good),
		// A token that would outlive a day, whoever signed it.
		"a week ahead":      "Bearer " + raw(`{"alg":"HS256","kid":"k1"}`, fmt.Sprintf(`{"aud":"acme","exp":%d}`, now.Add(7*24*time.Hour).Unix()), keys["acme/k1"]),
		"a day and an hour": "Bearer " + raw(`{"alg":"HS256","kid":"k1"}`, fmt.Sprintf(`{"aud":"acme","exp":%d}`, now.Add(25*time.Hour).Unix()), keys["acme/k1"]),
		"a day":             "Bearer " + raw(`{"alg":"HS256","kid":"k1"}`, fmt.Sprintf(`{"aud":"acme","exp":%d}`, now.Add(24*time.Hour).Unix()), keys["acme/k1"]),
	}
	// The MCP registry stays behind the gate, public discovery or not: its
	// refusals are serve's, with the registry's CORS headers.
	paths := []string{"/tools", "/tools/get_forecast", "/tools/Bad-Id", "/tool-catalogue.json", "/nope", "/.well-known/ai-catalog.json",
		"/v0.1/servers", "/v0.1/servers/com.example%2Fweather/versions/latest", "/v0.1/servers/com.example/weather/versions", "/v0.1/servers/bad"}

	functions := map[string][]byte{"viewer-request": req, "viewer-response": resp}
	ctx, cancel := context.WithTimeout(t.Context(), cloudFrontNodeTimeout)
	defer cancel()
	fns := startFunctions(ctx, t, functions, keys)
	for name, auth := range auths {
		for _, path := range paths {
			ev := cfRequestEvent("GET", path, nil)
			if auth != "" {
				ev["request"].(map[string]any)["headers"].(map[string]any)["authorization"] = map[string]any{"value": auth}
			}
			var want any
			err := gate.Verify(auth, "acme", time.Now(), keys.Lookup)
			if err == nil || gate.Access(gate.Access{Token: true, PublicDiscovery: true}).IsPublic(path) {
				want = nil // let through: checked below
			} else {
				no := gate.Refuse("acme", path, err)
				if no.Message == "" {
					no.Message = fmt.Sprintf("no tool %q in this catalog", strings.TrimPrefix(path, "/tools/"))
				}
				extra := map[string]string{}
				if no.Challenge != "" {
					extra["www-authenticate"] = no.Challenge
				}
				want = cfError("GET", no.Status, map[int]string{401: "Unauthorized", 403: "Forbidden", 404: "Not Found"}[no.Status], no.Message, extra)
				if spec.IsRegistryRoute(path) {
					w := want.(map[string]any)
					for k, v := range cfRegistryCORS {
						w["headers"].(map[string]any)[k] = map[string]any{"value": v}
					}
				}
			}
			result, logs, err := fns.Run(ctx, "viewer-request", ev, cloudFrontNodeTimeout)
			if err != nil || len(logs) > 0 {
				t.Errorf("%s %s: %v %q", name, path, err, logs)
				continue
			}
			var got map[string]any
			if err := json.Unmarshal(result, &got); err != nil {
				t.Fatal(err)
			}
			if want == nil {
				if _, isResponse := got["statusCode"]; isResponse && got["statusCode"].(float64) != 404 {
					t.Errorf("%s %s: refused with %v, want it let through", name, path, got["statusCode"])
				}
				if h, _ := got["headers"].(map[string]any); h != nil && h["authorization"] != nil {
					t.Errorf("%s %s: the Authorization header goes on to the origin", name, path)
				}
				if r, ok := spec.ParseRegistryPath(path); ok {
					key, _ := spec.RegistryKey(r.Route())
					if got["uri"] != "/tenants/acme/"+key {
						t.Errorf("%s %s: let through to %v, want /tenants/acme/%s", name, path, got["uri"], key)
					}
				} else if spec.IsRegistryRoute(path) && got["statusCode"] != float64(404) {
					t.Errorf("%s %s: %v, want the registry's 404", name, path, got["statusCode"])
				}
				continue
			}
			if diff := cmp.Diff(roundTrip(t, want), any(got)); diff != "" {
				t.Errorf("%s %s (-serve's refusal +the edge's):\n%s", name, path, diff)
			}
		}
	}

	// What the gate lets through goes out private; public discovery does
	// not.
	for uri, want := range map[string]string{
		"/tenants/acme/tools.json":                  "private, max-age=3600",
		"/tenants/acme/.well-known/ai-catalog.json": "public, max-age=3600",
		"/tenants/acme/v0.1/servers.json":           "private, max-age=3600",
	} {
		ev := cfResponseEvent(uri, 200, "OK", cfHeaders(false, map[string]string{"cache-control": "public, max-age=3600"}))
		result, _, err := fns.Run(ctx, "viewer-response", ev, cloudFrontNodeTimeout)
		if err != nil {
			t.Fatal(err)
		}
		var got struct {
			Headers map[string]struct{ Value string } `json:"headers"`
		}
		if err := json.Unmarshal(result, &got); err != nil {
			t.Fatal(err)
		}
		if cc := got.Headers["cache-control"].Value; cc != want || cc != gateCache(uri, want) {
			t.Errorf("viewer-response for %s: Cache-Control %q, want %q", uri, cc, want)
		}
	}
}

// gateCache is what serve sends for the same response.
func gateCache(uri, want string) string {
	if strings.Contains(uri, ".well-known") {
		return "public, max-age=3600"
	}
	return gate.CacheControl("public, max-age=3600")
}

func b64(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }

func hmacB64(secret, s string) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(s))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// nonCanonical is tok with the last character of its signature changed in
// its unused bits only: the same bytes once decoded, another string.
func nonCanonical(tok string) string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	i := strings.IndexByte(alphabet, tok[len(tok)-1])
	// A 32-byte HMAC is 43 characters: the last holds 4 bits and 2 unused.
	return tok[:len(tok)-1] + string(alphabet[i^1])
}
