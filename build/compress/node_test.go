package compress

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/signpost-dev/signpost/build/spec"
)

// Node's zlib, an implementation that shares nothing with the encoders
// here, decodes each variant to the body: a body of several parts, larger
// than a chunk, as a list of thousands of tools is. Skipped without node,
// but under CI.
func TestNodeDecodesVariants(t *testing.T) {
	bin, err := exec.LookPath("node")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("node is needed to decode the variants independently: %v", err)
		}
		t.Skipf("node not found: %v", err)
	}
	var parts [][]byte
	var whole bytes.Buffer
	for i := range 30000 {
		p := fmt.Appendf(nil, `{"toolId":"tool_%05d","description":"Does thing %d, in café %x."},`, i, i*7, i*i)
		parts = append(parts, p)
		whole.Write(p)
	}
	sum := sha256.Sum256(whole.Bytes())
	dir := t.TempDir()
	for _, coding := range spec.Encodings() {
		b, err := Encode(context.Background(), coding, partsReader(parts), int64(whole.Len()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, coding), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	const script = `
const fs = require("fs"), zlib = require("zlib"), crypto = require("crypto"), path = require("path");
const dir = process.argv[process.argv.length - 1];
const decode = {br: zlib.brotliDecompressSync, gzip: zlib.gunzipSync};
for (const coding of Object.keys(decode)) {
  const body = decode[coding](fs.readFileSync(path.join(dir, coding)));
  console.log(coding + " " + crypto.createHash("sha256").update(body).digest("hex"));
}`
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, "-e", script, "--", dir).CombinedOutput()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, out)
	}
	want := fmt.Sprintf("br %s\ngzip %s\n", hex.EncodeToString(sum[:]), hex.EncodeToString(sum[:]))
	if got := string(out); got != want {
		t.Errorf("node decoded the variants of a %d-byte body to\n%swant\n%s", whole.Len(), got, want)
	}
}
