package main

import (
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/signpost-dev/signpost/build"
	"github.com/signpost-dev/signpost/check"
	"github.com/signpost-dev/signpost/cmd/signpost/internal/cmdtest"
	"github.com/signpost-dev/signpost/diff"
	"github.com/signpost-dev/signpost/internal/scaffold"
	"github.com/signpost-dev/signpost/publish"
	"github.com/signpost-dev/signpost/serve"
)

func TestValidateFlags(t *testing.T) {
	o := cmdtest.Parsed(t, newValidateCmd)
	if o.dir != "." || o.format != build.FormatText || !cmdtest.HasIO(o.io) {
		t.Errorf("defaults: %+v", o)
	}
	o = cmdtest.Parsed(t, newValidateCmd, "cat", "--format", "github")
	if o.dir != "cat" || o.format != build.FormatGitHub {
		t.Errorf("flags: %+v", o)
	}
	if err := cmdtest.Refused(t, newValidateCmd, "--format", "xml"); err == nil {
		t.Error("--format xml was accepted")
	}
}

func TestBuildFlags(t *testing.T) {
	o := cmdtest.Parsed(t, newBuildCmd)
	if o.Dir != "." || o.Out != "site" || o.Target != "" || o.Format != build.FormatText || o.Verify || o.Origin != "" || !cmdtest.HasIO(o.io) {
		t.Errorf("defaults: %+v", o)
	}
	o = cmdtest.Parsed(t, newBuildCmd, "cat", "-o", "out", "--target", "pages", "--format", "json", "--verify", "--origin", "http://127.0.0.1:8888")
	if o.Dir != "cat" || o.Out != "out" || o.Target != "pages" || o.Format != build.FormatJSON || !o.Verify || o.Origin != "http://127.0.0.1:8888" {
		t.Errorf("flags: %+v", o)
	}
}

func TestCheckLiveFlags(t *testing.T) {
	o := cmdtest.Parsed(t, newCheckCmd, "--live")
	d := o.drift
	if !o.live || d.dir != "." || d.format != build.FormatText || len(d.opts.Servers) != 0 || d.opts.Header != nil || d.opts.Live.AllowPrivate || !cmdtest.HasIO(d.io) {
		t.Errorf("defaults: %+v", d)
	}
	o = cmdtest.Parsed(t, newCheckCmd, "--live", "cat", "--server", "com.example/weather", "--format", "github", "--allow-private", "--deadline", "1m", "--max-pages", "5")
	d = o.drift
	if d.dir != "cat" || d.format != build.FormatGitHub || !slices.Equal(d.opts.Servers, []string{"com.example/weather"}) ||
		!d.opts.Live.AllowPrivate || d.opts.Live.Deadline != time.Minute || d.opts.Live.MaxPages != 5 {
		t.Errorf("flags: %+v", d)
	}
	t.Setenv("DRIFT_TEST_TOKEN", "Bearer x-y-z")
	if err := cmdtest.Refused(t, newCheckCmd, "--live", "--header-env", "Authorization=DRIFT_TEST_TOKEN"); err == nil || !strings.Contains(err.Error(), "name it with --server") {
		t.Errorf("a header for every server: %v", err)
	}
	o = cmdtest.Parsed(t, newCheckCmd, "--live", "--server", "com.example/weather", "--header-env", "Authorization=DRIFT_TEST_TOKEN")
	if o.drift.opts.Header.Get("Authorization") != "Bearer x-y-z" {
		t.Errorf("header: %+v", o.drift.opts.Header)
	}
	for _, args := range [][]string{
		{"--live", "--tenant", "acme"},
		{"--live", "--token", "x"},
		{"--live", "--same-origin"},
		{"--live", "a", "b"},
		{"https://example.com", "--server", "com.example/weather"},
		{"https://example.com", "--format", "github"},
		{},
	} {
		if err := cmdtest.Refused(t, newCheckCmd, args...); err == nil {
			t.Errorf("%q was accepted", args)
		}
	}
}

