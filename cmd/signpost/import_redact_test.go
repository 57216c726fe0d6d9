package main

import (
	"strings"
	"testing"

	"github.com/signpost-dev/signpost/importer"
	"github.com/signpost-dev/signpost/internal/fakecred"
)

// TestImportLinesRedact: the line import prints of a tool or a server
// quotes names and reasons from the documents, and never a credential in
// them.
func TestImportLinesRedact(t *testing.T) {
	tok := "gh" + "p_" + fakecred.Chars("import-line", 36, fakecred.Alnum)
	for _, line := range []string{
		mcpImportLine(importer.Tool{Source: "rec.json#/result/tools/0", Name: tok, Status: importer.LeftOut, Reason: "named " + tok}, true),
		mcpImportLine(importer.Tool{Source: "rec.json#/result/tools/1", Name: "get_" + tok, Status: importer.Imported}, false),
		importLine(importer.Server{Source: "server.json", Name: "com.example/" + tok, Status: importer.Imported}, true),
	} {
		if strings.Contains(line, tok[4:12]) {
			t.Errorf("import line repeats the credential: %s", line)
		}
	}
}
