package check

import "context"

// The probes and helpers that the tests of package check_test reach: the
// tests break a site on exactly the requests the checker makes.
const (
	UnknownID   = unknownID
	UnknownView = unknownView
)

var (
	RuleLevel        = ruleLevel
	ToolCatalogEntry = toolCatalogEntry
)

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
