package templates

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.yaml.in/yaml/v3"
)

// awsTemplatePath is the CloudFormation example, relative to this package.
const awsTemplatePath = "aws/cloudfront-s3.yaml"

// awsNodeTimeout bounds each node process that checks a function.
const awsNodeTimeout = 30 * time.Second

// awsAccount is the account id the evaluated template runs in.
const awsAccount = "123456789012"

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

// awsCase is one way of deploying the template.
type awsCase struct {
	name   string
	params map[string]string
	// what the site looks like
	bucket, keyPrefix, functionPrefix string
	ownsBucket                        bool
	shared                            []string // SharedBucketDistributionArns
	alias, cert                       string
	gitHub                            string // the OIDC subject, or ""
	attachTo                          string
	bucketRegion                      string // the region in the origin's domain of a shared bucket
}

// awsCases covers a catalog without tenants and both kinds of tenant stack.
func awsCases() []awsCase {
	return []awsCase{{
		name: "no tenants",
		params: map[string]string{
			"BucketName": "example-discovery", "FunctionNamePrefix": "example",
			"AliasDomainName": "discovery.example.com", "CertificateArn": "arn:aws:acm:us-east-1:123456789012:certificate/example",
		},
		bucket:         "example-discovery",
		functionPrefix: "example",
		ownsBucket:     true,
		alias:          "discovery.example.com",
		cert:           "arn:aws:acm:us-east-1:123456789012:certificate/example",
	}, {
		name: "tenant owning the bucket",
		params: map[string]string{
			"BucketName": "example-discovery", "FunctionNamePrefix": "acme", "SitePrefix": "catalogs/tenants/acme",
			"SharedBucketDistributionArns": "arn:aws:cloudfront::123456789012:distribution/E1,arn:aws:cloudfront::123456789012:distribution/E2",
			"AliasDomainName":              "acme.example.com", "CertificateArn": "arn:aws:acm:us-east-1:123456789012:certificate/abc",
			"GitHubRepository": "example/catalog", "PriceClass": "PriceClass_All",
		},
		bucket:         "example-discovery",
		keyPrefix:      "catalogs/tenants/acme/",
		functionPrefix: "acme",
		ownsBucket:     true,
		shared:         []string{"arn:aws:cloudfront::123456789012:distribution/E1", "arn:aws:cloudfront::123456789012:distribution/E2"},
		alias:          "acme.example.com",
		cert:           "arn:aws:acm:us-east-1:123456789012:certificate/abc",
		gitHub:         "repo:example/catalog:ref:refs/heads/main",
	}, {
		name: "tenant sharing the bucket",
		params: map[string]string{
			"BucketName": "example-discovery", "FunctionNamePrefix": "globex", "SitePrefix": "tenants/globex",
			"CreateBucket": "false", "AttachToRole": "signpost-ci",
			"AliasDomainName": "globex.example.com", "CertificateArn": "arn:aws:acm:us-east-1:123456789012:certificate/globex",
		},
		bucket:         "example-discovery",
		keyPrefix:      "tenants/globex/",
		functionPrefix: "globex",
		attachTo:       "signpost-ci",
		bucketRegion:   "us-east-1",
		alias:          "globex.example.com",
		cert:           "arn:aws:acm:us-east-1:123456789012:certificate/globex",
	}, {
		name: "tenant sharing a bucket in another region",
		params: map[string]string{
			"BucketName": "example-discovery", "FunctionNamePrefix": "initech", "SitePrefix": "tenants/initech",
			"CreateBucket": "false", "BucketRegion": "eu-west-1",
			"AliasDomainName": "initech.example.com", "CertificateArn": "arn:aws:acm:us-east-1:123456789012:certificate/initech",
		},
		bucket:         "example-discovery",
		keyPrefix:      "tenants/initech/",
		functionPrefix: "initech",
		bucketRegion:   "eu-west-1",
		alias:          "initech.example.com",
		cert:           "arn:aws:acm:us-east-1:123456789012:certificate/initech",
	}}
}

// renderCase evaluates the template for c.
func renderCase(t *testing.T, tpl *cfnTemplate, c awsCase) *cfnStack {
	t.Helper()
	env, err := newCFNEnv(tpl, c.params)
	if err != nil {
		t.Fatal(err)
	}
	st, failed, err := env.render()
	if err != nil {
		t.Fatal(err)
	}
	if len(failed) > 0 {
		t.Fatalf("rules failed: %v", failed)
	}
	return st
}

