// Package fastpath is the one switch of signpost's fast paths: code
// written beside a reference it shadows (net/http, encoding/json, the
// JSON Schema validator, the YAML parser, os.WriteFile, the tokenizer
// library), faster on the usual input and held to the reference's output
// by a test. docs/performance.md lists them.
//
// Enabled is true in an ordinary build. Built with the tag
// signpost_reference (go test -tags signpost_reference ./...), it is false
// and every fast path steps aside: the reference does all the work, so
// that the whole suite, goldens included, can be run both ways and show
// that the fast paths change nothing a user sees.
package fastpath
