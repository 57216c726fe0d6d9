// Package floors holds the tests that keep the tree's floors as
// ARCHITECTURE.md draws them: which packages may import which, so that a
// folder's place says what it depends on; and where decoded JSON is read
// as a map (TestDecodingInOnePlace): in decode functions and in code that
// reads JSON open by nature, nowhere else. It has no code of its own.
package floors