func TestAWSTemplateBucket(t *testing.T) {
	tpl := loadCFNTemplate(t)
	for _, c := range awsCases() {
		t.Run(c.name, func(t *testing.T) {
			st := renderCase(t, tpl, c)
			_, hasBucket := st.Resources["Bucket"]
			_, hasPolicy := st.Resources["BucketPolicy"]
			if hasBucket != c.ownsBucket || hasPolicy != c.ownsBucket {
				t.Fatalf("Bucket %v, BucketPolicy %v: want both %v", hasBucket, hasPolicy, c.ownsBucket)
			}
			for name, r := range st.Resources {
				if hasKey(r, "AccessControl") {
					t.Errorf("resource %s sets an ACL (AccessControl): signpost never sends one and ACLs are disabled", name)
				}
			}
			if !c.ownsBucket {
				return
			}
			b := st.resource(t, "Bucket", "AWS::S3::Bucket")
			if got := b["BucketName"]; got != c.bucket {
				t.Errorf("BucketName %v, want %s", got, c.bucket)
			}
			wantBlock := map[string]any{"BlockPublicAcls": true, "BlockPublicPolicy": true, "IgnorePublicAcls": true, "RestrictPublicBuckets": true}
			if diff := cmp.Diff(wantBlock, b["PublicAccessBlockConfiguration"]); diff != "" {
				t.Errorf("PublicAccessBlockConfiguration (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff([]any{map[string]any{"ObjectOwnership": "BucketOwnerEnforced"}}, dig(b, "OwnershipControls", "Rules")); diff != "" {
				t.Errorf("OwnershipControls (-want +got):\n%s", diff)
			}
			if got := dig(b, "BucketEncryption", "ServerSideEncryptionConfiguration", 0, "ServerSideEncryptionByDefault", "SSEAlgorithm"); got != "AES256" {
				t.Errorf("SSEAlgorithm %v, want AES256 (SSE-S3)", got)
			}

			p := st.resource(t, "BucketPolicy", "AWS::S3::BucketPolicy")
			if got := placeholderTarget(t, p["Bucket"], ""); got != "Bucket" {
				t.Errorf("BucketPolicy is on %s, want Bucket", got)
			}
			distArn := "arn:aws:cloudfront::" + awsAccount + ":distribution/{Ref:Distribution}"
			type grant struct {
				Resource   string
				SourceArns []string
			}
			var grants []grant
			for i, s := range list(t, p, "PolicyDocument", "Statement") {
				if dig(s, "Effect") != "Allow" {
					continue
				}
				if diff := cmp.Diff(map[string]any{"Service": "cloudfront.amazonaws.com"}, dig(s, "Principal")); diff != "" {
					t.Errorf("statement %d: Principal (-want +got):\n%s", i, diff)
				}
				if got := asStrings(dig(s, "Action")); !slices.Equal(got, []string{"s3:GetObject"}) {
					t.Errorf("statement %d: Action %v, want s3:GetObject only (no s3:ListBucket, so a missing key is a 403)", i, got)
				}
				if conds, _ := dig(s, "Condition").(map[string]any); len(conds) != 1 {
					t.Errorf("statement %d: Condition %v, want StringEquals AWS:SourceArn only", i, dig(s, "Condition"))
				}
				grants = append(grants, grant{
					Resource:   fmt.Sprint(dig(s, "Resource")),
					SourceArns: asStrings(dig(s, "Condition", "StringEquals", "AWS:SourceArn")),
				})
			}
			want := []grant{{Resource: "arn:aws:s3:::" + c.bucket + "/" + c.keyPrefix + "*", SourceArns: []string{distArn}}}
			if c.shared != nil {
				want = append(want, grant{Resource: "arn:aws:s3:::" + c.bucket + "/*", SourceArns: c.shared})
			}
			if diff := cmp.Diff(want, grants); diff != "" {
				t.Errorf("bucket policy grants (-want +got):\n%s", diff)
			}
		})
	}
}

// hasKey reports whether a mapping anywhere in v has the key.
func hasKey(v any, key string) bool {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if k == key || hasKey(e, key) {
				return true
			}
		}
	case []any:
		for _, e := range x {
			if hasKey(e, key) {
				return true
			}
		}
	}
	return false
}

