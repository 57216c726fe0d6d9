package check

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	buildsecrets "github.com/signpost-dev/signpost/build/secrets"
	"github.com/signpost-dev/signpost/check/jsonval"
	// (credentials.go), which shares nothing with the compiler's.
	// secrets is the checker's own rule of published documents
	// The compiler's leaf that finds credentials, under another name:
)

// Finding is one rule applied to one place. The checker records its
// findings in a records.Log: each is redacted as it is made (see
// Redacted), and the report has them sorted (see Compare), each once.
type Finding struct {
	Rule   string `json:"rule"`
	Level  Level  `json:"level"`
	Result Result `json:"result"`
	// URL is the place: a document, an origin, or the base URL for
	// findings about the whole crawl.
	URL string `json:"url"`
	// Evidence is what the check saw, on one line: a header value, a
	// status, a JSON pointer and value.
	Evidence string `json:"evidence,omitempty"`
	// Message says, for a person, what the rule wants and how it went.
	Message string `json:"message"`
}

// Report is the outcome of Run.
type Report struct {
	// Base is the URL that was checked, without a trailing slash.
	Base string `json:"base"`
	// Findings are sorted by rule, then URL (then evidence and message, so
	// that two checks of the same site give the same report).
	Findings []Finding `json:"findings"`
	// Documents counts the documents fetched.
	Documents int `json:"documents"`
	// AICatalogLevel is the conformance level of AI Catalog 1.0 the site's
	// AI catalog reaches: 1 (Minimal), 2 (Discoverable: a host) or 3
	// (Trusted: every entry with a verified publisher Trust Manifest and the
	// catalog's own signature verified); 0 when it serves none.
	AICatalogLevel int `json:"aiCatalogLevel"`
	// AICatalogLevelWhy says what keeps the catalog from the next level.
	AICatalogLevelWhy string `json:"aiCatalogLevelWhy,omitempty"`
}

// Redacted is f as a report gives it: every credential its message,
// evidence and URL hold cut to its first four characters and "…" (see
// secrets.Redact and secrets.RedactURL of the compiler's leaf), and then
// its evidence on one line and shortened (a credential cut short first
// would no longer be known as one). A finding quotes published documents
// and headers, and a report must not repeat a credential an origin leaks.
func (f Finding) Redacted() Finding {
	f.URL = buildsecrets.RedactURL(f.URL)
	f.Evidence = jsonval.OneLine(buildsecrets.Redact(f.Evidence))
	f.Message = buildsecrets.Redact(f.Message)
	return f
}

// Compare orders findings by rule, URL, evidence, message, result and
// level: zero only for the same finding.
func (f Finding) Compare(g Finding) int {
	return cmp.Or(strings.Compare(f.Rule, g.Rule), strings.Compare(f.URL, g.URL), strings.Compare(f.Evidence, g.Evidence),
		strings.Compare(f.Message, g.Message), strings.Compare(string(f.Result), string(g.Result)), strings.Compare(string(f.Level), string(g.Level)))
}

// report is the findings, sorted and each once, on the checked site, its
// URL redacted as the findings' are.
func (c *checker) report() *Report {
	fs := c.findings.Close()
	if fs == nil {
		fs = []Finding{}
	}
	return &Report{Base: buildsecrets.RedactURL(c.base), Findings: fs, Documents: len(c.pages), AICatalogLevel: c.level, AICatalogLevelWhy: buildsecrets.Redact(c.levelWhy)}
}

// Failed reports whether a MUST rule failed anywhere.
func (r *Report) Failed() bool {
	for _, f := range r.Findings {
		if f.Result == ResultFail && f.Level == LevelMust {
			return true
		}
	}
	return false
}

// ruleResult is one rule's outcome over all its findings: fail if one
// failed, else warn if one warned, else pass if one passed, else skip.
type ruleResult struct {
	Rule   string `json:"rule"`
	Level  Level  `json:"level"`
	Result Result `json:"result"`
}

// rules is the outcome of each rule of r, in the order of the findings.
func (r *Report) rules() []ruleResult {
	rank := map[Result]int{ResultSkip: 0, ResultPass: 1, ResultWarn: 2, ResultFail: 3}
	var out []ruleResult
	for _, f := range r.Findings {
		if len(out) == 0 || out[len(out)-1].Rule != f.Rule {
			out = append(out, ruleResult{Rule: f.Rule, Level: f.Level, Result: f.Result})
			continue
		}
		last := &out[len(out)-1]
		if rank[f.Result] > rank[last.Result] {
			last.Result = f.Result
		}
		if f.Level == LevelMust {
			last.Level = LevelMust
		}
	}
	return out
}

