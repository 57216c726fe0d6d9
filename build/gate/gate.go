// Package gate is the access gate of a tenant's site: the bearer tokens
// that open it, the keys that sign them, and which routes stay public.
//
// A token is a JSON Web Token signed with HMAC-SHA256 (RFC 7519, "HS256"):
// its header names the key (kid), its claims the tenant (aud) and when it
// expires (exp, required). Keys live outside the catalog, in a file shaped
// like a CloudFront KeyValueStore's import file, so that the same file
// feeds the edge, `signpost serve` and the tests:
//
//	{"data": [{"key": "acme/2026-12", "value": "<secret of 32 or more characters>"}]}
//
// An entry's key is TENANT/KID. The viewer-request function of a gated site
// reads the secret of TENANT/KID from the store associated with it, and
// serve reads the same file; both check the same claims in the same order
// (Verify is the rule, and the function's tests run the same tokens).
//
// A gated site answers a request without a valid token with 401; a token
// that is valid but for another tenant with 403, except at /tools/{toolId},
// which answers 404 as for any tool the caller may not invoke. The answer
// is the same whatever the path, so it tells nothing of what the site
// holds.
package gate

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/signpost-dev/signpost/build/spec"
)

// Access is who may read a site.
type Access struct {
	// Token makes the site answer only requests that carry a valid token
	// for its tenant.
	Token bool `json:"token,omitempty"`
	// PublicDiscovery keeps the routes under /.well-known/ (the discovery
	// catalogs and the server cards) public on a gated site.
	PublicDiscovery bool `json:"publicDiscovery,omitempty"`
}

// IsPublic reports whether route is answered without a token under a.
func (a Access) IsPublic(route string) bool {
	return !a.Token || a.PublicDiscovery && strings.HasPrefix(route, spec.WellKnownPrefix)
}

// MinSecret is the shortest secret a key may have, in bytes: 32 random
// characters of base64 hold 192 bits.
const MinSecret = 32

// MaxLifetime bounds how long a token may live, so that a leaked token
// stops working within a day unless its key is removed sooner: Mint
// refuses a longer one, and Verify a token that expires further ahead,
// whoever signed it.
const MaxLifetime = 24 * time.Hour

// kidPattern is what a key id may be: it becomes part of a store key.
var kidPattern = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,64}$`)

// b64Pattern is the alphabet of a token's base64url parts, as the edge's
// function reads them.
var b64Pattern = regexp.MustCompile(`^[A-Za-z0-9_-]*$`)

// tenantPattern is a tenant id, as signpost.yaml declares them.
var tenantPattern = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$`)

// Keys are the signing keys of gated sites, by store key (TENANT/KID).
type Keys map[string]string

// StoreKey is the key of the store entry that holds the secret of kid for
// tenant.
func StoreKey(tenant, kid string) string { return tenant + "/" + kid }

