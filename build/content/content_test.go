package content

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"testing"
)

func TestBody(t *testing.T) {
	whole := []byte(`[{"toolId":"a"},{"toolId":"b"}]` + "\n")
	splits := []Body{
		New(whole),
		New(whole[:1], whole[1:16], whole[16:17], whole[17:]),
		New(nil, whole[:5], []byte{}, whole[5:]),
	}
	sum := sha256.Sum256(whole)
	for i, b := range splits {
		if b.Len() != int64(len(whole)) || !bytes.Equal(b.Bytes(), whole) {
			t.Errorf("split %d: %d bytes %q, want %q", i, b.Len(), b.Bytes(), whole)
		}
		var buf bytes.Buffer
		if n, err := b.WriteTo(&buf); err != nil || n != int64(len(whole)) || !bytes.Equal(buf.Bytes(), whole) {
			t.Errorf("split %d: WriteTo wrote %d bytes %q, %v", i, n, buf.Bytes(), err)
		}
		if got := b.SHA256(); got != hex.EncodeToString(sum[:]) {
			t.Errorf("split %d: SHA-256 %s", i, got)
		}
		for j, o := range splits {
			if !b.Equal(o) {
				t.Errorf("split %d differs from split %d", i, j)
			}
		}
	}
	other := New(whole[:len(whole)-2], []byte("}\n"))
	if splits[1].Equal(other) || other.Equal(splits[0]) {
		t.Error("bodies of the same length and different bytes are equal")
	}
	if splits[0].Equal(New(whole[:10])) {
		t.Error("a body equals its prefix")
	}
	var zero Body
	if zero.Len() != 0 || zero.Bytes() != nil || !zero.Equal(New([]byte{})) {
		t.Error("the zero Body is not empty")
	}
}
