// Package signatures verifies the signatures of an AI catalog (AI Catalog
// 1.0, Signature Object and the did:web Signer, Publisher and Catalog
// Profiles) with code of the checker's own: the detached JWS over the
// canonical form without its jws (check/jsonval), ES256, the root did:web
// DID and the keys its DID document authorizes, and a publisher's Trust
// Manifest bound to its entry. Nothing here is shared with the compiler's
// build/signing, which made the signatures. It reads no network: the
// checker fetches the DID document and hands it over (Verifier.DID).
package signatures

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"math/big"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/check/jsonval"
)

// The profile, and the typ of each kind of signed object.
const (
	didWebProfile    = "did-web-v1"
	TypCatalog       = "ai-catalog+jws"
	TypTrustManifest = "ai-catalog-trust-manifest+jws"
)

// rootDIDWebRe is a root did:web DID as the profile takes it: a lower-case
// ASCII domain, no port, no path (an IP address is refused apart).
var rootDIDWebRe = regexp.MustCompile(`^did:web:([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*)$`)

// DIDDomain is the domain of a root did:web DID, "" when did is none.
func DIDDomain(did string) string {
	m := rootDIDWebRe.FindStringSubmatch(did)
	if m == nil {
		return ""
	}
	labels := strings.Split(m[1], ".")
	last := labels[len(labels)-1]
	if strings.Trim(last, "0123456789") == "" {
		return "" // an IP address, or what reads as one
	}
	return m[1]
}

// DIDURL is where did:web:DOMAIN's document is: https://DOMAIN/.well-known/did.json.
func DIDURL(domain string) string { return "https://" + domain + spec.RouteDIDDocument }

// SignatureOf is obj.signature, nil when obj has none.
func SignatureOf(obj map[string]any) map[string]any {
	s, _ := jsonval.Object(obj["signature"])
	return s
}

// Verifier verifies signatures against one DID document.
type Verifier struct {
	DID map[string]any // the DID document, nil when none was read
	// DIDErr says why there is none.
	DIDErr string
	// Now is the time a signature's issuedAt and expiresAt are held to.
	Now time.Time
}