// ReadKeys parses a keys file: a KeyValueStore import file whose entries
// are TENANT/KID keys with secrets of at least MinSecret bytes. Problems
// name the entry, never its secret.
func ReadKeys(data []byte) (Keys, error) {
	var f struct {
		Data []struct {
			Key   string `json:"key"`
			Value string `json:"value"`
		} `json:"data"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf(`not a keys file ({"data": [{"key": "TENANT/KID", "value": "SECRET"}]}): %w`, err)
	}
	keys := Keys{}
	for i, e := range f.Data {
		tenant, kid, ok := strings.Cut(e.Key, "/")
		switch {
		case !ok || !tenantPattern.MatchString(tenant) || !kidPattern.MatchString(kid):
			return nil, fmt.Errorf("entry %d: key %q is not TENANT/KID (a tenant id, a slash, and a key id of letters, digits, '.', '_' and '-')", i, e.Key)
		case len(e.Value) < MinSecret:
			return nil, fmt.Errorf("entry %d (%s): the secret has %d bytes; a key needs at least %d random ones", i, e.Key, len(e.Value), MinSecret)
		}
		if _, dup := keys[e.Key]; dup {
			return nil, fmt.Errorf("entry %d: key %s appears twice", i, e.Key)
		}
		keys[e.Key] = e.Value
	}
	return keys, nil
}

// Marshal returns keys as a keys file, entries sorted by key.
func (k Keys) Marshal() []byte {
	type entry struct {
		Key   string `json:"key"`
		Value string `json:"value"`
	}
	var f struct {
		Data []entry `json:"data"`
	}
	f.Data = []entry{}
	for _, name := range slices.Sorted(maps.Keys(k)) {
		f.Data = append(f.Data, entry{name, k[name]})
	}
	b, _ := json.MarshalIndent(f, "", "  ")
	return append(b, '\n')
}

// Lookup returns the secret of the store key TENANT/KID, as Verify looks
// keys up.
func (k Keys) Lookup(storeKey string) (string, bool) {
	v, ok := k[storeKey]
	return v, ok
}

// Latest returns the key id of tenant that sorts last, the one a new
// token is signed with when none is named, and false when tenant has none.
func (k Keys) Latest(tenant string) (string, bool) {
	var kids []string
	for name := range k {
		if t, kid, _ := strings.Cut(name, "/"); t == tenant {
			kids = append(kids, kid)
		}
	}
	if len(kids) == 0 {
		return "", false
	}
	slices.Sort(kids)
	return kids[len(kids)-1], true
}

// NewSecret returns a fresh random secret: 32 bytes of crypto/rand as
// 43 characters of base64url.
func NewSecret() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // never fails (crypto/rand)
	return base64.RawURLEncoding.EncodeToString(b)
}

// header is the one header Mint writes and Verify accepts.
type header struct {
	Alg string `json:"alg"`
	Kid string `json:"kid"`
	Typ string `json:"typ,omitempty"`
}

// claims are the claims Mint writes; Verify reads aud as a string or an
// array of strings.
type claims struct {
	Aud string `json:"aud"`
	Exp int64  `json:"exp"`
	Iat int64  `json:"iat"`
}

// Mint returns a token for tenant signed with the key kid of keys, valid
// from now for lifetime (at most MaxLifetime).
func Mint(keys Keys, tenant, kid string, now time.Time, lifetime time.Duration) (string, error) {
	secret, ok := keys[StoreKey(tenant, kid)]
	switch {
	case !ok:
		return "", fmt.Errorf("no key %s in the keys file", StoreKey(tenant, kid))
	case lifetime <= 0 || lifetime > MaxLifetime:
		return "", fmt.Errorf("a token lives more than no time and at most %v; asked for %v", MaxLifetime, lifetime)
	}
	h, _ := json.Marshal(header{Alg: "HS256", Kid: kid, Typ: "JWT"})
	c, _ := json.Marshal(claims{Aud: tenant, Exp: now.Add(lifetime).Unix(), Iat: now.Unix()})
	signing := b64(h) + "." + b64(c)
	return signing + "." + b64(sign(secret, signing)), nil
}

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

func sign(secret, signing string) []byte {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(signing))
	return m.Sum(nil)
}

// Errors of Verify. ErrOtherTenant is the only one a caller answers with
// 403; every other means 401.
var (
	ErrNoToken     = errors.New("no bearer token")
	ErrMalformed   = errors.New("the token is not a signpost token (an HS256 JSON Web Token)")
	ErrUnknownKey  = errors.New("the token names a key this site does not have")
	ErrSignature   = errors.New("the token's signature does not verify")
	ErrExpired     = errors.New("the token has expired")
	ErrTooLong     = errors.New("the token expires more than a day from now: tokens live at most a day")
	ErrOtherTenant = errors.New("the token is for another tenant")
)

// MaxToken is the longest Authorization header value read.
const MaxToken = 4096

// Verify checks the Authorization header value auth ("Bearer TOKEN") for
// tenant at now, looking keys up with lookup(StoreKey(tenant, kid)). The
// order is the function's: shape, key, signature, expiry, lifetime,
// audience, so a token for another tenant is told apart only once its
// signature holds.
func Verify(auth, tenant string, now time.Time, lookup func(storeKey string) (string, bool)) error {
	if auth == "" {
		return ErrNoToken
	}
	scheme, tok, ok := strings.Cut(auth, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || len(auth) > MaxToken {
		return ErrMalformed
	}
	// Only spaces and tabs around the token, as the edge's function trims:
	// what one accepts, the other does.
	tok = strings.Trim(tok, " \t")
	parts := strings.Split(tok, ".")
	if len(parts) != 3 {
		return ErrMalformed
	}
	// Members are matched by their exact names, as JavaScript reads them:
	// encoding/json would take "ALG" or "Exp" for them.
	var h, c map[string]json.RawMessage
	if !decodePart(parts[0], &h) || !decodePart(parts[1], &c) {
		return ErrMalformed
	}
	var alg, kid string
	if json.Unmarshal(h["alg"], &alg) != nil || alg != "HS256" || json.Unmarshal(h["kid"], &kid) != nil || !kidPattern.MatchString(kid) {
		return ErrMalformed
	}
	var exp, nbf *float64
	var aud any
	if json.Unmarshal(c["exp"], &exp) != nil || exp == nil {
		return ErrMalformed
	}
	if raw, ok := c["nbf"]; ok && (json.Unmarshal(raw, &nbf) != nil || nbf == nil) {
		return ErrMalformed
	}
	if raw, ok := c["aud"]; ok && json.Unmarshal(raw, &aud) != nil {
		return ErrMalformed
	}
	if !b64Pattern.MatchString(parts[2]) {
		return ErrMalformed
	}
	secret, ok := lookup(StoreKey(tenant, kid))
	if !ok {
		return ErrUnknownKey
	}
	// The signature as it is written, in its one canonical encoding: a
	// string with other unused bits decodes to the same bytes, but is
	// not the token that was signed.
	want := base64.RawURLEncoding.EncodeToString(sign(secret, parts[0]+"."+parts[1]))
	if !hmac.Equal([]byte(parts[2]), []byte(want)) {
		return ErrSignature
	}
	t := float64(now.Unix())
	if t >= *exp || nbf != nil && t+60 < *nbf {
		return ErrExpired
	}
	// A token of a longer life would outlive the rotation its key's
	// removal promises (a day after the last token it signed), whoever
	// signed it; a minute's room for a clock ahead of this one.
	if *exp-t > (MaxLifetime + time.Minute).Seconds() {
		return ErrTooLong
	}
	if !audience(aud, tenant) {
		return ErrOtherTenant
	}
	return nil
}

// decodePart decodes one base64url part of a token into v.
func decodePart(s string, v any) bool {
	b, err := base64.RawURLEncoding.DecodeString(s)
	return err == nil && json.Unmarshal(b, v) == nil
}

// audience reports whether aud, a string or an array of strings, names
// tenant.
func audience(aud any, tenant string) bool {
	switch a := aud.(type) {
	case string:
		return a == tenant
	case []any:
		for _, x := range a {
			if x == tenant {
				return true
			}
		}
	}
	return false
}

// Refusal is how a gated site answers a request it does not let through.
type Refusal struct {
	// Status is 401, 403, or 404 for a toolId (the site's own 404, with
	// its message: Message is empty then).
	Status int
	// Challenge is the WWW-Authenticate header of a 401.
	Challenge string
	Message   string
}

// Refuse returns the answer of tenant's site to a request for route whose
// token failed Verify with err. The answer depends on the error and on
// whether route is a tool's, never on whether the route exists.
func Refuse(tenant, route string, err error) Refusal {
	realm := `Bearer realm="` + tenant + `"`
	switch {
	case errors.Is(err, ErrOtherTenant) && isTool(route):
		return Refusal{Status: 404}
	case errors.Is(err, ErrOtherTenant):
		return Refusal{Status: 403, Message: "this site is tenant " + tenant + "'s, and the token is for another tenant"}
	case errors.Is(err, ErrNoToken):
		return Refusal{Status: 401, Challenge: realm, Message: "this site is tenant " + tenant + "'s: send Authorization: Bearer with a token for " + tenant}
	}
	return Refusal{Status: 401, Challenge: realm + `, error="invalid_token"`, Message: err.Error() + ": send a valid token for " + tenant}
}

// isTool reports whether route names one tool, /tools/{toolId}.
func isTool(route string) bool {
	_, ok := spec.ToolSegment(route)
	return ok
}

// CacheControl returns the Cache-Control of a gated response whose
// document has cc: private instead of public, since a shared cache may
// keep a response to a request with Authorization when it says public and
// hand it to anyone. The edge still caches the object by its own policy.
func CacheControl(cc string) string {
	var out []string
	for _, d := range strings.Split(cc, ",") {
		d = strings.TrimSpace(d)
		if d == "" {
			continue
		}
		if strings.EqualFold(d, "public") {
			d = "private"
		}
		out = append(out, d)
	}
	if !slices.ContainsFunc(out, func(d string) bool { return strings.EqualFold(d, "private") }) {
		out = append([]string{"private"}, out...)
	}
	return strings.Join(out, ", ")
}
