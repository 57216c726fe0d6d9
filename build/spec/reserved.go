package spec

import "strings"

// The objects a publish keeps beside a site's documents, at the root of the
// site's prefix: the manifest of what it uploaded, the paths it has yet to
// invalidate, and the error page a distribution answers unknown keys with;
// and, at the root of the target's prefix, the lock a publish holds while it
// changes the bucket.
const (
	ManifestKey            = ".signpost-manifest.json"
	PendingInvalidationKey = ".signpost-invalidation.json"
	ErrorDocumentKey       = ".signpost-404.json"
	LockKey                = ".signpost-lock.json"
)

// ReservedPrefix starts the name of every object signpost keeps for itself.
// No document's key and no segment of a target's prefix may start with it
// (Load refuses them), so that no catalog can overwrite publish's own
// objects or be overwritten by them.
const ReservedPrefix = ".signpost-"

// IsReservedName reports whether name, one segment of a key or prefix, is in
// the reserved namespace, in any case (some hosts fold it).
func IsReservedName(name string) bool {
	return strings.HasPrefix(strings.ToLower(name), ReservedPrefix)
}

// ReservedProblem is what a path or prefix in the reserved namespace is told.
const ReservedProblem = "must not have a segment starting with " + ReservedPrefix + ": publish keeps its own objects under such names"
