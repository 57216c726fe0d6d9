package check

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
