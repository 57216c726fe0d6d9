package templates

// The CloudFormation template parsed and evaluated, for the tests of
// aws_test.go and aws_tls_test.go: its short tags kept, its intrinsic
// functions applied for one set of parameters, its rules asserted.

import (
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.yaml.in/yaml/v3"
)

// cfnNoValue is what AWS::NoValue evaluates to: the property or list
// element that holds it is dropped.
type cfnNoValue struct{}

// cfnTemplate is the parsed CloudFormation template.
type cfnTemplate struct {
	root                                 *yaml.Node // the top-level mapping
	params, conds, resources, rules, out *yaml.Node // its sections (nil when absent)
}

// loadCFNTemplate reads and parses the template. CloudFormation's short
// tags (!Ref, !Sub, ...) are kept on the yaml.Node and read by cfnFunc.
func loadCFNTemplate(t *testing.T) *cfnTemplate {
	t.Helper()
	data, err := os.ReadFile(awsTemplatePath)
	if err != nil {
		t.Fatalf("read the CloudFormation template: %v", err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		t.Fatalf("parse %s: %v", awsTemplatePath, err)
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		t.Fatalf("%s: not a YAML mapping", awsTemplatePath)
	}
	root := doc.Content[0]
	tpl := &cfnTemplate{
		root:      root,
		params:    yamlGet(root, "Parameters"),
		conds:     yamlGet(root, "Conditions"),
		resources: yamlGet(root, "Resources"),
		rules:     yamlGet(root, "Rules"),
		out:       yamlGet(root, "Outputs"),
	}
	if tpl.params == nil || tpl.conds == nil || tpl.resources == nil || tpl.out == nil {
		t.Fatalf("%s: Parameters, Conditions, Resources and Outputs are all needed", awsTemplatePath)
	}
	return tpl
}

// yamlGet returns the value of key in mapping n, or nil.
func yamlGet(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

// yamlKeys returns the keys of mapping n, in order.
func yamlKeys(n *yaml.Node) []string {
	var keys []string
	if n != nil && n.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(n.Content); i += 2 {
			keys = append(keys, n.Content[i].Value)
		}
	}
	return keys
}

// cfnFunc recognises an intrinsic function, in short form (!Sub x) or long
// form ({"Fn::Sub": x}), and returns its long name and its argument.
func cfnFunc(n *yaml.Node) (name string, arg *yaml.Node, ok bool) {
	if strings.HasPrefix(n.Tag, "!") && !strings.HasPrefix(n.Tag, "!!") {
		short := n.Tag[1:]
		arg := *n
		switch n.Kind {
		case yaml.ScalarNode:
			arg.Tag = "!!str"
		case yaml.SequenceNode:
			arg.Tag = "!!seq"
		case yaml.MappingNode:
			arg.Tag = "!!map"
		}
		switch short {
		case "Ref", "Condition":
			return short, &arg, true
		}
		return "Fn::" + short, &arg, true
	}
	if n.Kind == yaml.MappingNode && len(n.Content) == 2 {
		k := n.Content[0].Value
		if k == "Ref" || strings.HasPrefix(k, "Fn::") {
			return k, n.Content[1], true
		}
	}
	return "", nil, false
}

// cfnEnv evaluates the template for one set of parameter values.
// References to resources evaluate to placeholders: "{Ref:Name}" and
// "{GetAtt:Name.Attribute}".
type cfnEnv struct {
	tpl    *cfnTemplate
	params map[string]string
}

// newCFNEnv applies the parameters' defaults and checks every value against
// its AllowedPattern, MaxLength and AllowedValues, as CloudFormation does.
func newCFNEnv(tpl *cfnTemplate, given map[string]string) (*cfnEnv, error) {
	params := map[string]string{}
	for name := range given {
		if yamlGet(tpl.params, name) == nil {
			return nil, fmt.Errorf("no parameter %s", name)
		}
	}
	for _, name := range yamlKeys(tpl.params) {
		p := yamlGet(tpl.params, name)
		v, ok := given[name]
		if !ok {
			def := yamlGet(p, "Default")
			if def == nil {
				return nil, fmt.Errorf("parameter %s has no default and no value", name)
			}
			v = def.Value
		}
		if pat := yamlGet(p, "AllowedPattern"); pat != nil {
			re, err := regexp.Compile(pat.Value)
			if err != nil {
				return nil, fmt.Errorf("parameter %s: AllowedPattern: %w", name, err)
			}
			if !re.MatchString(v) {
				return nil, fmt.Errorf("parameter %s: %q does not match %s", name, v, pat.Value)
			}
		}
		if ml := yamlGet(p, "MaxLength"); ml != nil {
			n, err := strconv.Atoi(ml.Value)
			if err != nil {
				return nil, fmt.Errorf("parameter %s: MaxLength: %w", name, err)
			}
			if len(v) > n {
				return nil, fmt.Errorf("parameter %s: %d characters, more than MaxLength %d", name, len(v), n)
			}
		}
		if allowed := yamlGet(p, "AllowedValues"); allowed != nil {
			if !slices.ContainsFunc(allowed.Content, func(a *yaml.Node) bool { return a.Value == v }) {
				return nil, fmt.Errorf("parameter %s: %q is not an allowed value", name, v)
			}
		}
		params[name] = v
	}
	return &cfnEnv{tpl: tpl, params: params}, nil
}

// pseudo returns the value of a pseudo parameter.
func (e *cfnEnv) pseudo(name string) (any, bool) {
	switch name {
	case "AWS::Partition":
		return "aws", true
	case "AWS::AccountId":
		return awsAccount, true
	case "AWS::Region":
		return "us-east-1", true
	case "AWS::URLSuffix":
		return "amazonaws.com", true
	case "AWS::StackName":
		return "signpost-test", true
	case "AWS::NoValue":
		return cfnNoValue{}, true
	}
	return nil, false
}

// ref evaluates Ref name.
func (e *cfnEnv) ref(name string) (any, error) {
	if v, ok := e.params[name]; ok {
		return v, nil
	}
	if v, ok := e.pseudo(name); ok {
		return v, nil
	}
	if yamlGet(e.tpl.resources, name) != nil {
		return "{Ref:" + name + "}", nil
	}
	return nil, fmt.Errorf("Ref %s: no such parameter or resource", name)
}

// condition evaluates the condition called name.
func (e *cfnEnv) condition(name string) (bool, error) {
	c := yamlGet(e.tpl.conds, name)
	if c == nil {
		return false, fmt.Errorf("no condition %s", name)
	}
	return e.boolean(c)
}

// boolean evaluates a condition function.
func (e *cfnEnv) boolean(n *yaml.Node) (bool, error) {
	v, err := e.eval(n)
	if err != nil {
		return false, err
	}
	b, ok := v.(bool)
	if !ok {
		return false, fmt.Errorf("line %d: %v is not a condition", n.Line, v)
	}
	return b, nil
}

// sub fills in the ${...} of a Fn::Sub string.
func (e *cfnEnv) sub(s string, vars map[string]any) (string, error) {
	var b strings.Builder
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			b.WriteString(s)
			return b.String(), nil
		}
		b.WriteString(s[:i])
		j := strings.Index(s[i:], "}")
		if j < 0 {
			return "", fmt.Errorf("Fn::Sub: unclosed ${ in %q", s)
		}
		name := s[i+2 : i+j]
		s = s[i+j+1:]
		if strings.HasPrefix(name, "!") { // ${!Literal}
			b.WriteString("${" + name[1:] + "}")
			continue
		}
		var v any
		if lv, ok := vars[name]; ok {
			v = lv
		} else if res, att, ok := strings.Cut(name, "."); ok && !strings.Contains(name, "::") {
			if yamlGet(e.tpl.resources, res) == nil {
				return "", fmt.Errorf("Fn::Sub: ${%s}: no resource %s", name, res)
			}
			v = "{GetAtt:" + res + "." + att + "}"
		} else {
			var err error
			if v, err = e.ref(name); err != nil {
				return "", fmt.Errorf("Fn::Sub: %w", err)
			}
		}
		str, ok := v.(string)
		if !ok {
			return "", fmt.Errorf("Fn::Sub: ${%s} is %v, not a string", name, v)
		}
		b.WriteString(str)
	}
}

