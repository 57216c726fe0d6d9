// Package floors holds the test that keeps the tree's floors as
// ARCHITECTURE.md draws them: which packages may import which, so that a
// folder's place says what it depends on. It has no code of its own.
package floors
