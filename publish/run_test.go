package publish

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/signpost-dev/signpost/build"
	"github.com/signpost-dev/signpost/build/signing"
	"github.com/signpost-dev/signpost/build/target"
	"github.com/signpost-dev/signpost/internal/catalogtest"
)

// TestListEarly checks the listing Run starts from signpost.yaml alone: it
// lists for the target and tenants that Load then reads, and starts none
// when signpost.yaml or the target has a problem, which Load and the
// target's checks report instead.
func TestListEarly(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel() // the listings, of an endpoint that refuses them, end
	config := catalogtest.Config + "tenants: [acme, globex]\ntargets:\n  prod: {s3: {bucket: discovery, region: us-east-1, endpoint: \"http://127.0.0.1:1\"}}\n  pages: {githubPages: {}}\n"
	dir := catalogtest.Write(t, map[string]string{"signpost.yaml": config})
	r := &run{opts: RunOptions{Dir: dir, Target: "prod"}}
	l := r.listEarly(ctx)
	if l == nil {
		t.Fatal("no early listing for a valid signpost.yaml and target")
	}
	cat, diags := build.Load(ctx, dir)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	target, err := r.target(cat.Config.Targets)
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
		r := &run{opts: RunOptions{Dir: dir, Target: c.target}}
		if l := r.listEarly(ctx); l != nil {
			t.Errorf("%s: an early listing started", name)
		}
	}
}

// stages records what Run tells its Progress.
type stages struct {
	mu     sync.Mutex
	stages []Stage
	counts int
}

func (s *stages) Stage(st Stage, _ int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stages = append(s.stages, st)
}

func (s *stages) Count(int, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.counts++
}

func (s *stages) Clear() {}

// TestRun publishes a catalog with Run, through clients it is given: the
// first run goes through every stage and uploads every document, a second
// from the same catalog builds nothing and writes nothing, and a changed
// catalog is built and published again.
func TestRun(t *testing.T) {
	client, bucket := newBucket(t)
	ctx := context.Background()
	tool := func(id string) string {
		return "tools:\n  - toolId: " + id + "\n    description: A tool.\n    source: host-extension\n    safetyTier: read\n    replayPolicy: deterministic\n    egress: none\n"
	}
	files := map[string]string{
		"signpost.yaml": catalogtest.Config + "targets:\n  local: {s3: {bucket: " + bucket + ", prefix: site}}\n",
		"a.yaml":        tool("get_forecast"),
	}
	dir := catalogtest.Write(t, files)
	publishRun := func() (*Plan, *counting, *stages) {
		t.Helper()
		api, prog := &counting{S3API: client}, &stages{}
		planned := 0
		p, err := Run(ctx, RunOptions{Dir: dir, Target: "local", MaxDeletes: -1, Progress: prog,
			Planned: func(*Plan) { planned++ },
			Clients: func(_ context.Context, target *target.Target) (S3API, CloudFrontAPI, error) {
				if target.S3.Bucket != bucket || target.S3.Prefix != "site" {
					t.Errorf("clients asked for %+v", target.S3)
				}
				return api, nil, nil
			}})
		if err != nil {
			t.Fatal(err)
		}
		if planned != 1 {
			t.Errorf("the plan was shown %d times, want once", planned)
		}
		return p, api, prog
	}

	p, api, prog := publishRun()
	if want := []Stage{StageLoad, StageCompile, StagePlan, StageApply}; !slices.Equal(prog.stages, want) || prog.counts == 0 {
		t.Errorf("first run: stages %v with %d counts, want %v and counts", prog.stages, prog.counts, want)
	}
	// Every document, the manifest, and the lock the publish holds while
	// it changes the bucket.
	if p.SameInputs || len(p.Sites) != 1 || p.Sites[0].Applied == nil || p.Sites[0].Applied.Uploaded != len(api.puts)-2 {
		t.Errorf("first run: %+v, %d puts (the manifest and the lock included)", p.Sites[0], len(api.puts))
	}

	p, api, prog = publishRun()
	if !p.SameInputs || api.count("PutObject") != 0 || !slices.Equal(prog.stages, []Stage{StageLoad}) {
		t.Errorf("a republish from the same catalog: same inputs %v, %d puts, stages %v", p.SameInputs, api.count("PutObject"), prog.stages)
	}

	if err := os.WriteFile(filepath.Join(dir, "b.yaml"), []byte(tool("get_alerts")), 0o644); err != nil {
		t.Fatal(err)
	}
	p, _, _ = publishRun()
	if p.SameInputs || p.Sites[0].Applied == nil || p.Sites[0].Applied.Uploaded == 0 {
		t.Errorf("a changed catalog: %+v", p.Sites[0])
	}
}

