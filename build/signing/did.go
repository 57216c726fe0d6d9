package signing

import (
	"crypto/ecdsa"
	"errors"
	"fmt"
	"strings"
)

// DIDWeb is the root did:web DID of domain, did:web:DOMAIN, held to the
// did:web Signer Profile's rules: lower-case ASCII, no port, no IP
// address, no trailing dot, no Unicode U-label (an IDNA A-label, xn--…,
// is fine). A port, which did:web itself would percent-encode as %3A, is
// refused by the profile, and so is a domain whose last label is all
// digits (an IPv4 address or what would read as one).
func DIDWeb(domain string) (string, error) {
	why := ""
	switch {
	case domain == "":
		why = "it is empty"
	case len(domain) > 253:
		why = "it is longer than 253 characters"
	case strings.HasSuffix(domain, "."):
		why = "it ends with a dot"
	case strings.ContainsAny(domain, ":[]"):
		why = "it has a port or is an IPv6 address"
	}
	if why == "" {
		labels := strings.Split(domain, ".")
		for _, l := range labels {
			if !validLabel(l) {
				why = fmt.Sprintf("its label %q is not lower-case ASCII letters, digits and inner hyphens of at most 63", l)
				break
			}
		}
		if why == "" && allDigits(labels[len(labels)-1]) {
			why = "it is an IP address, or ends with an all-digit label as one does"
		}
	}
	if why != "" {
		return "", fmt.Errorf("%q cannot be a root did:web domain: %s", domain, why)
	}
	return "did:web:" + domain, nil
}

func validLabel(l string) bool {
	if l == "" || len(l) > 63 || l[0] == '-' || l[len(l)-1] == '-' {
		return false
	}
	for i := 0; i < len(l); i++ {
		c := l[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// DIDDocument is the DID document of did, as /.well-known/did.json
// publishes it: each key a verification method of type JsonWebKey2020
// whose id is did#THUMBPRINT, controlled by did, with its public JWK, and
// each authorized under assertionMethod, the relationship the did:web
// Signer Profile requires; current first, then previous, the keys of a
// rotation that signatures still in circulation name. A key listed twice
// is listed once.
func DIDDocument(did string, current *ecdsa.PublicKey, previous []*ecdsa.PublicKey) (map[string]any, error) {
	var methods, assertion []any
	seen := map[string]bool{}
	for _, k := range append([]*ecdsa.PublicKey{current}, previous...) {
		if k == nil {
			return nil, errors.New("the DID document: no key")
		}
		thumb, err := Thumbprint(k)
		if err != nil {
			return nil, err
		}
		if seen[thumb] {
			continue
		}
		seen[thumb] = true
		pub, err := PublicJWK(k)
		if err != nil {
			return nil, err
		}
		id := did + "#" + thumb
		methods = append(methods, map[string]any{"id": id, "type": "JsonWebKey2020", "controller": did, "publicKeyJwk": pub})
		assertion = append(assertion, id)
	}
	return map[string]any{
		"@context":           []any{"https://www.w3.org/ns/did/v1", "https://w3id.org/security/suites/jws-2020/v1"},
		"id":                 did,
		"verificationMethod": methods,
		"assertionMethod":    assertion,
	}, nil
}