func TestAWSTemplateDistribution(t *testing.T) {
	tpl := loadCFNTemplate(t)
	for _, c := range awsCases() {
		t.Run(c.name, func(t *testing.T) {
			st := renderCase(t, tpl, c)
			d := dig(st.resource(t, "Distribution", "AWS::CloudFront::Distribution"), "DistributionConfig")
			priceClass := c.params["PriceClass"]
			if priceClass == "" {
				priceClass = "PriceClass_100" // the default
			}
			for _, f := range []struct {
				path []any
				want any
			}{
				{[]any{"Enabled"}, true},
				{[]any{"HttpVersion"}, "http2and3"},
				{[]any{"PriceClass"}, priceClass},
				{[]any{"DefaultCacheBehavior", "ViewerProtocolPolicy"}, "redirect-to-https"},
				{[]any{"DefaultCacheBehavior", "AllowedMethods"}, []any{"GET", "HEAD", "OPTIONS", "PUT", "POST", "PATCH", "DELETE"}},
				{[]any{"DefaultCacheBehavior", "CachedMethods"}, []any{"GET", "HEAD"}},
				{[]any{"DefaultCacheBehavior", "Compress"}, true},
			} {
				if diff := cmp.Diff(f.want, dig(d, f.path...)); diff != "" {
					t.Errorf("%v (-want +got):\n%s", f.path, diff)
				}
			}

			// The origin: the bucket through the origin access control, and no
			// origin path, since the function writes the prefix itself.
			origins, _ := dig(d, "Origins").([]any)
			if len(origins) != 1 {
				t.Fatalf("Origins %v, want one", dig(d, "Origins"))
			}
			o := origins[0]
			if got := dig(d, "DefaultCacheBehavior", "TargetOriginId"); got != dig(o, "Id") {
				t.Errorf("TargetOriginId %v, want the origin %v", got, dig(o, "Id"))
			}
			if p := dig(o, "OriginPath"); p != nil && p != "" {
				t.Errorf("OriginPath %v: the function's keys already hold the prefix", p)
			}
			wantDomain := "{GetAtt:Bucket.RegionalDomainName}"
			if !c.ownsBucket {
				wantDomain = c.bucket + ".s3." + c.bucketRegion + ".amazonaws.com"
			}
			if got := dig(o, "DomainName"); got != wantDomain {
				t.Errorf("origin DomainName %v, want %s", got, wantDomain)
			}
			if got := dig(o, "S3OriginConfig", "OriginAccessIdentity"); got != "" {
				t.Errorf("OriginAccessIdentity %#v, want \"\" (the origin access control is used)", got)
			}
			oac := st.resource(t, placeholderTarget(t, dig(o, "OriginAccessControlId"), "Id"), "AWS::CloudFront::OriginAccessControl")
			wantOAC := map[string]any{"OriginAccessControlOriginType": "s3", "SigningBehavior": "always", "SigningProtocol": "sigv4"}
			for k, v := range wantOAC {
				if got := dig(oac, "OriginAccessControlConfig", k); got != v {
					t.Errorf("origin access control %s %v, want %v", k, got, v)
				}
			}

			// The functions, by event.
			assoc := map[string]string{}
			for _, a := range list(t, d, "DefaultCacheBehavior", "FunctionAssociations") {
				assoc[fmt.Sprint(dig(a, "EventType"))] = placeholderTarget(t, dig(a, "FunctionARN"), "FunctionARN")
			}
			if got := slices.Sorted(maps.Keys(assoc)); !slices.Equal(got, []string{"viewer-request", "viewer-response"}) {
				t.Fatalf("function associations for %v, want viewer-request and viewer-response", got)
			}
			for event, name := range assoc {
				f := st.resource(t, name, "AWS::CloudFront::Function")
				want := map[string]any{"Name": c.functionPrefix + "-" + event, "AutoPublish": true, "Runtime": "cloudfront-js-2.0"}
				got := map[string]any{"Name": f["Name"], "AutoPublish": f["AutoPublish"], "Runtime": dig(f, "FunctionConfig", "Runtime")}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("%s function %s (-want +got):\n%s", event, name, diff)
				}
			}

			// The cache key is the path.
			cp := st.resource(t, placeholderTarget(t, dig(d, "DefaultCacheBehavior", "CachePolicyId"), ""), "AWS::CloudFront::CachePolicy")
			wantKey := map[string]any{
				"EnableAcceptEncodingGzip":   true,
				"EnableAcceptEncodingBrotli": true,
				"QueryStringsConfig":         map[string]any{"QueryStringBehavior": "none"},
				"HeadersConfig":              map[string]any{"HeaderBehavior": "none"},
				"CookiesConfig":              map[string]any{"CookieBehavior": "none"},
			}
			if diff := cmp.Diff(wantKey, dig(cp, "CachePolicyConfig", "ParametersInCacheKeyAndForwardedToOrigin")); diff != "" {
				t.Errorf("cache key (-want +got):\n%s", diff)
			}
			if got := dig(cp, "CachePolicyConfig", "MinTTL"); got != 0 {
				t.Errorf("MinTTL %v, want 0 so that each object's Cache-Control is honoured", got)
			}

			// S3's 403 for a missing key, and any 404, become the site's JSON 404.
			page := "/" + c.keyPrefix + ".signpost-404.json"
			wantErrors := []any{
				map[string]any{"ErrorCode": 403, "ResponseCode": 404, "ResponsePagePath": page, "ErrorCachingMinTTL": 10},
				map[string]any{"ErrorCode": 404, "ResponseCode": 404, "ResponsePagePath": page, "ErrorCachingMinTTL": 10},
			}
			if diff := cmp.Diff(wantErrors, dig(d, "CustomErrorResponses")); diff != "" {
				t.Errorf("CustomErrorResponses (-want +got):\n%s", diff)
			}
			if got := st.Outputs["ErrorPagePath"]; got != page {
				t.Errorf("ErrorPagePath output %v, want %s", got, page)
			}

			// The host name, its certificate and TLS 1.2 or later
			// (TestAWSTemplateTLS has the rest).
			want := map[string]any{"AcmCertificateArn": c.cert, "SslSupportMethod": "sni-only", "MinimumProtocolVersion": "TLSv1.2_2021"}
			if diff := cmp.Diff(want, dig(d, "ViewerCertificate")); diff != "" {
				t.Errorf("ViewerCertificate (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff([]any{c.alias}, dig(d, "Aliases")); diff != "" {
				t.Errorf("Aliases (-want +got):\n%s", diff)
			}
		})
	}
}

