package check

import (
	"context"

	"github.com/signpost-dev/signpost/check/documents"
	"github.com/signpost-dev/signpost/check/jsonval"
)

// The probes and helpers that the tests of package check_test reach: the
// tests break a site on exactly the requests the checker makes.
const (
	UnknownID   = unknownID
	UnknownView = unknownView
)

var RuleLevel = ruleLevel

// Show is how a finding quotes a JSON value.
var Show = jsonval.Show

// ToolCatalogEntry returns the toolCatalog object of a decoded AI catalog
// entry that advertises a tool catalog, as the checker reads it, and nil
// for other entries.
func ToolCatalogEntry(e map[string]any) map[string]any {
	tc := documents.AIEntryOf(e).ToolCatalog
	if tc == nil {
		return nil
	}
	m, _ := jsonval.Object(tc.Value)
	return m
}

// RunHeld is Run, returning besides the report the most bytes of bodies it
// held at once, in flight or kept.
func RunHeld(ctx context.Context, base string, opts Options) (*Report, int64, error) {
	c, err := newChecker(ctx, base, opts)
	if err != nil {
		return nil, 0, err
	}
	c.run(ctx)
	return c.report(), c.peakHeld, ctx.Err()
}
