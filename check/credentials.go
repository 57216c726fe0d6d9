package check

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/signpost-dev/signpost/check/jsonval"
	"github.com/signpost-dev/signpost/internal/fastpath"
)

// Credential material: small, high-precision patterns, each tried only on
// a string that holds one of its hints (a substring of every match), so that
// a large document costs a scan for the hints rather than a run of every
// expression (in a build without fast paths, package fastpath, every
// expression runs).
var secretPatterns = []struct {
	re    *regexp.Regexp
	hints []string
	what  string
}{
	{regexp.MustCompile(`-----BEGIN [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----`), []string{"PRIVATE KEY"}, "a private key"},
	{regexp.MustCompile(`\b(AKIA|ASIA)[0-9A-Z]{16}\b`), []string{"AKIA", "ASIA"}, "an AWS access key id"},
	{regexp.MustCompile(`\bgh[pousr]_[A-Za-z0-9]{36,}\b`), []string{"gh"}, "a GitHub token"},
	{regexp.MustCompile(`\bgithub_pat_[A-Za-z0-9_]{40,}\b`), []string{"github_pat_"}, "a GitHub token"},
	{regexp.MustCompile(`\bglpat-[A-Za-z0-9_-]{20,}\b`), []string{"glpat-"}, "a GitLab token"},
	{regexp.MustCompile(`\bxox[abposr]-[A-Za-z0-9-]{10,}\b`), []string{"xox"}, "a Slack token"},
	{regexp.MustCompile(`\b[sr]k_live_[A-Za-z0-9]{16,}\b`), []string{"k_live_"}, "a Stripe key"},
	{regexp.MustCompile(`\bAIza[0-9A-Za-z_-]{35}\b`), []string{"AIza"}, "a Google API key"},
	{regexp.MustCompile(`\b[a-zA-Z][a-zA-Z0-9+.-]*://[^/\s:@{}<>$]+:[^/\s@{}<>$]+@`), []string{"://"}, "a password in a URL"},
}

// credentials applies a credentials rule to a decoded document.
func (c *checker) credentials(rule, u string, doc any) {
	c.problems(rule, u, secrets(doc), "no private keys, access keys, tokens or passwords in URLs", "no credential material", "published documents must not carry credential material")
}

// secrets lists the credential material in a decoded document.
func secrets(doc any) []string {
	var probs []string
	walkStrings(doc, "", func(s, ptr string) {
		for _, p := range secretPatterns {
			if fastpath.Enabled && !slices.ContainsFunc(p.hints, func(h string) bool { return strings.Contains(s, h) }) {
				continue // else every expression runs on every string
			}
			if loc := p.re.FindStringIndex(s); loc != nil {
				shown := s[loc[0]:min(loc[1], loc[0]+4)]
				probs = append(probs, fmt.Sprintf("%s: %s (%q…)", jsonval.ShowPointer(ptr), p.what, shown))
				return
			}
		}
	})
	return probs
}

// walkStrings calls f for every string value and object key in v.
func walkStrings(v any, ptr string, f func(s, ptr string)) {
	switch v := v.(type) {
	case string:
		f(v, ptr)
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			at := ptr + "/" + jsonval.Escape(k)
			f(k, at)
			walkStrings(v[k], at, f)
		}
	case []any:
		for i, x := range v {
			walkStrings(x, ptr+"/"+strconv.Itoa(i), f)
		}
	}
}
