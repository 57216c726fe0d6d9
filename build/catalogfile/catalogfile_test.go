package catalogfile

import (
	"bytes"
	"testing"
	"testing/iotest"
)

// TestReadAll reads files whose size changed after it was measured, and
// files over the limit: what readAll returns is what io.ReadAll of a
// io.LimitReader would.
func TestReadAll(t *testing.T) {
	const limit = 101
	for _, n := range []int{0, 1, 99, 100, 101, 102, 1000} {
		data := bytes.Repeat([]byte("abcdefghij"), n/10+1)[:n]
		want := data[:min(n, limit)]
		for _, hint := range []int64{0, -1, int64(n) - 1, int64(n), int64(n) + 1, 1 << 20} {
			got, err := readAll(bytes.NewReader(data), hint, limit)
			if err != nil || !bytes.Equal(got, want) {
				t.Errorf("readAll(%d bytes, size %d) = %d bytes, %v; want %d bytes", n, hint, len(got), err, len(want))
			}
			got, err = readAll(iotest.OneByteReader(bytes.NewReader(data)), hint, limit)
			if err != nil || !bytes.Equal(got, want) {
				t.Errorf("readAll(%d bytes one at a time, size %d) = %d bytes, %v; want %d bytes", n, hint, len(got), err, len(want))
			}
		}
	}
	if _, err := readAll(iotest.ErrReader(iotest.ErrTimeout), 10, limit); err != iotest.ErrTimeout {
		t.Errorf("readAll of a failing reader: %v, want %v", err, iotest.ErrTimeout)
	}
}