func TestServeFlags(t *testing.T) {
	o := cmdtest.Parsed(t, newServeCmd)
	if want := (serve.Options{Dir: ".", Addr: "127.0.0.1:8080"}); o.serve.Dir != want.Dir || o.serve.Addr != want.Addr ||
		o.serve.Tenant != "" || o.serve.Watch || o.serve.Origin != "" || o.keysFile != "" || !cmdtest.HasIO(o.io) {
		t.Errorf("defaults: %+v", o)
	}
	o = cmdtest.Parsed(t, newServeCmd, "site", "--addr", "127.0.0.1:9000", "--tenant", "acme", "--watch", "--origin", "https://example.com", "--token-keys", "keys.json")
	if o.serve.Dir != "site" || o.serve.Addr != "127.0.0.1:9000" || o.serve.Tenant != "acme" || !o.serve.Watch ||
		o.serve.Origin != "https://example.com" || o.keysFile != "keys.json" {
		t.Errorf("flags: %+v", o)
	}
}

func TestCheckFlags(t *testing.T) {
	o := cmdtest.Parsed(t, newCheckCmd, "https://example.com")
	if o.url != "https://example.com" || o.format != build.FormatText || o.verbose || o.tenants != nil || o.keysFile != "" ||
		!reflect.DeepEqual(o.crawl, check.Options{}) || o.resolve != nil || !cmdtest.HasIO(o.io) {
		t.Errorf("defaults: %+v", o)
	}
	o = cmdtest.Parsed(t, newCheckCmd, "https://{tenant}.example.com", "--format", "json", "-v", "--tenant", "acme", "--tenant", "globex",
		"--timeout", "30s", "--same-origin", "--allow-private", "--deadline", "1m", "--concurrency", "8",
		"--max-documents", "10", "--max-body-bytes", "1024", "--token", "T", "--token-keys", "keys.json",
		"--resolve", "example.com:443:127.0.0.1", "--resolve", "acme.example.com:443:127.0.0.1")
	want := check.Options{Timeout: 30 * time.Second, SameOrigin: true, AllowPrivate: true, Deadline: time.Minute, Concurrency: 8,
		MaxDocuments: 10, MaxBodyBytes: 1024, Token: "T"}
	if o.format != build.FormatJSON || !o.verbose || !slices.Equal(o.tenants, []string{"acme", "globex"}) || o.keysFile != "keys.json" || !reflect.DeepEqual(o.crawl, want) ||
		!slices.Equal(o.resolve, []string{"example.com:443:127.0.0.1", "acme.example.com:443:127.0.0.1"}) {
		t.Errorf("flags: %+v", o)
	}
	if err := cmdtest.Refused(t, newCheckCmd); err == nil {
		t.Error("no URL was accepted")
	}
}

func TestPublishFlags(t *testing.T) {
	o := cmdtest.Parsed(t, newPublishCmd)
	if o.dir != "." || o.target != "" || o.format != build.FormatText || o.dryRun || o.verbose || o.quiet ||
		o.maxDeletes != publish.DefaultMaxDeletes || o.maxPaths != publish.DefaultMaxInvalidationPaths ||
		o.invalidationTimeout != publish.DefaultInvalidationTimeout || o.concurrency != publish.DefaultConcurrency ||
		o.override != (publish.S3Override{}) || !cmdtest.HasIO(o.io) {
		t.Errorf("defaults: %+v", o)
	}
	o = cmdtest.Parsed(t, newPublishCmd, "cat", "--target", "production", "--bucket", "b", "--prefix", "", "--region", "eu-west-1",
		"--dry-run", "-v", "--max-deletes", "-1", "--max-invalidation-paths", "7", "--invalidation-timeout", "1m", "--format", "json",
		"--concurrency", "64")
	if o.dir != "cat" || o.target != "production" || !o.dryRun || !o.verbose || o.maxDeletes != -1 || o.maxPaths != 7 ||
		o.invalidationTimeout != time.Minute || o.format != build.FormatJSON || o.concurrency != 64 {
		t.Errorf("flags: %+v", o)
	}
	// A flag given replaces the target's field, even with an empty value;
	// one not given keeps it.
	if v := o.override; v.Bucket == nil || *v.Bucket != "b" || v.Prefix == nil || *v.Prefix != "" || v.Region == nil || *v.Region != "eu-west-1" || v.Endpoint != nil {
		t.Errorf("overrides: %+v", v)
	}
}

