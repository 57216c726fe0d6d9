package edgetest

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Event types of function associations.
const (
	ViewerRequest  = "viewer-request"
	ViewerResponse = "viewer-response"
)

// CustomHeader is one custom header of a response headers policy.
type CustomHeader struct {
	Name, Value string
	// Override replaces a header of the same name the response already
	// has; otherwise the header is added only when the response lacks it.
	Override bool
}

// ErrorResponse is a custom error response: an origin error answered with
// ResponseCode and the object at PagePath.
type ErrorResponse struct {
	ResponseCode int
	PagePath     string // "/tenants/acme/.signpost-404.json"
}

// Distribution is what the emulator takes from a distribution's
// configuration.
type Distribution struct {
	// AllowedMethods of the default cache behavior.
	AllowedMethods []string
	// Functions are the event types that have a function association.
	Functions []string
	// Headers are the custom headers of the response headers policy.
	Headers []CustomHeader
	// ErrorResponses are the custom error responses by origin status.
	ErrorResponses map[int]ErrorResponse
	// CacheBehaviors are the other cache behaviors, in order: a request
	// whose path matches one's PathPattern gets its settings instead of
	// the default behavior's above.
	CacheBehaviors []CacheBehavior
}

// CacheBehavior is a cache behavior other than the default one.
type CacheBehavior struct {
	// PathPattern is matched against the request's path as sent (escaped,
	// without the query), case-sensitively: '*' stands for any run of
	// characters, '?' for one.
	PathPattern    string
	AllowedMethods []string
	Functions      []string
	Headers        []CustomHeader
}

// behavior returns the settings of the cache behavior of a request's
// path: the first whose pattern matches, or the default behavior.
func (d Distribution) behavior(path string) CacheBehavior {
	for _, b := range d.CacheBehaviors {
		if matchPattern(b.PathPattern, path) {
			return b
		}
	}
	return CacheBehavior{AllowedMethods: d.AllowedMethods, Functions: d.Functions, Headers: d.Headers}
}

// matchPattern reports whether path matches a cache behavior's path
// pattern, as CloudFront matches them: '*' any run of characters, '/'
// included, '?' exactly one, every other character itself; a pattern
// without a leading '/' has one.
func matchPattern(pattern, path string) bool {
	if !strings.HasPrefix(pattern, "/") {
		pattern = "/" + pattern
	}
	// Iterative wildcard matching with one backtrack point: linear in
	// practice, and bounded by len(pattern)*len(path).
	p, s, star, mark := 0, 0, -1, 0
	for s < len(path) {
		switch {
		case p < len(pattern) && (pattern[p] == '?' || pattern[p] == path[s]):
			p++
			s++
		case p < len(pattern) && pattern[p] == '*':
			star, mark = p, s
			p++
		case star >= 0:
			p = star + 1
			mark++
			s = mark
		default:
			return false
		}
	}
	for p < len(pattern) && pattern[p] == '*' {
		p++
	}
	return p == len(pattern)
}

// LoadTemplate reads the distribution of the CloudFormation template at
// path (templates/aws/cloudfront-s3.yaml) as deployed with the parameter
// SitePrefix set to sitePrefix ("" or "tenants/acme"). It understands the
// few intrinsic functions the distribution's settings use: !Ref of a
// resource, !If on HasSitePrefix and !Sub of ${SitePrefix}.
func LoadTemplate(path, sitePrefix string) (Distribution, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Distribution{}, fmt.Errorf("read the distribution template: %w", err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return Distribution{}, fmt.Errorf("parse %s: %w", path, err)
	}
	if len(doc.Content) != 1 {
		return Distribution{}, fmt.Errorf("%s: not a YAML document", path)
	}
	t := cfnTemplate{resources: yamlGet(doc.Content[0], "Resources"), sitePrefix: sitePrefix}
	d, err := t.distribution()
	if err != nil {
		return Distribution{}, fmt.Errorf("%s: %w", path, err)
	}
	return d, nil
}

type cfnTemplate struct {
	resources  *yaml.Node
	sitePrefix string
}

