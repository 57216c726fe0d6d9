package signing

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Signer makes the ES256 signatures of a catalog.
type Signer interface {
	// Sign signs the JWS signing input payload with ECDSA P-256 over its
	// SHA-256 and returns the signature in JOSE's form: r and s, 32 bytes
	// each (64 in all).
	Sign(ctx context.Context, payload []byte) ([]byte, error)
	// PublicJWK is the public key that verifies what Sign signs.
	PublicJWK() *ecdsa.PublicKey
	// KeyID is the fragment of the key's verification method in the DID
	// document: its JWK thumbprint (Thumbprint).
	KeyID() string
	// Deterministic reports whether the same payload is always signed
	// with the same bytes (RFC 6979), which a reproducible build needs.
	Deterministic() bool
}

// KeySigner signs with a private key held in memory: deterministic ECDSA
// (RFC 6979), so that two builds of one commit are the same bytes.
type KeySigner struct {
	key *ecdsa.PrivateKey
	kid string
}

// NewKeySigner is the Signer of a P-256 private key.
func NewKeySigner(key *ecdsa.PrivateKey) (*KeySigner, error) {
	kid, err := Thumbprint(&key.PublicKey)
	if err != nil {
		return nil, err
	}
	return &KeySigner{key: key, kid: kid}, nil
}

// Sign implements Signer, deterministically (RFC 6979).
func (s *KeySigner) Sign(ctx context.Context, payload []byte) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	sum := sha256.Sum256(payload)
	der, err := s.key.Sign(nil, sum[:], crypto.SHA256) // nil: RFC 6979
	if err != nil {
		return nil, fmt.Errorf("sign: %w", err)
	}
	return DERToJOSE(der)
}

// PublicJWK implements Signer.
func (s *KeySigner) PublicJWK() *ecdsa.PublicKey { return &s.key.PublicKey }

// KeyID implements Signer.
func (s *KeySigner) KeyID() string { return s.kid }

// Deterministic implements Signer: true.
func (s *KeySigner) Deterministic() bool { return true }

// String never shows the key.
func (s *KeySigner) String() string { return "signing key " + s.kid }

// GoString never shows the key.
func (s *KeySigner) GoString() string { return s.String() }

// The sources of a key that signing.key names.
const (
	SourceEnv  = "env"
	SourceFile = "file"
	SourceKMS  = "kms"
)

// ParseSource splits a signing.key value into its kind (env, file or kms)
// and what it names: an environment variable, a file, a KMS key's ARN.
func ParseSource(s string) (kind, name string, err error) {
	kind, name, ok := strings.Cut(s, ":")
	switch {
	case !ok || name == "":
		return "", "", fmt.Errorf("%q names no key: write env:VARIABLE, file:PATH or kms:ARN", s)
	case kind != SourceEnv && kind != SourceFile && kind != SourceKMS:
		return "", "", fmt.Errorf("%q: unknown key source %q: write env:VARIABLE, file:PATH or kms:ARN", s, kind)
	}
	return kind, name, nil
}

// OpenLocal opens the key of an env: or file: source (see ParseSource):
// the private JWK that signpost keygen writes, held in the environment
// variable (getenv reads it) or in the file, a path relative to dir, the
// catalog folder, and outside it: a key inside the catalog folder would be
// committed with it. Errors never repeat the key.
func OpenLocal(kind, name, dir string, getenv func(string) string) (*KeySigner, error) {
	var data []byte
	switch kind {
	case SourceEnv:
		v := getenv(name)
		if v == "" {
			return nil, fmt.Errorf("the environment variable %s that signing.key names is not set: set it to the key signpost keygen prints", name)
		}
		data = []byte(v)
	case SourceFile:
		path := name
		if !filepath.IsAbs(path) {
			path = filepath.Join(dir, path)
		}
		if inside(dir, path) {
			return nil, fmt.Errorf("the key file %s is inside the catalog folder, which is committed and published from: keep it outside, or hold the key in an environment variable (env:NAME)", name)
		}
		info, err := os.Stat(path)
		if err != nil {
			return nil, fmt.Errorf("read the signing key: %w", err)
		}
		if !info.Mode().IsRegular() || info.Size() > 4096 {
			return nil, fmt.Errorf("the signing key %s is not a small regular file: signpost keygen --out writes one", name)
		}
		if data, err = os.ReadFile(path); err != nil {
			return nil, fmt.Errorf("read the signing key: %w", err)
		}
	default:
		return nil, fmt.Errorf("a %s: key is not local", kind)
	}
	key, err := ParsePrivateJWK(data)
	if err != nil {
		return nil, fmt.Errorf("the signing key (%s:%s): %w", kind, name, err)
	}
	return NewKeySigner(key)
}

// inside reports whether path is dir or below it.
func inside(dir, path string) bool {
	ad, err1 := filepath.Abs(dir)
	ap, err2 := filepath.Abs(path)
	if err1 != nil || err2 != nil {
		return false
	}
	if ed, err := filepath.EvalSymlinks(ad); err == nil {
		ad = ed
	}
	if ep, err := filepath.EvalSymlinks(filepath.Dir(ap)); err == nil {
		ap = filepath.Join(ep, filepath.Base(ap))
	}
	rel, err := filepath.Rel(ad, ap)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
