// Package serve answers HTTP for one site of a catalog folder or of a built
// site exactly as signpost's HTTP contract says.
package serve
