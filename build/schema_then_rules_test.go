package build

import "testing"

// TestSchemaErrorThenRules: a tool whose field fails the schema still has
// its other fields checked, and so does every other tool of the file: one
// run reports every error, in file order, and nothing twice. The checks
// made after the schema say nothing of the value that failed it (toolId
// is a number here: no toolId rule repeats that), nor of a missing field.
func TestSchemaErrorThenRules(t *testing.T) {
	checkDiags(t, map[string]string{
		"signpost.yaml": testConfig + "tenants: [acme]\n",
		"t.yaml": "tools:\n" +
			toolDecl("toolId", "get_forecast", "safetyTier", "danger", "tenants", "[globex]") +
			toolDecl("toolId", "12", "tenants", "[acme, initech]") +
			toolDecl("toolId", "Bad-Id") +
			toolDecl("toolId", "no_egress", "egress", "-", "tenants", "[globex]"),
	},
		`t.yaml:5:17: must be one of pure, read, write, exec; got "danger"`,
		`t.yaml:8:15: unknown tenant "globex": signpost.yaml declares acme`,
		"t.yaml:9:13: must be a string, got number",
		`t.yaml:15:21: unknown tenant "initech": signpost.yaml declares acme`,
		`t.yaml:16:13: toolId "Bad-Id" is not ASCII snake case (lower-case letters and digits in words joined by single underscores, starting with a letter), for example "bad_id"`,
		`t.yaml:22:5: missing required field "egress"`,
		`t.yaml:27:15: unknown tenant "globex": signpost.yaml declares acme`,
	)
}