// eval evaluates a node: functions are applied, AWS::NoValue dropped.
func (e *cfnEnv) eval(n *yaml.Node) (any, error) {
	if name, arg, ok := cfnFunc(n); ok {
		return e.apply(name, arg)
	}
	switch n.Kind {
	case yaml.AliasNode:
		return e.eval(n.Alias)
	case yaml.ScalarNode:
		switch n.Tag {
		case "!!bool":
			return n.Value == "true", nil
		case "!!int":
			return strconv.Atoi(n.Value)
		}
		return n.Value, nil
	case yaml.SequenceNode:
		out := []any{}
		for _, c := range n.Content {
			v, err := e.eval(c)
			if err != nil {
				return nil, err
			}
			if _, no := v.(cfnNoValue); !no {
				out = append(out, v)
			}
		}
		return out, nil
	case yaml.MappingNode:
		out := map[string]any{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			v, err := e.eval(n.Content[i+1])
			if err != nil {
				return nil, err
			}
			if _, no := v.(cfnNoValue); !no {
				out[n.Content[i].Value] = v
			}
		}
		return out, nil
	}
	return nil, fmt.Errorf("line %d: unexpected YAML node", n.Line)
}

// apply evaluates the intrinsic function name on arg.
func (e *cfnEnv) apply(name string, arg *yaml.Node) (any, error) {
	args := func(want int) ([]*yaml.Node, error) {
		if arg.Kind != yaml.SequenceNode || len(arg.Content) != want {
			return nil, fmt.Errorf("line %d: %s takes a list of %d", arg.Line, name, want)
		}
		return arg.Content, nil
	}
	switch name {
	case "Ref":
		return e.ref(arg.Value)
	case "Condition":
		return e.condition(arg.Value)
	case "Fn::GetAtt":
		target := arg.Value
		if arg.Kind == yaml.SequenceNode && len(arg.Content) == 2 {
			target = arg.Content[0].Value + "." + arg.Content[1].Value
		}
		res, _, ok := strings.Cut(target, ".")
		if !ok || yamlGet(e.tpl.resources, res) == nil {
			return nil, fmt.Errorf("line %d: Fn::GetAtt %s: no such resource", arg.Line, target)
		}
		return "{GetAtt:" + target + "}", nil
	case "Fn::Sub":
		if arg.Kind == yaml.ScalarNode {
			return e.sub(arg.Value, nil)
		}
		a, err := args(2)
		if err != nil {
			return nil, err
		}
		vars, err := e.eval(a[1])
		if err != nil {
			return nil, err
		}
		m, ok := vars.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("line %d: Fn::Sub variables are not a mapping", arg.Line)
		}
		return e.sub(a[0].Value, m)
	case "Fn::If":
		a, err := args(3)
		if err != nil {
			return nil, err
		}
		c, err := e.condition(a[0].Value)
		if err != nil {
			return nil, err
		}
		if c {
			return e.eval(a[1])
		}
		return e.eval(a[2])
	case "Fn::Equals":
		a, err := args(2)
		if err != nil {
			return nil, err
		}
		x, err := e.eval(a[0])
		if err != nil {
			return nil, err
		}
		y, err := e.eval(a[1])
		if err != nil {
			return nil, err
		}
		return cmp.Equal(x, y), nil
	case "Fn::Not":
		a, err := args(1)
		if err != nil {
			return nil, err
		}
		b, err := e.boolean(a[0])
		return !b, err
	case "Fn::And", "Fn::Or":
		if arg.Kind != yaml.SequenceNode {
			return nil, fmt.Errorf("line %d: %s takes a list", arg.Line, name)
		}
		for _, c := range arg.Content {
			b, err := e.boolean(c)
			if err != nil {
				return nil, err
			}
			if b == (name == "Fn::Or") {
				return b, nil
			}
		}
		return name == "Fn::And", nil
	case "Fn::Split", "Fn::Join":
		a, err := args(2)
		if err != nil {
			return nil, err
		}
		v, err := e.eval(a[1])
		if err != nil {
			return nil, err
		}
		if name == "Fn::Split" {
			s, ok := v.(string)
			if !ok {
				return nil, fmt.Errorf("line %d: Fn::Split of %v", arg.Line, v)
			}
			var out []any
			for _, p := range strings.Split(s, a[0].Value) {
				out = append(out, p)
			}
			return out, nil
		}
		list, ok := v.([]any)
		if !ok {
			return nil, fmt.Errorf("line %d: Fn::Join of %v", arg.Line, v)
		}
		parts := make([]string, len(list))
		for i, p := range list {
			parts[i] = fmt.Sprint(p)
		}
		return strings.Join(parts, a[0].Value), nil
	}
	return nil, fmt.Errorf("line %d: %s is not supported by this test", arg.Line, name)
}