func TestDiffFlags(t *testing.T) {
	o := cmdtest.Parsed(t, newDiffCmd, "main", ".")
	if o.sides.Old != "main" || o.sides.New != "." || o.sides.Repo != "." || o.sides.Catalog != "" || o.format != build.FormatText ||
		o.kinds != nil || !cmdtest.HasIO(o.io) {
		t.Errorf("defaults: %+v", o)
	}
	o = cmdtest.Parsed(t, newDiffCmd, "a", "b", "--format", "markdown", "--fail-on", "tier-raised,egress-widened", "--repo", "r", "--catalog", "")
	if o.format != diff.FormatMarkdown || !slices.Equal(o.kinds, []string{"tier-raised", "egress-widened"}) || o.sides.Repo != "r" ||
		o.sides.Catalog != "." {
		t.Errorf("flags: %+v", o)
	}
	if err := cmdtest.Refused(t, newDiffCmd, "a", "b", "--fail-on", "nothing-like-it"); err == nil || !strings.Contains(err.Error(), "--fail-on") {
		t.Errorf("an unknown --fail-on risk: %v", err)
	}
}

func TestConformanceFlags(t *testing.T) {
	o := cmdtest.Parsed(t, newConformanceCmd, "site-a", "site-b")
	if o.first != "site-a" || o.second != "site-b" || o.format != "text" || !cmdtest.HasIO(o.io) {
		t.Errorf("defaults: %+v", o)
	}
	if o = cmdtest.Parsed(t, newConformanceCmd, "a", "b", "--format", "json"); o.format != "json" {
		t.Errorf("flags: %+v", o)
	}
}

func TestExportFlags(t *testing.T) {
	for _, c := range []struct {
		kind   string
		newCmd func(func(*exportOptions) error) *cobra.Command
	}{
		{exportManagedSettings, newExportManagedSettingsCmd},
		{exportCline, newExportClineCmd},
	} {
		o := cmdtest.Parsed(t, c.newCmd)
		if o.kind != c.kind || o.dir != "." || o.tenant != "" || o.out != "" || !cmdtest.HasIO(o.io) {
			t.Errorf("%s defaults: %+v", c.kind, o)
		}
		o = cmdtest.Parsed(t, c.newCmd, "cat", "--tenant", "acme", "-o", "policy.json")
		if o.kind != c.kind || o.dir != "cat" || o.tenant != "acme" || o.out != "policy.json" {
			t.Errorf("%s flags: %+v", c.kind, o)
		}
		if o = cmdtest.Parsed(t, c.newCmd, "--out", "-"); o.out != "-" {
			t.Errorf("%s --out -: %+v", c.kind, o)
		}
		if err := cmdtest.Refused(t, c.newCmd, "a", "b"); err == nil {
			t.Errorf("%s took two folders", c.kind)
		}
	}
}

func TestSchemaFlags(t *testing.T) {
	if o := cmdtest.Parsed(t, newSchemaCmd); o.name != "" || !cmdtest.HasIO(o.io) {
		t.Errorf("defaults: %+v", o)
	}
	if o := cmdtest.Parsed(t, newSchemaCmd, "tool-descriptor"); o.name != "tool-descriptor" {
		t.Errorf("argument: %+v", o)
	}
}

func TestVersionFlags(t *testing.T) {
	o := cmdtest.Parsed(t, newVersionCmd)
	if o.format != build.FormatText || o.info == nil || !cmdtest.HasIO(o.io) {
		t.Errorf("defaults: %+v", o)
	}
	if o = cmdtest.Parsed(t, newVersionCmd, "--format", "json"); o.format != build.FormatJSON {
		t.Errorf("flags: %+v", o)
	}
}

