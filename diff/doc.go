// Package diff tells what changed between two versions of a catalog, each
// a catalog folder, a built site or a Git revision, risks first, and writes
// it as text, Markdown or JSON.
package diff