// TestRunErrors checks the typed errors of Run for a catalog or a target
// it cannot publish: none of them reaches for a client.
func TestRunErrors(t *testing.T) {
	ctx := context.Background()
	config := catalogtest.Config + "targets:\n  prod: {s3: {bucket: discovery, region: us-east-1}}\n  init: {s3: {bucket: replace-me}}\n  pages: {githubPages: {}}\n  workers: {cloudflare: {}}\n"
	dir := catalogtest.Write(t, map[string]string{"signpost.yaml": config})
	prefix, bucket := "../x", "My_Bucket"
	for _, c := range []struct {
		name string
		opts RunOptions
		want func(error) bool
	}{
		{"no target", RunOptions{}, func(err error) bool {
			var e *NoTargetError
			return errors.As(err, &e) && slices.Equal(e.Targets, []string{"init", "pages", "prod", "workers"})
		}},
		{"unknown", RunOptions{Target: "nope"}, func(err error) bool {
			var e *TargetError
			return errors.As(err, &e) && e.Host == "" && e.Declared() == "init, pages, prod, workers"
		}},
		{"pages", RunOptions{Target: "pages"}, func(err error) bool {
			var e *TargetError
			return errors.As(err, &e) && e.Host == HostGitHubPages && e.Name == "pages"
		}},
		{"cloudflare", RunOptions{Target: "workers"}, func(err error) bool {
			var e *TargetError
			return errors.As(err, &e) && e.Host == HostCloudflare
		}},
		{"prefix", RunOptions{Target: "prod", Override: S3Override{Prefix: &prefix}}, func(err error) bool {
			var e *OverrideError
			return errors.As(err, &e) && e.Field == "prefix"
		}},
		{"bucket", RunOptions{Target: "prod", Override: S3Override{Bucket: &bucket}}, func(err error) bool {
			var e *OverrideError
			return errors.As(err, &e) && e.Field == "bucket"
		}},
		{"placeholder", RunOptions{Target: "init", PlaceholderBucket: "replace-me"}, func(err error) bool {
			var e *PlaceholderError
			return errors.As(err, &e) && e.Target == "init" && e.Bucket == "replace-me"
		}},
	} {
		c.opts.Dir = dir
		c.opts.Clients = func(context.Context, *target.Target) (S3API, CloudFrontAPI, error) {
			return nil, nil, errors.New("no client may be made")
		}
		if _, err := Run(ctx, c.opts); !c.want(err) {
			t.Errorf("%s: %v (%T)", c.name, err, err)
		}
	}

	bad := catalogtest.Write(t, map[string]string{"signpost.yaml": config, "a.yaml": "tools: [\n"})
	_, err := Run(ctx, RunOptions{Dir: bad, Target: "prod", Clients: func(context.Context, *target.Target) (S3API, CloudFrontAPI, error) {
		return nil, nil, errors.New("no client")
	}})
	var invalid *InvalidError
	if !errors.As(err, &invalid) || !invalid.Diagnostics.HasErrors() {
		t.Errorf("an invalid catalog: %v", err)
	}
}

// TestRunSigningKeyRotated: a publish signed with one key, then again with
// the same, builds nothing the second time; with a rotated key, kept
// outside the catalog folder as the environment keeps it, it builds and
// publishes the catalog signed anew.
func TestRunSigningKeyRotated(t *testing.T) {
	client, bucket := newBucket(t)
	ctx := context.Background()
	// Signatures are dated by the catalog's newest commit.
	dir, git := catalogtest.GitRepo(t)
	for name, data := range map[string]string{
		"signpost.yaml": catalogtest.Config + "signing: {key: env:SIGNPOST_TEST_SIGNING_KEY}\n" +
			"targets:\n  local: {s3: {bucket: " + bucket + "}}\n",
		"a.yaml": "tools:\n  - toolId: get_forecast\n    description: A tool.\n    source: host-extension\n    safetyTier: read\n    replayPolicy: deterministic\n    egress: none\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git("add", ".")
	git("commit", "-q", "-m", "the catalog")
	key := "current"
	publishRun := func() *Plan {
		t.Helper()
		p, err := Run(ctx, RunOptions{Dir: dir, Target: "local", MaxDeletes: -1,
			Signer: func(context.Context, *build.Config) (signing.Signer, error) {
				return signing.NewKeySigner(catalogtest.SigningKey(t, key))
			},
			Clients: func(context.Context, *target.Target) (S3API, CloudFrontAPI, error) { return client, nil, nil }})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	if p := publishRun(); p.SameInputs {
		t.Fatal("a first publish found the same inputs")
	}
	if p := publishRun(); !p.SameInputs {
		t.Errorf("a republish with the same key built again: %+v", p.Sites[0])
	}
	key = "rotated"
	p := publishRun()
	if p.SameInputs || p.Sites[0].Applied == nil || p.Sites[0].Applied.Uploaded == 0 {
		t.Fatalf("a republish with a rotated key: same inputs %v, %+v", p.SameInputs, p.Sites[0])
	}
	var uploaded []string
	for _, u := range p.Sites[0].Uploads {
		uploaded = append(uploaded, u.Key)
	}
	if !slices.Contains(uploaded, ".well-known/did.json") || !slices.Contains(uploaded, ".well-known/ai-catalog.json") {
		t.Errorf("a rotated key uploaded %q, want the DID document and the AI catalog", uploaded)
	}
}