func TestTokenKeyFlags(t *testing.T) {
	o := cmdtest.Parsed(t, newTokenKeyCmd, "--tenant", "acme", "--keys", "keys.json")
	if o.tenant != "acme" || o.file != "keys.json" || o.kid != "" || !cmdtest.HasIO(o.io) {
		t.Errorf("defaults: %+v", o)
	}
	if o = cmdtest.Parsed(t, newTokenKeyCmd, "--tenant", "acme", "--keys", "keys.json", "--kid", "k2"); o.kid != "k2" {
		t.Errorf("flags: %+v", o)
	}
	if err := cmdtest.Refused(t, newTokenKeyCmd, "--tenant", "acme"); err == nil {
		t.Error("no --keys was accepted")
	}
}

func TestTokenMintFlags(t *testing.T) {
	o := cmdtest.Parsed(t, newTokenMintCmd, "--tenant", "acme", "--keys", "keys.json")
	if o.tenant != "acme" || o.file != "keys.json" || o.kid != "" || o.ttl != time.Hour || !cmdtest.HasIO(o.io) {
		t.Errorf("defaults: %+v", o)
	}
	if o = cmdtest.Parsed(t, newTokenMintCmd, "--tenant", "acme", "--keys", "keys.json", "--kid", "k2", "--ttl", "15m"); o.kid != "k2" || o.ttl != 15*time.Minute {
		t.Errorf("flags: %+v", o)
	}
	if err := cmdtest.Refused(t, newTokenMintCmd, "--keys", "keys.json"); err == nil {
		t.Error("no --tenant was accepted")
	}
}

func TestInitFlags(t *testing.T) {
	o := cmdtest.Parsed(t, newInitCmd)
	if o.dir != "." || o.publish != publishNone || o.region != scaffold.DefaultRegion || o.force || len(o.set) != 0 || !cmdtest.HasIO(o.io) {
		t.Errorf("defaults: %+v", o)
	}
	if s := o.scaffold(); s.Bucket != nil || s.Region != nil || s.RoleARN != nil {
		t.Errorf("S3 settings not given are not passed on: %+v", s)
	}
	o = cmdtest.Parsed(t, newInitCmd, "cat", "--origin", "https://tools.example.org", "--publisher", "example.org", "--display-name", "Example",
		"--publish", "s3", "--bucket", "b-ucket", "--region", "eu-west-1", "--role-arn", "arn:aws:iam::111122223333:role/r",
		"--branch", "trunk", "--signpost-version", "v0.2.0", "--force")
	s := o.scaffold()
	if o.dir != "cat" || s.Dir != "cat" || s.Origin != "https://tools.example.org" || s.Publisher != "example.org" || s.DisplayName != "Example" ||
		s.Publish != publishS3 || s.Bucket == nil || *s.Bucket != "b-ucket" || s.Region == nil || *s.Region != "eu-west-1" ||
		s.RoleARN == nil || *s.RoleARN != "arn:aws:iam::111122223333:role/r" || s.Branch != "trunk" || s.SignpostVersion != "v0.2.0" || !o.force {
		t.Errorf("flags: %+v, scaffold options %+v", o, s)
	}
	if err := cmdtest.Refused(t, newInitCmd, "--publish", "ftp"); err == nil {
		t.Error("--publish ftp was accepted")
	}
	if err := cmdtest.Refused(t, newInitCmd, "a", "b"); err == nil {
		t.Error("two folders were accepted")
	}
}

func TestKeygenFlags(t *testing.T) {
	if o := cmdtest.Parsed(t, newKeygenCmd); o.out != "" || o.random == nil || !cmdtest.HasIO(o.io) {
		t.Errorf("defaults: %+v", o)
	}
	if o := cmdtest.Parsed(t, newKeygenCmd, "--out", "k.jwk"); o.out != "k.jwk" {
		t.Errorf("flags: %+v", o)
	}
}