// cfnStack is the template evaluated for one set of parameters: the
// resources and outputs whose conditions hold.
type cfnStack struct {
	Resources map[string]map[string]any // name -> Type, Properties
	Outputs   map[string]any            // name -> Value
}

// render evaluates the template as CloudFormation would deploy it, and
// returns the failed rule assertions.
func (e *cfnEnv) render() (*cfnStack, []string, error) {
	var failed []string
	for _, name := range yamlKeys(e.tpl.rules) {
		rule := yamlGet(e.tpl.rules, name)
		if rc := yamlGet(rule, "RuleCondition"); rc != nil {
			applies, err := e.boolean(rc)
			if err != nil {
				return nil, nil, fmt.Errorf("rule %s: %w", name, err)
			}
			if !applies {
				continue
			}
		}
		assertions := yamlGet(rule, "Assertions")
		if assertions == nil || assertions.Kind != yaml.SequenceNode {
			return nil, nil, fmt.Errorf("rule %s: no list of Assertions", name)
		}
		for _, a := range assertions.Content {
			assert := yamlGet(a, "Assert")
			if assert == nil {
				return nil, nil, fmt.Errorf("rule %s: an assertion without Assert", name)
			}
			ok, err := e.boolean(assert)
			if err != nil {
				return nil, nil, fmt.Errorf("rule %s: %w", name, err)
			}
			if !ok {
				failed = append(failed, name)
			}
		}
	}
	st := &cfnStack{Resources: map[string]map[string]any{}, Outputs: map[string]any{}}
	included := func(n *yaml.Node) (bool, error) {
		c := yamlGet(n, "Condition")
		if c == nil {
			return true, nil
		}
		return e.condition(c.Value)
	}
	for _, name := range yamlKeys(e.tpl.resources) {
		r := yamlGet(e.tpl.resources, name)
		if ok, err := included(r); err != nil || !ok {
			if err != nil {
				return nil, nil, fmt.Errorf("resource %s: %w", name, err)
			}
			continue
		}
		props := map[string]any{}
		if p := yamlGet(r, "Properties"); p != nil {
			v, err := e.eval(p)
			if err != nil {
				return nil, nil, fmt.Errorf("resource %s: %w", name, err)
			}
			m, ok := v.(map[string]any)
			if !ok {
				return nil, nil, fmt.Errorf("resource %s: Properties is not a mapping", name)
			}
			props = m
		}
		typ := yamlGet(r, "Type")
		if typ == nil {
			return nil, nil, fmt.Errorf("resource %s: no Type", name)
		}
		st.Resources[name] = map[string]any{"Type": typ.Value, "Properties": props}
	}
	for _, name := range yamlKeys(e.tpl.out) {
		o := yamlGet(e.tpl.out, name)
		if ok, err := included(o); err != nil || !ok {
			if err != nil {
				return nil, nil, fmt.Errorf("output %s: %w", name, err)
			}
			continue
		}
		v, err := e.eval(yamlGet(o, "Value"))
		if err != nil {
			return nil, nil, fmt.Errorf("output %s: %w", name, err)
		}
		st.Outputs[name] = v
	}
	return st, failed, nil
}