// Verify checks the signature of obj (a catalog or a Trust Manifest) under
// the did:web Signer Profile, with the protected typ typ: the signer it
// authenticates, or why it does not.
func (v *Verifier) Verify(obj map[string]any, typ string) (signer string, why string) {
	sig := SignatureOf(obj)
	if sig == nil {
		return "", "no signature object"
	}
	str := func(k string) string { s, _ := sig[k].(string); return s }
	signer = str("signer")
	switch {
	case str("profile") != didWebProfile:
		return "", fmt.Sprintf("profile %s is not %s, the one this check supports", jsonval.Show(sig["profile"]), didWebProfile)
	case DIDDomain(signer) == "":
		return "", fmt.Sprintf("signer %s is not a root did:web DID (lower-case domain, no port, no IP address)", jsonval.Show(sig["signer"]))
	}
	issued, err := time.Parse(time.RFC3339, str("issuedAt"))
	if err != nil {
		return "", "issuedAt " + jsonval.Show(sig["issuedAt"]) + " is not an RFC 3339 time"
	}
	var expires time.Time
	if _, ok := sig["expiresAt"]; ok {
		if expires, err = time.Parse(time.RFC3339, str("expiresAt")); err != nil || !expires.After(issued) {
			return "", "expiresAt " + jsonval.Show(sig["expiresAt"]) + " is not an RFC 3339 time after issuedAt"
		}
	}
	h64, s64, ok := strings.Cut(str("jws"), "..")
	if !ok || strings.Contains(s64, ".") {
		return "", "jws is not a detached compact JWS (HEADER..SIGNATURE)"
	}
	hb, err := base64.RawURLEncoding.DecodeString(h64)
	if err != nil {
		return "", "the JWS header is not base64url"
	}
	hv, err := jsonval.Decode(hb)
	header, isObj := jsonval.Object(hv)
	if err != nil || !isObj || jsonval.NotJCSInput(hb) != "" {
		return "", "the JWS header is not a JSON object (each member once)"
	}
	hs := func(k string) string { s, _ := header[k].(string); return s }
	if alg := hs("alg"); alg != "ES256" {
		return "", fmt.Sprintf("alg %s: the did-web-v1 profile takes ES256 only (none never)", jsonval.Show(header["alg"]))
	}
	if hs("typ") != typ {
		return "", fmt.Sprintf("typ %s, want %s", jsonval.Show(header["typ"]), typ)
	}
	for _, k := range []string{"b64", "jku", "jwk", "x5u", "x5c", "crit"} {
		if _, ok := header[k]; ok {
			return "", "the protected header has " + k + ", which the profile refuses"
		}
	}
	kid := hs("kid")
	if frag, ok := strings.CutPrefix(kid, signer+"#"); !ok || frag == "" || strings.ContainsAny(frag, "/?#") {
		return "", fmt.Sprintf("kid %s is not the signer %s followed by #FRAGMENT", jsonval.Show(header["kid"]), signer)
	}
	pub, why := v.key(signer, kid)
	if pub == nil {
		return "", why
	}
	sb, err := base64.RawURLEncoding.DecodeString(s64)
	if err != nil || len(sb) != 64 {
		return "", "the JWS signature is not 64 bytes of base64url"
	}
	payload, err := signedPayload(obj)
	if err != nil {
		return "", "the payload has no canonical form: " + err.Error()
	}
	sum := sha256.Sum256([]byte(h64 + "." + base64.RawURLEncoding.EncodeToString(payload)))
	if !ecdsa.Verify(pub, sum[:], new(big.Int).SetBytes(sb[:32]), new(big.Int).SetBytes(sb[32:])) {
		return "", "the signature does not verify with " + kid + " over the canonical form without jws"
	}
	switch {
	case v.Now.Before(issued.Add(-5 * time.Minute)):
		return "", "issuedAt " + str("issuedAt") + " is in the future"
	case !expires.IsZero() && !v.Now.Before(expires):
		return "", "expired at " + str("expiresAt")
	}
	return signer, ""
}

// key is the P-256 key of the verification method kid that the DID
// document authorizes under assertionMethod for signer.
func (v *Verifier) key(signer, kid string) (*ecdsa.PublicKey, string) {
	if v.DID == nil {
		return nil, "no DID document: " + v.DIDErr
	}
	if id, _ := v.DID["id"].(string); id != signer {
		return nil, fmt.Sprintf("the DID document's id %s is not the signer %s", jsonval.Show(v.DID["id"]), signer)
	}
	resolve := func(id string) string {
		if strings.HasPrefix(id, "#") {
			return signer + id
		}
		return id
	}
	var method map[string]any
	found := 0
	methods, _ := jsonval.Array(v.DID["verificationMethod"])
	assertion, _ := jsonval.Array(v.DID["assertionMethod"])
	for _, a := range assertion {
		var m map[string]any
		if s, ok := a.(string); ok {
			if resolve(s) != kid {
				continue
			}
			for _, vm := range methods {
				if o, _ := jsonval.Object(vm); o != nil {
					if id, _ := o["id"].(string); resolve(id) == kid {
						m = o
					}
				}
			}
		} else if o, _ := jsonval.Object(a); o != nil {
			if id, _ := o["id"].(string); resolve(id) == kid {
				m = o
			}
		}
		if m != nil {
			method = m
			found++
		}
	}
	switch {
	case found == 0:
		return nil, "the DID document authorizes no key " + kid + " under assertionMethod"
	case found > 1:
		return nil, "the DID document lists " + kid + " more than once"
	}
	if c, _ := method["controller"].(string); c != signer {
		return nil, fmt.Sprintf("the key %s is controlled by %s, not the signer", kid, jsonval.Show(method["controller"]))
	}
	jwk, _ := jsonval.Object(method["publicKeyJwk"])
	s := func(k string) string { x, _ := jwk[k].(string); return x }
	if _, ok := jwk["d"]; ok {
		return nil, "the key " + kid + " in the DID document holds private key material"
	}
	if s("kty") != "EC" || s("crv") != "P-256" {
		return nil, "the key " + kid + " is not a P-256 publicKeyJwk"
	}
	if a, ok := jwk["alg"]; ok && a != "ES256" {
		return nil, "the key " + kid + " is for " + jsonval.Show(a) + ", not ES256"
	}
	x, errX := base64.RawURLEncoding.DecodeString(s("x"))
	y, errY := base64.RawURLEncoding.DecodeString(s("y"))
	if errX != nil || errY != nil || len(x) != 32 || len(y) != 32 {
		return nil, "the key " + kid + " has no valid x and y"
	}
	pub, err := ecdsa.ParseUncompressedPublicKey(elliptic.P256(), slices.Concat([]byte{4}, x, y))
	if err != nil {
		return nil, "the key " + kid + " is not a point of P-256"
	}
	return pub, ""
}

