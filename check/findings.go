package check

import (
	"fmt"
	"mime"

	"github.com/signpost-dev/signpost/check/jsonval"
	"github.com/signpost-dev/signpost/schemas"
)

// add records a finding of a rule at the rule's level.
func (c *checker) add(rule string, res Result, u, evidence, msg string) {
	c.addAt(rule, ruleLevel(rule), res, u, evidence, msg)
}

// addAt records a finding at the given level; a failure at LevelShould is a
// warning. The finding leaves redacted, its evidence on one line (see
// Finding.Redacted).
func (c *checker) addAt(rule string, level Level, res Result, u, evidence, msg string) {
	if res == ResultFail && level == LevelShould {
		res = ResultWarn
	}
	c.findings.Add(Finding{Rule: rule, Level: level, Result: res, URL: u, Evidence: evidence, Message: msg})
}

// skip records a skip finding for each rule.
func (c *checker) skip(u, msg string, rules ...string) {
	for _, r := range rules {
		c.add(r, ResultSkip, u, "", msg)
	}
}

// status applies a status rule to p (what names the document) and reports
// whether p answered 200.
func (c *checker) status(rule string, level Level, p *page, what string) bool {
	ok, ev := c.statusOf(p)
	if ok {
		c.addAt(rule, level, ResultPass, p.url, ev, what+" answers 200")
	} else {
		c.addAt(rule, level, ResultFail, p.url, ev, what+" "+level.verb()+" answer 200")
	}
	return ok
}

// skippedTooBig is the message of a rule skipped for an oversized body.
const skippedTooBig = "body over the size limit (see limits.body-size)"

// contentType applies a content-type rule to p: its media type is want.
func (c *checker) contentType(rule string, p *page, want string) {
	got := p.header.Get("Content-Type")
	mt, _, err := mime.ParseMediaType(got)
	ev := "Content-Type: " + got
	if got == "" {
		ev = "no Content-Type"
	}
	if err == nil && mt == want {
		c.add(rule, ResultPass, p.url, ev, "served as "+want)
		return
	}
	c.add(rule, ResultFail, p.url, ev, "must be served as "+want)
}

// problems records one finding of a rule at u: pass (passEv, passMsg)
// when there are no problems, else fail with the first problem as evidence.
func (c *checker) problems(rule, u string, probs []string, passEv, passMsg, failMsg string) {
	c.problemsAt(rule, ruleLevel(rule), u, probs, passEv, passMsg, failMsg)
}

// problemsAt is problems at the given level, for the rules whose level
// depends on what the AI catalog advertises.
func (c *checker) problemsAt(rule string, level Level, u string, probs []string, passEv, passMsg, failMsg string) {
	if len(probs) == 0 {
		c.addAt(rule, level, ResultPass, u, passEv, passMsg)
		return
	}
	msg := failMsg
	if len(probs) > 1 {
		msg += fmt.Sprintf(" (%d problems; the first is shown)", len(probs))
	}
	c.addAt(rule, level, ResultFail, u, probs[0], msg)
}

// violations records one finding from schema violations.
func (c *checker) violations(rule string, level Level, u string, vs []schemas.Violation, passEv, passMsg, failMsg string) {
	var probs []string
	for _, v := range vs {
		probs = append(probs, jsonval.ShowPointer(v.Pointer)+": "+v.Message)
	}
	c.problemsAt(rule, level, u, probs, passEv, passMsg, failMsg)
}
