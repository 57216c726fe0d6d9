package signing

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
)

// b64 is base64url without padding, JOSE's encoding.
var b64 = base64.RawURLEncoding

// keygenAttempts bounds the draws of GenerateKey: a draw of 32 random
// bytes is a valid P-256 scalar but with a probability of about 2^-32.
const keygenAttempts = 64

// GenerateKey makes a P-256 private key from the bytes of random: 32 at a
// time, the first draw that is a valid scalar (not zero, below the order
// of the curve). The same bytes make the same key, which is what a test
// gives it; crypto/rand.Reader otherwise.
func GenerateKey(random io.Reader) (*ecdsa.PrivateKey, error) {
	var d [32]byte
	for range keygenAttempts {
		if _, err := io.ReadFull(random, d[:]); err != nil {
			return nil, fmt.Errorf("generate a P-256 key: read random bytes: %w", err)
		}
		if k, err := ecdsa.ParseRawPrivateKey(elliptic.P256(), d[:]); err == nil {
			return k, nil
		}
	}
	return nil, errors.New("generate a P-256 key: the random source gave no valid scalar in 64 draws; it is not random")
}

// jwk is a P-256 key as a JSON Web Key (RFC 7517, 7518): its members in
// the order RFC 7638 sorts them, d last and only in a private key.
type jwk struct {
	Crv string `json:"crv"`
	Kty string `json:"kty"`
	X   string `json:"x"`
	Y   string `json:"y"`
	D   string `json:"d,omitempty"`
}

func coordinates(pub *ecdsa.PublicKey) (x, y []byte, err error) {
	raw, err := pub.Bytes() // 0x04 || X || Y
	if err != nil || len(raw) != 65 {
		return nil, nil, errors.New("not a P-256 public key")
	}
	return raw[1:33], raw[33:], nil
}

func publicJWK(pub *ecdsa.PublicKey) (jwk, error) {
	x, y, err := coordinates(pub)
	if err != nil {
		return jwk{}, err
	}
	return jwk{Crv: "P-256", Kty: "EC", X: b64.EncodeToString(x), Y: b64.EncodeToString(y)}, nil
}

// PublicJWK is the public key as a JWK object: {"crv":"P-256","kty":"EC",
// "x":…,"y":…}, with nothing private.
func PublicJWK(pub *ecdsa.PublicKey) (map[string]any, error) {
	k, err := publicJWK(pub)
	if err != nil {
		return nil, err
	}
	return map[string]any{"crv": k.Crv, "kty": k.Kty, "x": k.X, "y": k.Y}, nil
}

// Thumbprint is the JWK thumbprint of the public key (RFC 7638: the
// base64url SHA-256 of its required members in canonical form), the
// fragment of its verification method in the DID document: a different
// key has a different one, so that two keys can be listed at once while a
// key is rotated.
func Thumbprint(pub *ecdsa.PublicKey) (string, error) {
	k, err := publicJWK(pub)
	if err != nil {
		return "", err
	}
	data, err := json.Marshal(k) // members sorted, no whitespace, no d
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(data)
	return b64.EncodeToString(sum[:]), nil
}

// MarshalPrivateJWK writes the private key as a JWK, on one line and
// without a final newline: what signpost keygen writes, to a file or a
// secret, and what ParsePrivateJWK reads.
func MarshalPrivateJWK(k *ecdsa.PrivateKey) ([]byte, error) {
	pub, err := publicJWK(&k.PublicKey)
	if err != nil {
		return nil, err
	}
	d, err := k.Bytes()
	if err != nil {
		return nil, fmt.Errorf("encode the private key: %w", err)
	}
	pub.D = b64.EncodeToString(d)
	return json.Marshal(pub)
}

