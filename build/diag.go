package build

import "github.com/signpost-dev/signpost/build/diag"

// The diagnostics of Load, as package diag defines them: every one leaves
// the loader through a diag.Sink, redacted.
type (
	// Severity says whether a Diagnostic stops the build.
	Severity = diag.Severity
	// Diagnostic is one problem found in the declarations.
	Diagnostic = diag.Diagnostic
	// Diagnostics is a list of problems, in the order Sort gives them.
	Diagnostics = diag.Diagnostics
)

// The severities a Diagnostic can have.
const (
	Error   = diag.Error
	Warning = diag.Warning
)

// Formats accepted by Diagnostics.Write.
const (
	FormatText   = diag.FormatText
	FormatJSON   = diag.FormatJSON
	FormatGitHub = diag.FormatGitHub
)