func (t cfnTemplate) distribution() (Distribution, error) {
	var d Distribution
	config := yamlGet(yamlGet(yamlGet(t.resources, "Distribution"), "Properties"), "DistributionConfig")
	behavior := yamlGet(config, "DefaultCacheBehavior")
	if behavior == nil {
		return d, errors.New("no Resources.Distribution.Properties.DistributionConfig.DefaultCacheBehavior")
	}
	def, err := t.behavior(behavior)
	if err != nil {
		return d, err
	}
	d.AllowedMethods, d.Functions, d.Headers = def.AllowedMethods, def.Functions, def.Headers
	if list := yamlGet(config, "CacheBehaviors"); list != nil {
		for _, n := range list.Content {
			b, err := t.behavior(n)
			if err != nil {
				return d, fmt.Errorf("CacheBehaviors: %w", err)
			}
			if b.PathPattern, err = t.eval(yamlGet(n, "PathPattern")); err != nil || b.PathPattern == "" {
				return d, fmt.Errorf("CacheBehaviors: a behavior without a PathPattern (%v)", err)
			}
			d.CacheBehaviors = append(d.CacheBehaviors, b)
		}
	}
	d.ErrorResponses = map[int]ErrorResponse{}
	if errs := yamlGet(config, "CustomErrorResponses"); errs != nil {
		for _, e := range errs.Content {
			var vals [3]string
			for i, k := range []string{"ErrorCode", "ResponseCode", "ResponsePagePath"} {
				if vals[i], err = t.eval(yamlGet(e, k)); err != nil {
					return d, fmt.Errorf("CustomErrorResponses %s: %w", k, err)
				}
			}
			code, err1 := strconv.Atoi(vals[0])
			resp, err2 := strconv.Atoi(vals[1])
			if err1 != nil || err2 != nil || vals[2] == "" {
				return d, fmt.Errorf("CustomErrorResponses: %v is not a code, a response code and a page", vals)
			}
			d.ErrorResponses[code] = ErrorResponse{ResponseCode: resp, PagePath: vals[2]}
		}
	}
	return d, nil
}

// behavior reads what the emulator takes of a cache behavior: its
// allowed methods, its function associations and the custom headers of
// its response headers policy.
func (t cfnTemplate) behavior(behavior *yaml.Node) (CacheBehavior, error) {
	var d CacheBehavior
	methods, err := t.strings(yamlGet(behavior, "AllowedMethods"))
	if err != nil {
		return d, fmt.Errorf("AllowedMethods: %w", err)
	}
	d.AllowedMethods = methods
	if assoc := yamlGet(behavior, "FunctionAssociations"); assoc != nil {
		for _, a := range assoc.Content {
			ev, err := t.eval(yamlGet(a, "EventType"))
			if err != nil {
				return d, fmt.Errorf("FunctionAssociations: %w", err)
			}
			d.Functions = append(d.Functions, ev)
		}
	}
	if ref := yamlGet(behavior, "ResponseHeadersPolicyId"); ref != nil {
		if ref.Tag != "!Ref" {
			return d, errors.New("ResponseHeadersPolicyId is not a !Ref of a resource")
		}
		policy := yamlGet(yamlGet(yamlGet(t.resources, ref.Value), "Properties"), "ResponseHeadersPolicyConfig")
		if policy == nil {
			return d, fmt.Errorf("no response headers policy %s", ref.Value)
		}
		if items := yamlGet(yamlGet(policy, "CustomHeadersConfig"), "Items"); items != nil {
			for _, it := range items.Content {
				var h CustomHeader
				if h.Name, err = t.eval(yamlGet(it, "Header")); err != nil {
					return d, fmt.Errorf("%s: %w", ref.Value, err)
				}
				if h.Value, err = t.eval(yamlGet(it, "Value")); err != nil {
					return d, fmt.Errorf("%s: %w", ref.Value, err)
				}
				o, err := t.eval(yamlGet(it, "Override"))
				if err != nil {
					return d, fmt.Errorf("%s: %w", ref.Value, err)
				}
				h.Override = o == "true"
				d.Headers = append(d.Headers, h)
			}
		}
	}
	return d, nil
}

// eval evaluates a scalar setting; a missing one is "".
func (t cfnTemplate) eval(n *yaml.Node) (string, error) {
	if n == nil {
		return "", nil
	}
	switch n.Tag {
	case "!Sub":
		if n.Kind != yaml.ScalarNode {
			return "", fmt.Errorf("line %d: only the one-string form of !Sub is understood", n.Line)
		}
		s := strings.ReplaceAll(n.Value, "${SitePrefix}", t.sitePrefix)
		if strings.Contains(s, "${") {
			return "", fmt.Errorf("line %d: !Sub %q: only ${SitePrefix} is understood", n.Line, n.Value)
		}
		return s, nil
	case "!If":
		if n.Kind != yaml.SequenceNode || len(n.Content) != 3 || n.Content[0].Value != "HasSitePrefix" {
			return "", fmt.Errorf("line %d: only !If [HasSitePrefix, A, B] is understood", n.Line)
		}
		if t.sitePrefix != "" {
			return t.eval(n.Content[1])
		}
		return t.eval(n.Content[2])
	}
	// "!!str", "!!bool": plain YAML; "!GetAtt" and the like: not understood.
	if n.Kind != yaml.ScalarNode || (strings.HasPrefix(n.Tag, "!") && !strings.HasPrefix(n.Tag, "!!")) {
		return "", fmt.Errorf("line %d: %s is not understood", n.Line, n.Tag)
	}
	return n.Value, nil
}

// strings evaluates a list of scalars.
func (t cfnTemplate) strings(n *yaml.Node) ([]string, error) {
	if n == nil || n.Kind != yaml.SequenceNode {
		return nil, errors.New("not a list")
	}
	var out []string
	for _, c := range n.Content {
		s, err := t.eval(c)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// yamlGet returns the value of key in mapping m, or nil.
func yamlGet(m *yaml.Node, key string) *yaml.Node {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}
