package diff

import (
	"fmt"
	"maps"
	"slices"
	"strconv"

	"github.com/signpost-dev/signpost/build"
	"github.com/signpost-dev/signpost/build/target"
	"github.com/signpost-dev/signpost/internal/english"
)

// diffTargets reports, as risks, every change to where the site is
// published: a target added or removed, and each field of one that changed.
// A pull request that points the bucket elsewhere changes nothing agents
// are offered, and is as risky as one that does.
func (c *Change) diffTargets(old, new map[string]target.Target) {
	for _, name := range unionKeys(old, new) {
		o, inOld := old[name]
		n, inNew := new[name]
		switch {
		case !inOld:
			c.risk(Risk{Kind: RiskTargetChanged, Target: name, New: targetPlace(n), Message: "new target: publishes to " + targetPlace(n)})
		case !inNew:
			c.risk(Risk{Kind: RiskTargetChanged, Target: name, Old: targetPlace(o), Message: "target removed: published to " + targetPlace(o)})
		default:
			of, nf := targetFields(o), targetFields(n)
			for _, f := range unionKeys(of, nf) {
				if of[f] != nf[f] {
					c.risk(Risk{Kind: RiskTargetChanged, Target: name, Old: of[f], New: nf[f],
						Message: fmt.Sprintf("%s %s -> %s", f, orNone(of[f]), orNone(nf[f]))})
				}
			}
		}
	}
}

// diffLimits reports, as risks, every limit the new side raises.
func (c *Change) diffLimits(old, new build.Limits) {
	bytes := english.Bytes
	count := func(n int64) string { return strconv.FormatInt(n, 10) }
	for _, l := range []struct {
		name     string
		old, new int64
		show     func(int64) string
	}{
		{"value", old.ValueLimit(), new.ValueLimit(), bytes},
		{"document", old.DocumentLimit(), new.DocumentLimit(), bytes},
		{"build", old.BuildLimit(), new.BuildLimit(), bytes},
		{"files", old.FileLimit(), new.FileLimit(), count},
	} {
		if l.new > l.old {
			o, n := l.show(l.old), l.show(l.new)
			c.risk(Risk{Kind: RiskLimitsRaised, Old: o, New: n, Message: fmt.Sprintf("limits.%s %s -> %s", l.name, o, n)})
		}
	}
}

// targetPlace names where a target publishes, for a message.
func targetPlace(t target.Target) string {
	switch {
	case t.S3 != nil:
		return "s3://" + t.S3.Bucket + "/" + t.S3.Prefix
	case t.GitHubPages:
		return "GitHub Pages"
	case t.Cloudflare != nil:
		return "Cloudflare"
	}
	return "nowhere"
}

// targetFields lists the fields of t by their name in signpost.yaml.
func targetFields(t target.Target) map[string]string {
	f := map[string]string{}
	if t.GitHubPages {
		f["githubPages"] = "on"
	}
	if t.Cloudflare != nil {
		f["cloudflare"], f["cloudflare.name"] = "on", t.Cloudflare.Name
	}
	if t.S3 != nil {
		f["s3.bucket"], f["s3.prefix"], f["s3.region"], f["s3.endpoint"] = t.S3.Bucket, t.S3.Prefix, t.S3.Region, t.S3.Endpoint
	}
	if t.CloudFront != nil {
		for tenant, d := range t.CloudFront.Distributions {
			at := "cloudfront"
			if tenant != "" {
				at += ".tenants." + tenant
			}
			f[at+".distributionId"], f[at+".functionName"], f[at+".keyValueStoreArn"] = d.ID, d.FunctionName, d.KeyValueStoreARN
		}
	}
	return f
}

// orNone is v, or (none) when it is empty.
func orNone(v string) string {
	if v == "" {
		return "(none)"
	}
	return v
}

// unionKeys returns the keys of a and b, sorted, each once.
func unionKeys[V any](a, b map[string]V) []string {
	keys := slices.Collect(maps.Keys(a))
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}
