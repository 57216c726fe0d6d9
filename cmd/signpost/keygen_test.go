package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/signpost-dev/signpost/build/signing"
	"github.com/signpost-dev/signpost/cmd/signpost/internal/cmdutil"
)

// seq is a deterministic random source: the bytes 1, 2, 3, …
type seq struct{ n byte }

func (s *seq) Read(p []byte) (int, error) {
	for i := range p {
		s.n++
		p[i] = s.n
	}
	return len(p), nil
}

// TestKeygen: the same random bytes make the same key; printed, it is the
// one line of standard output; written, a file of mode 0600 that is never
// replaced; the key's id, on standard error, is its thumbprint.
func TestKeygen(t *testing.T) {
	var out, errOut bytes.Buffer
	o := &keygenOptions{io: cmdutil.Streams{Ctx: t.Context(), Out: &out, ErrOut: &errOut}, random: &seq{}}
	if err := runKeygen(o); err != nil {
		t.Fatal(err)
	}
	const want = `{"crv":"P-256","kty":"EC","x":"`
	if !strings.HasPrefix(out.String(), want) || !strings.HasSuffix(out.String(), `","d":"AQIDBAUGBwgJCgsMDQ4PEBESExQVFhcYGRobHB0eHyA"}`+"\n") {
		t.Fatalf("stdout %q", out.String())
	}
	key, err := signing.ParsePrivateJWK(out.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	kid, _ := signing.Thumbprint(&key.PublicKey)
	if !strings.Contains(errOut.String(), "made the key "+kid) || strings.Contains(errOut.String(), "AQIDBAUG") {
		t.Fatalf("stderr %q", errOut.String())
	}

	file := filepath.Join(t.TempDir(), "signing.jwk")
	printed := out.String()
	out.Reset()
	errOut.Reset()
	o = &keygenOptions{io: cmdutil.Streams{Ctx: t.Context(), Out: &out, ErrOut: &errOut}, random: &seq{}, out: file}
	if err := runKeygen(o); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(file)
	info, _ := os.Stat(file)
	if string(data) != printed || info.Mode().Perm() != 0o600 || out.Len() != 0 {
		t.Fatalf("file %q mode %v, stdout %q", data, info.Mode(), out.String())
	}
	o.random = &seq{n: 50}
	if err := runKeygen(o); err == nil || !strings.Contains(err.Error(), "the file exists") {
		t.Fatalf("second keygen: %v", err)
	}
	if again, _ := os.ReadFile(file); !bytes.Equal(again, data) {
		t.Fatal("keygen replaced a key")
	}
}