// ParsePrivateJWK reads a P-256 private key written as a JWK. Its errors
// say what is wrong without repeating any of the key's text.
func ParsePrivateJWK(data []byte) (*ecdsa.PrivateKey, error) {
	var k jwk
	dec := json.NewDecoder(bytes.NewReader(bytes.TrimSpace(data)))
	if err := dec.Decode(&k); err != nil {
		return nil, errors.New("not a JSON Web Key: expected the JSON object signpost keygen writes")
	}
	if k.Kty != "EC" || k.Crv != "P-256" {
		return nil, errors.New("not a P-256 key: a JWK with kty EC and crv P-256 is needed (signpost keygen makes one)")
	}
	if k.D == "" {
		return nil, errors.New("a public key: the JWK has no d, the private part, which signing needs")
	}
	d, err := b64.DecodeString(k.D)
	if err != nil || len(d) != 32 {
		return nil, errors.New("the JWK's d is not 32 bytes of base64url")
	}
	priv, err := ecdsa.ParseRawPrivateKey(elliptic.P256(), d)
	if err != nil {
		return nil, errors.New("the JWK's d is not a valid P-256 private key")
	}
	if k.X != "" || k.Y != "" {
		want, _ := publicJWK(&priv.PublicKey)
		if k.X != want.X || k.Y != want.Y {
			return nil, errors.New("the JWK's x and y are not the public key of its d")
		}
	}
	return priv, nil
}

// ParsePublicJWK reads a P-256 public key written as a JWK (members other
// than kty, crv, x and y are ignored; a JWK with d is refused, for a
// public key is asked for and a private one would be published).
func ParsePublicJWK(v map[string]any) (*ecdsa.PublicKey, error) {
	str := func(name string) string { s, _ := v[name].(string); return s }
	if _, ok := v["d"]; ok {
		return nil, errors.New("a private key: give the public key only (kty, crv, x and y), which is published")
	}
	if str("kty") != "EC" || str("crv") != "P-256" {
		return nil, errors.New("not a P-256 key: kty must be EC and crv P-256")
	}
	x, errX := b64.DecodeString(str("x"))
	y, errY := b64.DecodeString(str("y"))
	if errX != nil || errY != nil || len(x) != 32 || len(y) != 32 {
		return nil, errors.New("x and y must each be 32 bytes of base64url")
	}
	raw := append(append([]byte{4}, x...), y...)
	pub, err := ecdsa.ParseUncompressedPublicKey(elliptic.P256(), raw)
	if err != nil {
		return nil, errors.New("x and y are not a point of P-256")
	}
	return pub, nil
}

// DERToJOSE turns an ASN.1 DER ECDSA signature (SEQUENCE { r INTEGER,
// s INTEGER }), as crypto/ecdsa and AWS KMS give it, into JOSE's form for
// ES256: r and s as 32 bytes each, big-endian, concatenated (RFC 7518,
// 3.4).
func DERToJOSE(der []byte) ([]byte, error) {
	bad := errors.New("not a DER ECDSA signature")
	// A small reader of DER, enough for two INTEGERs in a SEQUENCE.
	readTLV := func(b []byte, tag byte) (val, rest []byte, err error) {
		if len(b) < 2 || b[0] != tag {
			return nil, nil, bad
		}
		n, off := int(b[1]), 2
		if n&0x80 != 0 {
			if n != 0x81 || len(b) < 3 {
				return nil, nil, bad
			}
			n, off = int(b[2]), 3
		}
		if len(b) < off+n {
			return nil, nil, bad
		}
		return b[off : off+n], b[off+n:], nil
	}
	seq, rest, err := readTLV(der, 0x30)
	if err != nil || len(rest) != 0 {
		return nil, bad
	}
	r, seq, err := readTLV(seq, 0x02)
	if err != nil {
		return nil, err
	}
	s, seq, err := readTLV(seq, 0x02)
	if err != nil || len(seq) != 0 {
		return nil, bad
	}
	out := make([]byte, 64)
	for i, n := range [][]byte{r, s} {
		v := new(big.Int).SetBytes(n)
		if v.Sign() <= 0 || v.BitLen() > 256 {
			return nil, bad
		}
		v.FillBytes(out[i*32 : (i+1)*32])
	}
	return out, nil
}
