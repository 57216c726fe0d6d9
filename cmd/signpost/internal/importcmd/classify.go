package importcmd

import (
	"fmt"
	"strings"

	"github.com/signpost-dev/signpost/importer"
	"github.com/signpost-dev/signpost/internal/english"
)

// classifyFlag is the flag that classifies field of imported tools, with
// the VALUE it takes, an example and the check of a value.
type classifyFlag struct {
	flag, value, example string
	check                func(string) error
}

func classifyFlagOf(field string) classifyFlag {
	switch field {
	case importer.FieldReplay:
		return classifyFlag{"--replay", "POLICY", "idempotent=get_*", importer.CheckReplay}
	case importer.FieldEgress:
		return classifyFlag{"--egress", "EGRESS", "none=format_*", importer.CheckEgress}
	}
	return classifyFlag{"--classify", "TIER", "read=get_issue,list_*", importer.CheckTier}
}

// parseRules reads the VALUE=NAME|PATTERN[,...] flags of one field into
// the value of each name or pattern. The same key given two values is an
// error; a key matching no tool is for the import to find.
func parseRules(field string, flags []string) (map[string]string, error) {
	cf := classifyFlagOf(field)
	out := map[string]string{}
	for _, f := range flags {
		value, names, ok := strings.Cut(f, "=")
		if !ok || value == "" || strings.TrimSpace(names) == "" {
			return nil, fmt.Errorf("%s %q: want %s=NAME[,NAME...] (a NAME may be a pattern: get_*), for example %s", cf.flag, f, cf.value, cf.example)
		}
		if err := cf.check(value); err != nil {
			return nil, fmt.Errorf("%s %q: %w", cf.flag, f, err)
		}
		for _, name := range strings.Split(names, ",") {
			if name == "" {
				return nil, fmt.Errorf("%s %q: empty tool name", cf.flag, f)
			}
			if prev, dup := out[name]; dup && prev != value {
				return nil, fmt.Errorf("%s: tool %q is classified both %s and %s", cf.flag, name, prev, value)
			}
			out[name] = value
		}
	}
	return out, nil
}

// parseClassify reads --classify TIER=NAME|PATTERN,... flags into the tier
// of each MCP name or pattern.
func parseClassify(flags []string) (map[string]string, error) {
	return parseRules(importer.FieldTier, flags)
}

// unknownClassified words a classified name that no recording holds, or a
// pattern that matches no recorded name, with the recorded names most like
// it or, when none is, how to list them all.
func unknownClassified(u importer.UnknownName, names int) string {
	what := fmt.Sprintf("%s names %q, which no recording holds", classifyFlagOf(u.Field).flag, u.Name)
	if u.Pattern {
		what = fmt.Sprintf("%s pattern %q matches no recorded tool", classifyFlagOf(u.Field).flag, u.Name)
	}
	switch {
	case names == 0:
		return what + ": the recordings hold no named tools"
	case len(u.Like) == 0:
		return fmt.Sprintf("%s, and no recorded name is like it: the recordings hold %s; run signpost import mcp without %s to list them", what, english.Count(names, "name", "names"), classifyFlagOf(u.Field).flag)
	}
	return fmt.Sprintf("%s: did you mean %s?", what, english.QuotedOr(u.Like))
}

// conflictLine words a tool that two patterns of one flag classify
// differently, and how to choose.
func conflictLine(c importer.Conflict) string {
	flag := classifyFlagOf(c.Field).flag
	return fmt.Sprintf("%s: tool %q matches both %q (%s) and %q (%s): name the tool itself to choose, for example %s %s=%s",
		flag, c.Tool, c.Patterns[0], c.Values[0], c.Patterns[1], c.Values[1], flag, c.Values[0], c.Tool)
}