// TestAWSTemplateCORS checks that every response gets the CORS headers from
// the response headers policy, as custom headers (CorsConfig would answer
// only requests that carry Origin), with the values the viewer-response
// function sets.
func TestAWSTemplateCORS(t *testing.T) {
	tpl := loadCFNTemplate(t)
	st := renderCase(t, tpl, awsCases()[0])
	d := dig(st.resource(t, "Distribution", "AWS::CloudFront::Distribution"), "DistributionConfig")
	rhp := st.resource(t, placeholderTarget(t, dig(d, "DefaultCacheBehavior", "ResponseHeadersPolicyId"), ""), "AWS::CloudFront::ResponseHeadersPolicy")
	cfg := dig(rhp, "ResponseHeadersPolicyConfig")
	if dig(cfg, "CorsConfig") != nil {
		t.Errorf("CorsConfig is set: it answers only requests with Origin; use custom headers")
	}
	got := map[string]string{}
	for _, h := range list(t, cfg, "CustomHeadersConfig", "Items") {
		if dig(h, "Override") != true {
			t.Errorf("custom header %v: Override is not true", dig(h, "Header"))
		}
		got[strings.ToLower(fmt.Sprint(dig(h, "Header")))] = fmt.Sprint(dig(h, "Value"))
	}
	want := map[string]string{
		"access-control-allow-origin":   "*",
		"access-control-allow-methods":  "GET, HEAD, OPTIONS",
		"access-control-allow-headers":  "Content-Type, If-None-Match",
		"access-control-expose-headers": "ETag",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("custom headers (-want +got):\n%s", diff)
	}

	// The viewer-response function sets the same headers, where it runs.
	js, err := CloudFront.ReadFile("cloudfront/viewer-response.js.tmpl")
	if err != nil {
		t.Fatal(err)
	}
	fn := map[string]string{}
	for _, m := range regexp.MustCompile(`h\['(access-control-[a-z-]+)'\] = \{ value: '([^']*)' \}`).FindAllStringSubmatch(string(js), -1) {
		fn[m[1]] = m[2]
	}
	if diff := cmp.Diff(fn, got); diff != "" {
		t.Errorf("policy headers differ from viewer-response.js.tmpl (-function +policy):\n%s", diff)
	}
}

