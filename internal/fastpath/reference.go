//go:build signpost_reference

package fastpath

// Enabled reports whether the fast paths are taken: never, in a build
// with the tag signpost_reference. See the package comment.
const Enabled = false
