package build

import (
	"context"
	"strings"
	"testing"

	"github.com/signpost-dev/signpost/build/gate"
	"github.com/signpost-dev/signpost/build/spec"
)

const tenantsConfig = `site: {origin: https://tools.example.com, publisher: example.com}
tenants:
  - acme
  - id: globex
    origin: https://globex.tools.example.com
    gate: token
    publicDiscovery: true
  - id: initech
    gate: token
`

// TestTenantOriginsAndGates checks tenants with their own origin and gate: each
// site's documents name its origin, and the route table keeps its access.
func TestTenantOriginsAndGates(t *testing.T) {
	cat := checkDiags(t, map[string]string{"signpost.yaml": tenantsConfig, "tools/a.yaml": "tools:\n" + toolDecl()})
	if got := strings.Join(cat.Config.Tenants, ","); got != "acme,globex,initech" {
		t.Fatalf("tenants %s", got)
	}
	out, err := Compile(context.Background(), cat)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]struct {
		origin string
		access gate.Access
	}{
		"acme":    {"https://tools.example.com", gate.Access{}},
		"globex":  {"https://globex.tools.example.com", gate.Access{Token: true, PublicDiscovery: true}},
		"initech": {"https://tools.example.com", gate.Access{Token: true}},
	}
	for _, s := range out.Sites {
		w := want[s.Tenant]
		if s.Origin != w.origin || s.Access != w.access {
			t.Errorf("site %s: origin %s, access %+v; want %s, %+v", s.Tenant, s.Origin, s.Access, w.origin, w.access)
		}
		for _, d := range s.Documents {
			if d.Route.Route == spec.RouteAICatalog && !strings.Contains(string(bodyOf(t, d)), `"url":"`+w.origin+`/tools"`) {
				t.Errorf("site %s: the AI catalog does not name %s/tools:\n%s", s.Tenant, w.origin, bodyOf(t, d))
			}
		}
	}
	rt := out.RouteTable()
	if rt.Sites[0].Access != nil || rt.Sites[1].Access == nil || !rt.Sites[1].Access.PublicDiscovery {
		t.Errorf("route table access: %+v %+v", rt.Sites[0].Access, rt.Sites[1].Access)
	}
}

func TestTenantRules(t *testing.T) {
	checkDiags(t, map[string]string{
		"signpost.yaml": `site: {origin: https://tools.example.com, publisher: example.com}
tenants:
  - acme
  - id: acme
  - id: globex
    origin: https://shared.example.com
  - id: initech
    origin: https://shared.example.com/
  - id: umbrella
    publicDiscovery: true
  - id: hooli
    origin: http://hooli.example.com
`,
		"tools/a.yaml": "tools:\n" + toolDecl(),
	},
		`signpost.yaml:4:5: tenant acme is declared twice`,
		`signpost.yaml:8:13: tenants globex and initech share the origin https://shared.example.com/: each tenant's origin must serve its own site only`,
		`signpost.yaml:10:22: tenant umbrella: publicDiscovery keeps /.well-known/ public on a gated site, but the site has no gate: add gate: token, or drop publicDiscovery`,
		`signpost.yaml:12:13: tenant hooli: origin "http://hooli.example.com" must use https: plain http is only for loopback hosts`,
	)
}

// TestGatedTargets checks that a gated tenant is published only where its
// gate runs: a distribution with its functions and key value store.
func TestGatedTargets(t *testing.T) {
	checkDiags(t, map[string]string{
		"signpost.yaml": `site: {origin: https://tools.example.com, publisher: example.com}
tenants:
  - acme
  - {id: globex, gate: token}
targets:
  pages: {githubPages: {}}
  bucket: {s3: {bucket: example-bucket, region: us-east-1}}
  half:
    s3: {bucket: example-bucket, region: us-east-1}
    cloudfront: {tenants: {acme: {distributionId: E1}, globex: {distributionId: E2}}}
  good:
    s3: {bucket: example-bucket, region: us-east-1}
    cloudfront:
      tenants:
        acme: {distributionId: E1}
        globex: {distributionId: E2, functionName: globex, keyValueStoreArn: "arn:aws:cloudfront::123456789012:key-value-store/0a1b2c3d-4e5f-6789-abcd-ef0123456789"}
  workers: {cloudflare: {}}
  nl: {netlify: {}}
`,
		"tools/a.yaml": "tools:\n" + toolDecl(),
	},
		`signpost.yaml:6:10: target pages: tenant globex is gated (gate: token), and GitHub Pages serves every file to anyone: publish the tenant to an S3 target behind CloudFront, or drop the gate`,
		`signpost.yaml:7:11: target bucket: tenant globex is gated (gate: token): the target needs the CloudFront distribution whose viewer-request function checks the tokens: add cloudfront with the tenant's distributionId, functionName and keyValueStoreArn`,
		`signpost.yaml:8:3: target half: tenant globex is gated (gate: token): its distribution needs functionName, so that publish keeps its gate current, and keyValueStoreArn, the store its viewer-request function reads the keys from`,
		`signpost.yaml:17:12: target workers: tenant globex is gated (gate: token), and the Cloudflare Worker signpost writes serves every document to anyone: publish the tenant to an S3 target behind CloudFront, or drop the gate`,
		`signpost.yaml:18:7: target nl: tenant globex is gated (gate: token), and a Netlify site of static files serves every file to anyone: publish the tenant to an S3 target behind CloudFront, or drop the gate`,
	)
}
