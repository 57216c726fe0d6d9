package b

import "testing"

func TestB(t *testing.T) {}
