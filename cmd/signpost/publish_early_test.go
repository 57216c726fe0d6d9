package main

import (
	"context"
	"testing"

	"github.com/signpost-dev/signpost/build"
	"github.com/signpost-dev/signpost/internal/catalogtest"
)

// TestListEarly checks the listing publish starts from signpost.yaml
// alone: it lists for the target and tenants that Load then reads, and
// starts none when signpost.yaml or the target has a problem, which Load
// and the target's checks report instead.
func TestListEarly(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel() // the listings, of an endpoint that refuses them, end
	config := catalogtest.Config + "tenants: [acme, globex]\ntargets:\n  prod: {s3: {bucket: discovery, region: us-east-1, endpoint: \"http://127.0.0.1:1\"}}\n  pages: {githubPages: {}}\n"
	dir := catalogtest.Write(t, map[string]string{"signpost.yaml": config})
	o := &publishOptions{target: "prod"}
	cmd := newPublishCmd()
	l := o.listEarly(ctx, cmd, dir)
	if l == nil {
		t.Fatal("no early listing for a valid signpost.yaml and target")
	}
	cat, diags := build.Load(ctx, dir)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	target, err := o.publishTarget(cmd, cat.Config.Targets)
	if err != nil {
		t.Fatal(err)
	}
	if !l.same(target, cat.Config.Tenants) {
		t.Errorf("early listing for %+v and %q, Load reads %+v and %q", l.target.S3, l.tenants, target.S3, cat.Config.Tenants)
	}
	if l.same(target, []string{"acme"}) {
		t.Error("early listing counted as the same for other tenants")
	}

	for name, c := range map[string]struct {
		target, config string
	}{
		"no target":        {"", config},
		"unknown target":   {"staging", config},
		"pages target":     {"pages", config},
		"invalid yaml":     {"prod", "site: [\n"},
		"invalid settings": {"prod", config + "limits: {document: lots}\n"},
	} {
		dir := catalogtest.Write(t, map[string]string{"signpost.yaml": c.config})
		o := &publishOptions{target: c.target}
		if l := o.listEarly(ctx, newPublishCmd(), dir); l != nil {
			t.Errorf("%s: an early listing started", name)
		}
	}
}
