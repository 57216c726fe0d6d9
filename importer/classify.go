package importer

import (
	"errors"
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/internal/suggest"
)

// The safety fields an import classifies, as Conflict.Field and
// UnknownName.Field name them.
const (
	FieldTier   = "safetyTier"
	FieldReplay = "replayPolicy"
	FieldEgress = "egress"
)

// Conflict is a tool that two patterns of one field classify differently.
// An exact name never conflicts: it wins over every pattern.
type Conflict struct {
	Field string
	// Tool is the MCP name both patterns match.
	Tool string
	// Patterns and Values are the two patterns, sorted, and the value each
	// gives.
	Patterns, Values [2]string
}

// IsPattern reports whether a classified key is a pattern of names
// (path.Match syntax: *, ? and [...]) rather than one name. A recorded
// name that is spelled like a pattern is still matched exactly first.
func IsPattern(key string) bool { return strings.ContainsAny(key, "*?[") }

// checkRules explains why the keys or values of one field's rules are not
// usable, or returns nil; check explains a bad value.
func checkRules(rules map[string]string, check func(string) error) error {
	for _, key := range slices.Sorted(maps.Keys(rules)) {
		if key == "" {
			return errors.New("empty tool name")
		}
		if _, err := path.Match(key, ""); err != nil {
			return fmt.Errorf("pattern %q is malformed: * matches any run of characters, ? one, [...] one of a set", key)
		}
		if err := check(rules[key]); err != nil {
			return fmt.Errorf("tool %q: %w", key, err)
		}
	}
	return nil
}

// CheckReplay explains why an imported tool cannot be replayPolicy
// replay, or returns nil: it may be any of the spec's replay policies.
func CheckReplay(replay string) error {
	if slices.Contains(spec.ReplayPolicies(), replay) {
		return nil
	}
	return fmt.Errorf("unknown replay policy %q: use %s", replay, strings.Join(spec.ReplayPolicies(), ", "))
}

// CheckEgress explains why an imported tool cannot be egress egress, or
// returns nil: it may be any of the spec's egress values.
func CheckEgress(egress string) error {
	if slices.Contains(spec.Egresses(), egress) {
		return nil
	}
	return fmt.Errorf("unknown egress %q: use %s", egress, strings.Join(spec.Egresses(), ", "))
}

// pick is the value rules give the tool name: the value of the key that is
// name itself, else the one value of the patterns that match it ("" when
// none does). conflict is set when two matching patterns disagree.
func pick(rules map[string]string, name string) (value string, conflict *[2]string) {
	if v, ok := rules[name]; ok {
		return v, nil
	}
	from := ""
	for _, key := range slices.Sorted(maps.Keys(rules)) {
		if !IsPattern(key) {
			continue
		}
		if ok, _ := path.Match(key, name); !ok {
			continue
		}
		switch {
		case value == "":
			value, from = rules[key], key
		case rules[key] != value && conflict == nil:
			conflict = &[2]string{from, key}
		}
	}
	return value, conflict
}

// classified is the classification of the recorded names: the tools two
// patterns of one field classify differently, and the keys that name or
// match no recorded tool (with the names most like them), field by field.
func classified(fields []classifiedField, recorded []string) ([]Conflict, []UnknownName) {
	var conflicts []Conflict
	var unknown []UnknownName
	for _, f := range fields {
		matched := map[string]bool{}
		for _, name := range recorded {
			if _, ok := f.rules[name]; ok {
				matched[name] = true
				continue
			}
			for key := range f.rules {
				if ok, _ := path.Match(key, name); ok && IsPattern(key) {
					matched[key] = true
				}
			}
			if _, c := pick(f.rules, name); c != nil {
				conflicts = append(conflicts, Conflict{Field: f.field, Tool: name, Patterns: *c, Values: [2]string{f.rules[c[0]], f.rules[c[1]]}})
			}
		}
		for _, key := range slices.Sorted(maps.Keys(f.rules)) {
			if !matched[key] {
				u := UnknownName{Field: f.field, Name: key, Pattern: IsPattern(key)}
				if like := suggest.Nearest(key, recorded, maxSuggestions); len(like) > 0 {
					u.Like = like
				}
				unknown = append(unknown, u)
			}
		}
	}
	return conflicts, unknown
}

// classifiedField is one field's rules, by name or pattern.
type classifiedField struct {
	field string
	rules map[string]string
}