// summary counts the rules of a report by outcome.
type summary struct {
	Rules    int `json:"rules"`
	Passed   int `json:"passed"`
	Failed   int `json:"failed"`
	Warnings int `json:"warnings"`
	Skipped  int `json:"skipped"`
}

// summarize counts rules by outcome.
func (r *Report) summarize(rules []ruleResult) summary {
	s := summary{Rules: len(rules)}
	for _, x := range rules {
		switch x.Result {
		case ResultPass:
			s.Passed++
		case ResultFail:
			s.Failed++
		case ResultWarn:
			s.Warnings++
		case ResultSkip:
			s.Skipped++
		}
	}
	return s
}

// WriteText writes the report for people: a line naming the site, then
// each rule with its outcome and, when it did not pass everywhere, the
// first place it did not (with the count of such places on the rule's
// line when there are several), then the summary line "N rules: P passed,
// F failed, W warnings, S skipped". verbose lists every finding of every
// rule, passes included. URLs on the checked site are relative to it.
func (r *Report) WriteText(w io.Writer, verbose bool) error {
	var b strings.Builder
	fmt.Fprintf(&b, "check %s: %d documents\n", r.Base, r.Documents)
	rules := r.rules()
	i := 0
	for _, rule := range rules {
		j := i
		for j < len(r.Findings) && r.Findings[j].Rule == rule.Rule {
			j++
		}
		findings := r.Findings[i:j]
		i = j
		var shown []Finding
		for _, f := range findings {
			if verbose || f.Result != ResultPass {
				shown = append(shown, f)
			}
		}
		fmt.Fprintf(&b, "%s %s (%s)", rule.Result, rule.Rule, rule.Level)
		if !verbose && len(shown) > 1 {
			fmt.Fprintf(&b, " at %d places, the first:", len(shown))
			shown = shown[:1]
		}
		b.WriteByte('\n')
		for _, f := range shown {
			fmt.Fprintf(&b, "  %-4s %s: %s", f.Result, r.place(f.URL), f.Message)
			if f.Evidence != "" {
				fmt.Fprintf(&b, " [%s]", f.Evidence)
			}
			b.WriteByte('\n')
		}
	}
	s := r.summarize(rules)
	if r.AICatalogLevel > 0 {
		name := map[int]string{1: "Minimal Catalog", 2: "Discoverable Catalog", 3: "Trusted Catalog"}[r.AICatalogLevel]
		fmt.Fprintf(&b, "AI Catalog conformance level %d (%s)", r.AICatalogLevel, name)
		if r.AICatalogLevelWhy != "" {
			fmt.Fprintf(&b, "; not level %d: %s", r.AICatalogLevel+1, r.AICatalogLevelWhy)
		}
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "%d rules: %d passed, %d failed, %d warnings, %d skipped\n", s.Rules, s.Passed, s.Failed, s.Warnings, s.Skipped)
	_, err := io.WriteString(w, b.String())
	return err
}

// place is how the text names a URL: relative to the checked site when on
// it.
func (r *Report) place(u string) string {
	if rest, ok := strings.CutPrefix(u, r.Base); ok && (rest == "" || rest[0] == '/' || rest[0] == '?' || rest[0] == '#') {
		if rest == "" {
			return "/"
		}
		return rest
	}
	return u
}

// WriteJSON writes the report as one JSON object: base, documents, failed
// (a MUST rule failed), summary (the counts of WriteText's last line),
// rules (each rule's outcome) and findings.
func (r *Report) WriteJSON(w io.Writer) error {
	rules := r.rules()
	if rules == nil {
		rules = []ruleResult{}
	}
	findings := r.Findings
	if findings == nil {
		findings = []Finding{}
	}
	out := struct {
		Base      string       `json:"base"`
		Documents int          `json:"documents"`
		Failed    bool         `json:"failed"`
		Summary   summary      `json:"summary"`
		Rules     []ruleResult `json:"rules"`
		Findings  []Finding    `json:"findings"`
	}{r.Base, r.Documents, r.Failed(), r.summarize(rules), rules, findings}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
