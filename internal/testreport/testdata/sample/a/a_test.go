package a

import "testing"

func TestPass(t *testing.T) { t.Log("quiet") }

func TestSkip(t *testing.T) { t.Skip("needs a server: not in -short mode") }

func TestFail(t *testing.T) {
	t.Run("ok", func(t *testing.T) {})
	t.Run("bad", func(t *testing.T) { t.Error("got 1, want 2") })
	t.Run("skipped", func(t *testing.T) { t.Skipf("no %s", "node") })
}