// TestAWSTemplatePublishPolicy checks the CI policy: what signpost publish
// needs for the site, on the site's resources only.
func TestAWSTemplatePublishPolicy(t *testing.T) {
	tpl := loadCFNTemplate(t)
	for _, c := range awsCases() {
		t.Run(c.name, func(t *testing.T) {
			st := renderCase(t, tpl, c)
			p := st.resource(t, "CiPublishPolicy", "AWS::IAM::ManagedPolicy")
			bucketArn := "arn:aws:s3:::" + c.bucket
			fnArn := "arn:aws:cloudfront::" + awsAccount + ":function/" + c.functionPrefix
			fns := []string{fnArn + "-viewer-request", fnArn + "-viewer-response"}
			want := map[string][]string{
				"s3:ListBucket":                 {bucketArn},
				"s3:GetObject":                  {bucketArn + "/" + c.keyPrefix + "*"},
				"s3:PutObject":                  {bucketArn + "/" + c.keyPrefix + "*"},
				"s3:DeleteObject":               {bucketArn + "/" + c.keyPrefix + "*"},
				"s3:PutBucketCORS":              {bucketArn},
				"cloudfront:CreateInvalidation": {"arn:aws:cloudfront::" + awsAccount + ":distribution/{Ref:Distribution}"},
				"cloudfront:GetInvalidation":    {"arn:aws:cloudfront::" + awsAccount + ":distribution/{Ref:Distribution}"},
				"cloudfront:DescribeFunction":   fns,
				"cloudfront:GetFunction":        fns,
				"cloudfront:CreateFunction":     fns,
				"cloudfront:UpdateFunction":     fns,
				"cloudfront:PublishFunction":    fns,
			}
			got := map[string][]string{}
			for _, s := range list(t, p, "PolicyDocument", "Statement") {
				if dig(s, "Effect") != "Allow" {
					t.Errorf("statement %v: not an Allow", dig(s, "Sid"))
				}
				for _, a := range asStrings(dig(s, "Action")) {
					got[a] = append(got[a], asStrings(dig(s, "Resource"))...)
				}
				if slices.Contains(asStrings(dig(s, "Action")), "s3:ListBucket") {
					var wantCond any
					if c.keyPrefix != "" {
						wantCond = map[string]any{"StringLike": map[string]any{"s3:prefix": c.keyPrefix + "*"}}
					}
					if diff := cmp.Diff(wantCond, dig(s, "Condition")); diff != "" {
						t.Errorf("s3:ListBucket condition (-want +got):\n%s", diff)
					}
				}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("actions -> resources (-want +got):\n%s", diff)
			}
			var wantRoles any
			if c.attachTo != "" {
				wantRoles = []any{c.attachTo}
			}
			if diff := cmp.Diff(wantRoles, p["Roles"]); diff != "" {
				t.Errorf("Roles (-want +got):\n%s", diff)
			}

			role, ok := st.Resources["CiRole"]
			if ok != (c.gitHub != "") {
				t.Fatalf("CiRole created: %v, want %v", ok, c.gitHub != "")
			}
			if !ok {
				return
			}
			trust := dig(role, "Properties", "AssumeRolePolicyDocument", "Statement", 0)
			wantTrust := map[string]any{
				"Effect":    "Allow",
				"Principal": map[string]any{"Federated": "arn:aws:iam::" + awsAccount + ":oidc-provider/token.actions.githubusercontent.com"},
				"Action":    "sts:AssumeRoleWithWebIdentity",
				"Condition": map[string]any{"StringEquals": map[string]any{
					"token.actions.githubusercontent.com:aud": "sts.amazonaws.com",
					"token.actions.githubusercontent.com:sub": c.gitHub,
				}},
			}
			if diff := cmp.Diff(wantTrust, trust); diff != "" {
				t.Errorf("CiRole trust (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff([]any{"{Ref:CiPublishPolicy}"}, dig(role, "Properties", "ManagedPolicyArns")); diff != "" {
				t.Errorf("CiRole policies (-want +got):\n%s", diff)
			}
		})
	}
}

// TestAWSTemplateOutputs checks the outputs a team copies into
// signpost.yaml and its CI.
func TestAWSTemplateOutputs(t *testing.T) {
	tpl := loadCFNTemplate(t)
	for _, c := range awsCases() {
		t.Run(c.name, func(t *testing.T) {
			st := renderCase(t, tpl, c)
			want := map[string]any{
				"DistributionId":             "{Ref:Distribution}",
				"DistributionDomainName":     "{GetAtt:Distribution.DomainName}",
				"DistributionArn":            "arn:aws:cloudfront::" + awsAccount + ":distribution/{Ref:Distribution}",
				"BucketName":                 c.bucket,
				"ErrorPagePath":              "/" + c.keyPrefix + ".signpost-404.json",
				"FunctionNamePrefix":         c.functionPrefix,
				"ViewerRequestFunctionName":  c.functionPrefix + "-viewer-request",
				"ViewerResponseFunctionName": c.functionPrefix + "-viewer-response",
				"CiPublishPolicyArn":         "{Ref:CiPublishPolicy}",
			}
			if c.gitHub != "" {
				want["CiRoleArn"] = "{GetAtt:CiRole.Arn}"
				want["CiRoleName"] = "{Ref:CiRole}"
			}
			if diff := cmp.Diff(want, st.Outputs); diff != "" {
				t.Errorf("outputs (-want +got):\n%s", diff)
			}
		})
	}
}

// TestAWSTemplateParameters checks the parameters against what signpost
// accepts, and the rules that refuse inconsistent ones.
func TestAWSTemplateParameters(t *testing.T) {
	tpl := loadCFNTemplate(t)

	// FunctionNamePrefix is the target's cloudfront functionName.
	schema, err := os.ReadFile(filepath.Join("..", "schemas", "config.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Defs struct {
			Distribution struct {
				Properties struct {
					FunctionName struct{ Pattern string } `json:"functionName"`
				}
			}
		} `json:"$defs"`
	}
	if err := json.Unmarshal(schema, &s); err != nil {
		t.Fatal(err)
	}
	if got, want := yamlGet(yamlGet(tpl.params, "FunctionNamePrefix"), "AllowedPattern").Value, s.Defs.Distribution.Properties.FunctionName.Pattern; got != want {
		t.Errorf("FunctionNamePrefix AllowedPattern %q, want functionName's pattern %q", got, want)
	}

	base := map[string]string{
		"BucketName": "example-discovery", "FunctionNamePrefix": "example",
		"AliasDomainName": "discovery.example.com", "CertificateArn": "arn:aws:acm:us-east-1:123456789012:certificate/example",
	}
	without := func(name string) map[string]string {
		m := maps.Clone(base)
		delete(m, name)
		return m
	}
	with := func(kv ...string) map[string]string {
		m := map[string]string{}
		for k, v := range base {
			m[k] = v
		}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	for _, c := range []struct {
		name    string
		params  map[string]string
		invalid bool     // a parameter is refused
		rules   []string // failed rules
	}{
		{name: "minimal", params: base},
		{name: "sharing without the bucket", params: with("CreateBucket", "false", "SharedBucketDistributionArns", "arn:aws:cloudfront::123456789012:distribution/E1"), rules: []string{"SharingNeedsBucketOwner"}},
		{name: "prefix with slashes around", params: with("SitePrefix", "/tenants/acme/"), invalid: true},
		{name: "prefix with a wildcard", params: with("SitePrefix", "tenants/*"), invalid: true},
		{name: "function name too long", params: with("FunctionNamePrefix", strings.Repeat("a", 49)), invalid: true},
		{name: "no function name", params: without("FunctionNamePrefix"), invalid: true},
		{name: "repository without owner", params: with("GitHubRepository", "catalog"), invalid: true},
		{name: "shared ARNs with a space", params: with("SharedBucketDistributionArns", "arn:aws:cloudfront::123456789012:distribution/E1, arn:aws:cloudfront::123456789012:distribution/E2"), invalid: true},
		{name: "bucket region with a space", params: with("CreateBucket", "false", "BucketRegion", "eu west"), invalid: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			env, err := newCFNEnv(tpl, c.params)
			if (err != nil) != c.invalid {
				t.Fatalf("parameters refused: %v, want refused %v", err, c.invalid)
			}
			if err != nil {
				return
			}
			_, failed, err := env.render()
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(c.rules, failed); diff != "" {
				t.Errorf("failed rules (-want +got):\n%s", diff)
			}
		})
	}
}

// TestAWSTemplateReferences checks every Ref, GetAtt, Sub variable and
// condition name against what the template declares, and that a resource
// that exists only under a condition is used only where that condition
// holds. Rules and Conditions may refer to parameters only.
func TestAWSTemplateReferences(t *testing.T) {
	tpl := loadCFNTemplate(t)
	params := map[string]bool{}
	for _, k := range yamlKeys(tpl.params) {
		params[k] = true
	}
	conds := map[string]bool{}
	for _, k := range yamlKeys(tpl.conds) {
		conds[k] = true
	}
	resCond := map[string]string{} // resource -> its condition, or ""
	for _, k := range yamlKeys(tpl.resources) {
		if params[k] {
			t.Errorf("%s is both a parameter and a resource", k)
		}
		resCond[k] = ""
		if c := yamlGet(yamlGet(tpl.resources, k), "Condition"); c != nil {
			resCond[k] = c.Value
		}
	}
	isPseudo := func(name string) bool { return strings.HasPrefix(name, "AWS::") }

	// check reports an unknown or unguarded reference to name from where.
	check := func(where, name string, paramsOnly bool, guards []string, line int) {
		switch {
		case params[name] || isPseudo(name):
		case paramsOnly:
			t.Errorf("%s (line %d): %s is not a parameter", where, line, name)
		default:
			c, ok := resCond[name]
			if !ok {
				t.Errorf("%s (line %d): no parameter or resource %s", where, line, name)
			} else if c != "" && !slices.Contains(guards, c) {
				t.Errorf("%s (line %d): %s exists only if %s, which does not hold here", where, line, name, c)
			}
		}
	}
	checkCond := func(where, name string, line int) {
		if !conds[name] {
			t.Errorf("%s (line %d): no condition %s", where, line, name)
		}
	}
	var walk func(where string, n *yaml.Node, paramsOnly bool, guards []string, locals []string)
	walk = func(where string, n *yaml.Node, paramsOnly bool, guards []string, locals []string) {
		name, arg, ok := cfnFunc(n)
		if !ok {
			for i, c := range n.Content {
				if n.Kind == yaml.MappingNode && i%2 == 0 {
					continue
				}
				walk(where, c, paramsOnly, guards, locals)
			}
			return
		}
		switch name {
		case "Ref":
			check(where, arg.Value, paramsOnly, guards, n.Line)
			return
		case "Condition":
			checkCond(where, arg.Value, n.Line)
			return
		case "Fn::GetAtt":
			target := arg.Value
			if arg.Kind == yaml.SequenceNode && len(arg.Content) > 0 {
				target = arg.Content[0].Value
			}
			res, _, _ := strings.Cut(target, ".")
			if _, ok := resCond[res]; !ok {
				t.Errorf("%s (line %d): Fn::GetAtt %s: no such resource", where, n.Line, target)
				return
			}
			check(where, res, paramsOnly, guards, n.Line)
			return
		case "Fn::Sub":
			str := arg
			if arg.Kind == yaml.SequenceNode && len(arg.Content) == 2 {
				str = arg.Content[0]
				locals = append(slices.Clone(locals), yamlKeys(arg.Content[1])...)
				walk(where, arg.Content[1], paramsOnly, guards, nil)
			}
			for _, m := range regexp.MustCompile(`\$\{([^!}][^}]*)\}`).FindAllStringSubmatch(str.Value, -1) {
				v, _, _ := strings.Cut(m[1], ".")
				if isPseudo(m[1]) {
					v = m[1]
				}
				if !slices.Contains(locals, v) {
					check(where, v, paramsOnly, guards, n.Line)
				}
			}
			return
		case "Fn::If":
			if arg.Kind != yaml.SequenceNode || len(arg.Content) != 3 {
				t.Errorf("%s (line %d): Fn::If takes [condition, then, else]", where, n.Line)
				return
			}
			checkCond(where, arg.Content[0].Value, n.Line)
			walk(where, arg.Content[1], paramsOnly, append(slices.Clone(guards), arg.Content[0].Value), locals)
			walk(where, arg.Content[2], paramsOnly, guards, locals)
			return
		}
		walk(where, arg, paramsOnly, guards, locals)
	}

	for _, k := range yamlKeys(tpl.rules) {
		walk("rule "+k, yamlGet(tpl.rules, k), true, nil, nil)
	}
	for _, k := range yamlKeys(tpl.conds) {
		walk("condition "+k, yamlGet(tpl.conds, k), true, nil, nil)
	}
	for _, section := range []struct {
		kind string
		n    *yaml.Node
	}{{"resource", tpl.resources}, {"output", tpl.out}} {
		for _, k := range yamlKeys(section.n) {
			v := yamlGet(section.n, k)
			var guards []string
			if c := yamlGet(v, "Condition"); c != nil {
				checkCond(section.kind+" "+k, c.Value, c.Line)
				guards = []string{c.Value}
			}
			for _, prop := range []string{"Properties", "Value"} {
				if p := yamlGet(v, prop); p != nil {
					walk(section.kind+" "+k, p, false, guards, nil)
				}
			}
		}
	}
}

// TestAWSTemplatePlaceholderFunctions runs the placeholder code of both
// functions under node: it must parse, the viewer-request one must answer
// 503 with a JSON error that says to run signpost publish, and the
// viewer-response one must leave the response alone.
func TestAWSTemplatePlaceholderFunctions(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("node is needed to check the placeholder functions: %v", err)
		}
		t.Skipf("node not found, placeholder functions not checked: %v", err)
	}
	tpl := loadCFNTemplate(t)
	st := renderCase(t, tpl, awsCases()[0])
	request := map[string]any{"method": "GET", "uri": "/tools", "querystring": map[string]any{}, "headers": map[string]any{}}
	response := map[string]any{"statusCode": 200, "statusDescription": "OK", "headers": map[string]any{"etag": map[string]any{"value": `"x"`}}}
	for _, c := range []struct {
		resource string
		event    map[string]any
		want     func(t *testing.T, out map[string]any)
	}{{
		resource: "ViewerRequestFunction",
		event:    map[string]any{"version": "1.0", "context": map[string]any{"eventType": "viewer-request"}, "request": request},
		want: func(t *testing.T, out map[string]any) {
			if out["statusCode"] != 503.0 {
				t.Errorf("statusCode %v, want 503", out["statusCode"])
			}
			if got := dig(out, "headers", "content-type", "value"); got != "application/json" {
				t.Errorf("content-type %v, want application/json", got)
			}
			var body struct {
				Error struct {
					Status  int
					Message string
				}
			}
			if err := json.Unmarshal([]byte(fmt.Sprint(dig(out, "body", "data"))), &body); err != nil {
				t.Fatalf("body: %v", err)
			}
			if body.Error.Status != 503 || !strings.Contains(body.Error.Message, "run signpost publish") {
				t.Errorf("body %+v: want status 503 and a message that says to run signpost publish", body.Error)
			}
		},
	}, {
		resource: "ViewerResponseFunction",
		event:    map[string]any{"version": "1.0", "context": map[string]any{"eventType": "viewer-response"}, "request": request, "response": response},
		want: func(t *testing.T, out map[string]any) {
			want := map[string]any{"statusCode": 200.0, "statusDescription": "OK", "headers": map[string]any{"etag": map[string]any{"value": `"x"`}}}
			if diff := cmp.Diff(want, out); diff != "" {
				t.Errorf("response (-want +got):\n%s", diff)
			}
		},
	}} {
		t.Run(c.resource, func(t *testing.T) {
			code := fmt.Sprint(st.resource(t, c.resource, "AWS::CloudFront::Function")["FunctionCode"])
			if len(code) > 10*1024 {
				t.Errorf("code is %d bytes; CloudFront takes at most 10 KB", len(code))
			}
			dir := t.TempDir()
			src := filepath.Join(dir, "fn.js")
			if err := os.WriteFile(src, []byte(code), 0o644); err != nil {
				t.Fatal(err)
			}
			event, err := json.Marshal(c.event)
			if err != nil {
				t.Fatal(err)
			}
			harness := filepath.Join(dir, "run.js")
			run := code + "\nconsole.log(JSON.stringify(handler(" + string(event) + ")));\n"
			if err := os.WriteFile(harness, []byte(run), 0o644); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), awsNodeTimeout)
			defer cancel()
			if out, err := exec.CommandContext(ctx, node, "--check", src).CombinedOutput(); err != nil {
				t.Fatalf("node --check: %v\n%s", err, out)
			}
			var stdout, stderr bytes.Buffer
			cmd := exec.CommandContext(ctx, node, harness)
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Run(); err != nil {
				t.Fatalf("node: %v\n%s", err, stderr.String())
			}
			var out map[string]any
			if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
				t.Fatalf("handler output %q: %v", stdout.String(), err)
			}
			c.want(t, out)
		})
	}
}
