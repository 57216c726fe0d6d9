// Package diff tells what changed between two builds of a catalog, the
// risks a reviewer should look at twice first, and writes it as text,
// Markdown or JSON.
package diff
