package templates

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// awsTLSPolicies are the CloudFront security policies that refuse TLS 1.0
// and 1.1: the spec requires TLS 1.2 or later in production.
var awsTLSPolicies = []string{"TLSv1.2_2021", "TLSv1.2_2025", "TLSv1.3_2025"}

// TestAWSTemplateTLS checks that every deployment of the template serves
// the site over TLS 1.2 or later: the host name and its ACM certificate
// are required parameters, and the distribution always uses them with a
// TLS 1.2 security policy. The default *.cloudfront.net certificate is
// limited to the TLSv1 policy, so it appears nowhere.
func TestAWSTemplateTLS(t *testing.T) {
	tpl := loadCFNTemplate(t)

	for name, pattern := range map[string]string{
		"AliasDomainName": "",
		"CertificateArn":  "^arn:aws:acm:us-east-1:[0-9]{12}:certificate/.+$",
	} {
		p := yamlGet(tpl.params, name)
		if p == nil {
			t.Errorf("parameter %s: missing", name)
			continue
		}
		if d := yamlGet(p, "Default"); d != nil {
			t.Errorf("parameter %s: Default %q; it must be required", name, d.Value)
		}
		got := yamlGet(p, "AllowedPattern")
		if got == nil {
			t.Errorf("parameter %s: no AllowedPattern", name)
		} else if pattern != "" && got.Value != pattern {
			t.Errorf("parameter %s: AllowedPattern %q, want %q", name, got.Value, pattern)
		}
	}

	// Nothing in the template, conditional or not, names the default
	// certificate, and the distribution's host name and certificate are
	// not conditional.
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		if n.Kind == yaml.MappingNode {
			for i := 0; i+1 < len(n.Content); i += 2 {
				if k := n.Content[i]; k.Value == "CloudFrontDefaultCertificate" || k.Value == "IamCertificateId" {
					t.Errorf("line %d: %s: the distribution must use the ACM certificate of AliasDomainName", k.Line, k.Value)
				}
			}
		}
		for _, c := range n.Content {
			walk(c)
		}
	}
	walk(tpl.root)
	config := yamlGet(yamlGet(yamlGet(tpl.resources, "Distribution"), "Properties"), "DistributionConfig")
	for _, key := range []string{"Aliases", "ViewerCertificate"} {
		v := yamlGet(config, key)
		if v == nil {
			t.Errorf("DistributionConfig: no %s", key)
			continue
		}
		if name, _, ok := cfnFunc(v); ok {
			t.Errorf("DistributionConfig %s (line %d) is a %s: it must hold in every deployment", key, v.Line, name)
		}
	}
	for _, rule := range yamlKeys(tpl.rules) {
		if strings.Contains(rule, "Alias") || strings.Contains(rule, "Certificate") {
			t.Errorf("rule %s: the parameters are required, no rule is needed", rule)
		}
	}

	for _, c := range awsCases() {
		t.Run(c.name, func(t *testing.T) {
			st := renderCase(t, tpl, c)
			d := dig(st.resource(t, "Distribution", "AWS::CloudFront::Distribution"), "DistributionConfig")
			vc, ok := dig(d, "ViewerCertificate").(map[string]any)
			if !ok {
				t.Fatalf("ViewerCertificate %v: not a mapping", dig(d, "ViewerCertificate"))
			}
			if _, ok := vc["CloudFrontDefaultCertificate"]; ok {
				t.Errorf("ViewerCertificate %v: the default certificate allows TLS 1.0 and 1.1", vc)
			}
			if got := vc["AcmCertificateArn"]; got != c.params["CertificateArn"] {
				t.Errorf("AcmCertificateArn %v, want CertificateArn %s", got, c.params["CertificateArn"])
			}
			if got := vc["SslSupportMethod"]; got != "sni-only" {
				t.Errorf("SslSupportMethod %v, want sni-only", got)
			}
			if got, _ := vc["MinimumProtocolVersion"].(string); !slices.Contains(awsTLSPolicies, got) {
				t.Errorf("MinimumProtocolVersion %q, want one of %v (TLS 1.2 or later)", got, awsTLSPolicies)
			}
			if got := list(t, d, "Aliases"); !slices.Equal(asStrings(got), []string{c.params["AliasDomainName"]}) {
				t.Errorf("Aliases %v, want [%s]", got, c.params["AliasDomainName"])
			}
		})
	}

	// The parameters are refused as CloudFormation would: missing, empty,
	// or not a lower-case host name and an ACM certificate in us-east-1.
	const unset = "\x00"
	params := awsCases()[0].params
	set := func(name, value string) map[string]string {
		m := maps.Clone(params)
		delete(m, name)
		if value != unset {
			m[name] = value
		}
		return m
	}
	for _, c := range []struct {
		name   string
		params map[string]string
		ok     bool
	}{
		{"both given", params, true},
		{"a subdomain", set("AliasDomainName", "mcp.discovery.example.co.uk"), true},
		{"a hyphenated label", set("AliasDomainName", "tool-catalog.example-corp.com"), true},
		{"no domain", set("AliasDomainName", unset), false},
		{"empty domain", set("AliasDomainName", ""), false},
		{"no certificate", set("CertificateArn", unset), false},
		{"empty certificate", set("CertificateArn", ""), false},
		{"a domain with a scheme", set("AliasDomainName", "https://discovery.example.com"), false},
		{"a domain in upper case", set("AliasDomainName", "Discovery.Example.com"), false},
		{"a wildcard domain", set("AliasDomainName", "*.example.com"), false},
		{"a domain with a trailing dot", set("AliasDomainName", "discovery.example.com."), false},
		{"a domain with a port", set("AliasDomainName", "discovery.example.com:443"), false},
		{"a single label", set("AliasDomainName", "localhost"), false},
		{"an IP address", set("AliasDomainName", "192.0.2.1"), false},
		{"a label ending in a hyphen", set("AliasDomainName", "discovery-.example.com"), false},
		{"a label of 64 characters", set("AliasDomainName", strings.Repeat("a", 64)+".example.com"), false},
		{"a domain of 254 characters", set("AliasDomainName", strings.Repeat(strings.Repeat("a", 62)+".", 4)+"co"), false},
		{"a certificate in another region", set("CertificateArn", "arn:aws:acm:eu-west-1:123456789012:certificate/example"), false},
		{"a certificate of IAM", set("CertificateArn", "arn:aws:iam::123456789012:server-certificate/example"), false},
		{"a certificate without its id", set("CertificateArn", "arn:aws:acm:us-east-1:123456789012:certificate/"), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := newCFNEnv(tpl, c.params)
			if (err == nil) != c.ok {
				t.Errorf("parameters accepted %v (%v), want %v", err == nil, err, c.ok)
			}
		})
	}
}
