package signing

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/signpost-dev/signpost/build/jcs"
)

// The words of AI Catalog 1.0's signatures.
const (
	// Profile is the did:web Signer Profile's selector, which the
	// Publisher and Catalog Profiles use too.
	Profile = "did-web-v1"
	// Alg is the one algorithm of the profile.
	Alg = "ES256"
	// TypCatalog is the protected typ of a catalog's root signature.
	TypCatalog = "ai-catalog+jws"
	// TypTrustManifest is the protected typ of a Trust Manifest's.
	TypTrustManifest = "ai-catalog-trust-manifest+jws"
)

// Detached signs payload as a JWS in compact serialization with its
// payload left out (RFC 7515, Appendix F): "HEADER..SIGNATURE", the
// protected header {"alg":"ES256","kid":kid,"typ":typ}.
func Detached(ctx context.Context, s Signer, kid, typ string, payload []byte) (string, error) {
	header, err := jcs.Marshal(map[string]any{"alg": Alg, "kid": kid, "typ": typ})
	if err != nil {
		return "", err
	}
	h := b64.EncodeToString(header)
	input := h + "." + b64.EncodeToString(payload)
	sig, err := s.Sign(ctx, []byte(input))
	if err != nil {
		return "", err
	}
	if len(sig) != 64 {
		return "", fmt.Errorf("the signer gave a signature of %d bytes, not the 64 of ES256", len(sig))
	}
	return h + ".." + b64.EncodeToString(sig), nil
}

// Options are what a catalog is signed with.
type Options struct {
	// Domain is the publisher's domain: the signer is did:web:Domain,
	// the publisher of every urn:air:Domain:… entry.
	Domain string
	// IssuedAt is every signature's issuedAt; ExpiresAt, when not zero,
	// its expiresAt, later than IssuedAt.
	IssuedAt, ExpiresAt time.Time
	// Versions are the versions entries name before they are signed, by
	// identifier: AI Catalog 1.0 lets an entry restate its artifact's
	// version when it needs to be signed, and the manifest binds it.
	Versions map[string]string
}

// Timestamp is how a signature writes a time: RFC 3339 in UTC, to the
// second.
func Timestamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// Sign signs the AI catalog cat, a decoded catalog as discovery.AICatalog
// makes it, in place, under the did:web profiles:
//
//   - each entry of the publisher (urn:air:DOMAIN:…) gets one Trust
//     Manifest, its contributor the signer, signed under the Publisher
//     Profile, its subject the entry's identifier, type, version (when
//     the entry has one), and its digest, or, for an entry without one,
//     its url when that is https. An inline entry (data) is given its
//     digest first: the SHA-256 of the JCS form of its data, for an entry
//     without a URL must bind its manifest by digest. Another publisher's
//     entry, or an entry with neither a digest nor an https url, has none.
//   - host.identifier becomes the signer, which the Catalog Profile
//     requires, and the catalog gets its root signature, over every
//     member, the manifests included.
func Sign(ctx context.Context, s Signer, opts Options, doc any) error {
	cat, ok := doc.(map[string]any)
	if !ok {
		return errors.New("sign the AI catalog: it is not an object")
	}
	did, err := DIDWeb(opts.Domain)
	if err != nil {
		return err
	}
	if opts.IssuedAt.IsZero() {
		return errors.New("sign the AI catalog: no time of issue")
	}
	if !opts.ExpiresAt.IsZero() && !opts.ExpiresAt.After(opts.IssuedAt) {
		return errors.New("sign the AI catalog: it would expire before it is issued")
	}
	kid := did + "#" + s.KeyID()
	signature := func() map[string]any {
		sig := map[string]any{"signer": did, "profile": Profile, "issuedAt": Timestamp(opts.IssuedAt)}
		if !opts.ExpiresAt.IsZero() {
			sig["expiresAt"] = Timestamp(opts.ExpiresAt)
		}
		return sig
	}
	entries, _ := cat["entries"].([]any)
	prefix := "urn:air:" + opts.Domain + ":"
	for _, v := range entries {
		if err := ctx.Err(); err != nil {
			return err
		}
		e, ok := v.(map[string]any)
		id, _ := e["identifier"].(string)
		if !ok || !strings.HasPrefix(id, prefix) {
			continue
		}
		if v := opts.Versions[id]; v != "" {
			e["version"] = v
		}
		if data, ok := e["data"]; ok && e["digest"] == nil {
			canon, err := jcs.Marshal(data)
			if err != nil {
				return fmt.Errorf("the data of the entry %s: %w", id, err)
			}
			sum := sha256.Sum256(canon)
			e["digest"] = "sha256:" + hex.EncodeToString(sum[:])
		}
		subject := map[string]any{"identifier": id, "type": e["type"]}
		if ver, ok := e["version"]; ok {
			subject["version"] = ver
		}
		if d, ok := e["digest"]; ok {
			subject["digest"] = d
		} else if u, _ := e["url"].(string); strings.HasPrefix(u, "https://") {
			subject["url"] = u
		} else {
			continue
		}
		m := map[string]any{"contributor": did, "subject": subject, "signature": signature()}
		if err := signObject(ctx, s, kid, TypTrustManifest, m); err != nil {
			return fmt.Errorf("sign the Trust Manifest of %s: %w", id, err)
		}
		e["trustManifests"] = []any{m}
	}
	host, _ := cat["host"].(map[string]any)
	if host == nil {
		return errors.New("sign the AI catalog: it has no host")
	}
	host["identifier"] = did
	cat["signature"] = signature()
	if err := signObject(ctx, s, kid, TypCatalog, cat); err != nil {
		return fmt.Errorf("sign the AI catalog: %w", err)
	}
	return nil
}

// signObject sets obj.signature.jws to the detached JWS over Payload(obj).
func signObject(ctx context.Context, s Signer, kid, typ string, obj map[string]any) error {
	payload, err := Payload(obj)
	if err != nil {
		return err
	}
	jws, err := Detached(ctx, s, kid, typ, payload)
	if err != nil {
		return err
	}
	obj["signature"].(map[string]any)["jws"] = jws
	return nil
}

// Payload is what the signature of obj (a catalog or a Trust Manifest)
// signs: the JCS form of obj without its signature's jws and without its
// additionalSignatures, neither removed below those two places.
func Payload(obj map[string]any) ([]byte, error) {
	cp := make(map[string]any, len(obj))
	for k, v := range obj {
		cp[k] = v
	}
	delete(cp, "additionalSignatures")
	if sig, ok := obj["signature"].(map[string]any); ok {
		s := make(map[string]any, len(sig))
		for k, v := range sig {
			if k != "jws" {
				s[k] = v
			}
		}
		cp["signature"] = s
	}
	return jcs.Marshal(cp)
}