// dig follows a path of mapping keys (string) and list indexes (int)
// through an evaluated value; nil when the path leads nowhere.
func dig(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				return nil
			}
			v = m[k]
		case int:
			l, ok := v.([]any)
			if !ok || k >= len(l) {
				return nil
			}
			v = l[k]
		}
	}
	return v
}

// resource returns the properties of the stack's resource name, which must
// be of type typ.
func (st *cfnStack) resource(t *testing.T, name, typ string) map[string]any {
	t.Helper()
	r, ok := st.Resources[name]
	if !ok {
		t.Fatalf("resource %s: missing", name)
	}
	if r["Type"] != typ {
		t.Fatalf("resource %s: Type %v, want %s", name, r["Type"], typ)
	}
	return r["Properties"].(map[string]any)
}

// placeholderTarget returns the resource a "{Ref:X}" or "{GetAtt:X.A}"
// placeholder names, checking the attribute.
func placeholderTarget(t *testing.T, v any, attr string) string {
	t.Helper()
	s, _ := v.(string)
	if attr == "" {
		if name, ok := strings.CutPrefix(s, "{Ref:"); ok {
			return strings.TrimSuffix(name, "}")
		}
	} else if name, ok := strings.CutPrefix(s, "{GetAtt:"); ok && strings.HasSuffix(name, "."+attr+"}") {
		return strings.TrimSuffix(name, "."+attr+"}")
	}
	t.Fatalf("%v: want a reference to a resource's %q", v, attr)
	return ""
}

// list returns the list at path in v, failing the test when there is none.
func list(t *testing.T, v any, path ...any) []any {
	t.Helper()
	l, ok := dig(v, path...).([]any)
	if !ok {
		t.Fatalf("%v: not a list: %v", path, dig(v, path...))
	}
	return l
}

// asStrings returns a string, or a list of strings, as a list.
func asStrings(v any) []string {
	switch x := v.(type) {
	case string:
		return []string{x}
	case []any:
		var out []string
		for _, e := range x {
			s, _ := e.(string)
			out = append(out, s)
		}
		return out
	}
	return nil
}