// signedPayload is the canonical form of obj without its signature's jws
// and its additionalSignatures.
func signedPayload(obj map[string]any) ([]byte, error) {
	cp := make(map[string]any, len(obj))
	for k, v := range obj {
		if k != "additionalSignatures" {
			cp[k] = v
		}
	}
	if sig := SignatureOf(obj); sig != nil {
		s := make(map[string]any, len(sig))
		for k, v := range sig {
			if k != "jws" {
				s[k] = v
			}
		}
		cp["signature"] = s
	}
	c, err := jsonval.Canonical(cp)
	return []byte(c), err
}

// entryDigest is the digest of an entry's inline data: sha256: and the hex
// SHA-256 of its canonical form.
func entryDigest(data any) (string, error) {
	c, err := jsonval.Canonical(data)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256([]byte(c))
	return "sha256:" + hex.EncodeToString(sum[:]), nil
}

// ManifestProblem says why the signed Trust Manifest m of the entry e is
// not a publisher's acceptable endorsement of it; "" when it is.
func (v *Verifier) ManifestProblem(e, m map[string]any, publisher string) string {
	signer, why := v.Verify(m, TypTrustManifest)
	if why != "" {
		return why
	}
	if contributor, _ := m["contributor"].(string); contributor != signer {
		return fmt.Sprintf("contributor %s is not the signer %s", jsonval.Show(m["contributor"]), signer)
	}
	if publisher == "" || "did:web:"+publisher != signer {
		return fmt.Sprintf("signer %s is not did:web: and the entry identifier's publisher (the Publisher Profile)", signer)
	}
	subject, _ := jsonval.Object(m["subject"])
	if subject == nil {
		return "no subject"
	}
	for _, k := range []string{"identifier", "type"} {
		if subject[k] != e[k] {
			return fmt.Sprintf("subject.%s %s is not the entry's %s", k, jsonval.Show(subject[k]), jsonval.Show(e[k]))
		}
	}
	for _, k := range []string{"version", "digest"} {
		sv, sok := subject[k]
		ev, eok := e[k]
		if sok != eok || sok && sv != ev {
			return fmt.Sprintf("subject.%s %s is not the entry's %s", k, jsonval.Show(sv), jsonval.Show(ev))
		}
	}
	su, hasURL := subject["url"]
	if hasURL {
		s, _ := su.(string)
		if su != e["url"] || !strings.HasPrefix(s, "https://") {
			return fmt.Sprintf("subject.url %s is not the entry's https url %s", jsonval.Show(su), jsonval.Show(e["url"]))
		}
	}
	d, hasDigest := subject["digest"]
	if !hasDigest && !hasURL {
		return "the subject binds neither a digest nor a url"
	}
	if data, ok := e["data"]; ok && hasDigest {
		got, err := entryDigest(data)
		if err != nil || got != d {
			return fmt.Sprintf("digest %s is not that of the entry's data (%s)", jsonval.Show(d), got)
		}
	}
	// A url entry's digest is verified against the bytes its url serves
	// by ai-catalog.digest.
	return ""
}
