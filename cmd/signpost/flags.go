package main

import (
	"github.com/signpost-dev/signpost/build"
)

// diagnosticFormats are the --format values of the commands that print
// diagnostics.
func diagnosticFormats() []string {
	return []string{build.FormatText, build.FormatJSON, build.FormatGitHub}
}

// reportFormats are the --format values of the commands that print a
// report.
func reportFormats() []string { return []string{build.FormatText, build.FormatJSON} }
