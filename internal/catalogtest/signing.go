package catalogtest

import (
	"crypto/ecdsa"
	"crypto/sha256"
	"testing"

	"github.com/signpost-dev/signpost/build/signing"
)

// seeded is a deterministic byte source: SHA-256 of the seed and a
// counter, block after block.
type seeded struct {
	seed string
	n    byte
	buf  []byte
}

func (s *seeded) Read(p []byte) (int, error) {
	for i := range p {
		if len(s.buf) == 0 {
			sum := sha256.Sum256(append([]byte(s.seed), s.n))
			s.n++
			s.buf = sum[:]
		}
		p[i], s.buf = s.buf[0], s.buf[1:]
	}
	return len(p), nil
}

// SigningKey is a fixed P-256 key of the tests, the same for a seed on
// every run: the key of the signed test catalog ("current"), and the key
// of its previous rotation ("previous"). It signs nothing outside tests.
func SigningKey(t testing.TB, seed string) *ecdsa.PrivateKey {
	t.Helper()
	k, err := signing.GenerateKey(&seeded{seed: "signpost test key " + seed})
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// SigningKeyJWK is SigningKey written as the JWK signpost keygen writes:
// what an environment variable named by signing.key holds.
func SigningKeyJWK(t testing.TB, seed string) string {
	t.Helper()
	data, err := signing.MarshalPrivateJWK(SigningKey(t, seed))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
