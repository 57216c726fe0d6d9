// Package git runs git for signpost: it finds where a folder is in its
// repository and extracts a folder of a revision from the repository's
// objects.
package git
