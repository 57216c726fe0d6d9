package scaffold

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInstallRef: the workflow installs the release that wrote it from
// its archive; any other build writes FallbackVersion, a release that is
// sure to exist, never a local commit; a chosen version wins; never latest.
func TestInstallRef(t *testing.T) {
	const commit = "0123456789abcdef0123456789abcdef01234567"
	for _, tt := range []struct{ version, chosen, release, ref string }{
		{"v1.2.3", "", "v1.2.3", "v1.2.3"},
		{"v0.4.0-rc.1", "", "v0.4.0-rc.1", "v0.4.0-rc.1"},
		{"v0.0.0-20260101120000-0123456789ab", "", "", FallbackVersion},
		{"v1.2.4-0.20260101120000-0123456789ab", "", "", FallbackVersion},
		{"v1.3.0-rc.1.0.20260101120000-0123456789ab", "", "", FallbackVersion},
		{"dev", "", "", FallbackVersion},
		{"(devel)", "", "", FallbackVersion},
		{"", "", "", FallbackVersion},
		{"v1.2.3+dirty", "", "", FallbackVersion},
		{"v0.0.0-snapshot+0123456", "", "", FallbackVersion},
		{"1.2.3", "", "", FallbackVersion},
		{"v1.2.3; rm -rf /", "", "", FallbackVersion},
		// A chosen release: the running release's action installs it.
		{"v1.2.3", "v1.3.0", "v1.2.3", "v1.3.0"},
		{"dev", "v1.3.0", "", "v1.3.0"},
		// go install alone fetches what is not a release.
		{"v1.2.3", commit, "", commit},
		{"v1.2.3", "v1.2.4-0.20260101120000-0123456789ab", "", "v1.2.4-0.20260101120000-0123456789ab"},
		{"dev", commit, "", commit},
	} {
		release, ref := installRef(tt.version, tt.chosen)
		if release != tt.release || ref != tt.ref {
			t.Errorf("installRef(%q, %q) = %q, %q, want %q, %q", tt.version, tt.chosen, release, ref, tt.release, tt.ref)
		}
	}
	for _, v := range []string{"latest", "main", "v1.2.3+dirty", "1.2.3", "0123456", "v1.2.3; rm -rf /", "$(id)"} {
		if fetchable(v) {
			t.Errorf("fetchable(%q) = true", v)
		}
	}
	base := templateData{Origin: DefaultOrigin, Publisher: defaultPublisher, DisplayName: "X", Publish: PublishS3,
		Target: targetS3, Bucket: PlaceholderBucket, Region: DefaultRegion, RoleARN: placeholderRoleARN,
		Branch: "main", ServerName: "com.example/notes", ServerURL: "https://mcp.example.com/notes",
		Catalog: ".", Site: "site"}
	release := base
	release.Release, release.Ref = "v1.2.3", "v1.2.3"
	dev := base
	dev.Ref = commit
	for _, c := range []struct {
		name       string
		d          templateData
		want, not  []string
		wantReadme string
	}{
		{"release", release,
			[]string{"        uses: signpost-dev/signpost@v1.2.3\n        with:\n          version: ${{ env.SIGNPOST_VERSION }}\n",
				"\nenv:\n  SIGNPOST_VERSION: v1.2.3\n",
				"# The signpost action of v1.2.3, the release that wrote this file,"},
			[]string{"go install", "setup-go", "@latest"},
			"go install github.com/signpost-dev/signpost/cmd/signpost@v1.2.3\n"},
		{"dev", dev,
			[]string{"          go install \"github.com/signpost-dev/signpost/cmd/signpost@${SIGNPOST_VERSION}\"\n",
				"\nenv:\n  SIGNPOST_VERSION: " + commit + "\n",
				"# go install builds it,",
				"cache-dependency-path: .github/workflows/signpost.yml\n"},
			[]string{"signpost-dev/signpost@", "cache: false", "@latest"},
			"go install github.com/signpost-dev/signpost/cmd/signpost@" + commit + "\n"},
	} {
		files, err := render(c.d)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			switch f.Path {
			case workflowPath:
				for _, w := range c.want {
					if !strings.Contains(string(f.Data), w) {
						t.Errorf("%s: the workflow lacks %q:\n%s", c.name, w, f.Data)
					}
				}
				for _, n := range c.not {
					if strings.Contains(string(f.Data), n) {
						t.Errorf("%s: the workflow has %q", c.name, n)
					}
				}
				// The check job installs it, and the drift job, which
				// runs alone on a schedule; the publish job takes the check
				// job's binary.
				if n := strings.Count(string(f.Data), "- name: Install signpost\n"); n != 2 {
					t.Errorf("%s: %d install steps, want 2 (check and drift)", c.name, n)
				}
				if n := strings.Count(string(f.Data), "- name: Put signpost on PATH\n"); n != 1 {
					t.Errorf("%s: the binary is put on PATH %d times, want once", c.name, n)
				}
			case "README.md":
				if !bytes.Contains(f.Data, []byte(c.wantReadme)) {
					t.Errorf("%s: README.md lacks %q", c.name, c.wantReadme)
				}
			}
		}
	}
}

// TestOptionErrors: every value of Options that init cannot use is an
// *OptionError about its field, worded with the names of Options' fields,
// and Prepare stops at it before it looks at the folder.
func TestOptionErrors(t *testing.T) {
	s := func(v string) *string { return &v }
	tests := []struct {
		name  string
		opts  Options
		field Field
		want  string
	}{
		{"control characters", Options{DisplayName: "a\nb"}, FieldDisplayName,
			"DisplayName must not contain control characters such as newlines"},
		{"control characters without s3", Options{Bucket: s("a\tb")}, FieldBucket,
			"Bucket must not contain control characters such as newlines"},
		{"unknown publish", Options{Publish: "ftp"}, FieldPublish,
			`Publish "ftp" must be s3, pages, cloudflare, netlify or none`},
		{"origin", Options{Origin: "http://example.com"}, FieldOrigin,
			`Origin: origin "http://example.com" must use https: plain http is only for loopback hosts`},
		{"host of the origin", Options{Origin: "https://a_b.example.com"}, FieldPublisher,
			`the host of Origin, "a_b.example.com", is not a domain name to publish as: give Publisher, like example.com`},
		{"publisher", Options{Publisher: "Example.COM"}, FieldPublisher,
			`Publisher "Example.COM" must be a domain name in lower case, like example.com`},
		{"branch", Options{Branch: "a..b"}, FieldBranch,
			`Branch "a..b" must be a branch name such as main, of letters, digits, '.', '_', '-' and '/'`},
		{"region without s3", Options{Publish: PublishPages, Region: s("")}, FieldRegion,
			"Region is only for Publish s3"},
		{"bucket", Options{Publish: PublishS3, Bucket: s("My_Bucket")}, FieldBucket,
			`Bucket "My_Bucket" is not an S3 bucket name: 3 to 63 lower-case letters, digits, '.' and '-'`},
		{"region", Options{Publish: PublishS3, Region: s("")}, FieldRegion,
			`Region "" is not an AWS region like us-east-1`},
		{"role", Options{Publish: PublishS3, RoleARN: s("signpost-publish")}, FieldRoleARN,
			`RoleARN "signpost-publish" is not an IAM role ARN like arn:aws:iam::111122223333:role/signpost-publish`},
		{"signpost version", Options{SignpostVersion: "latest"}, FieldSignpostVersion,
			`SignpostVersion "latest" is not a signpost version that go install can fetch: give a release such as v0.1.0, a pseudo-version or a full commit hash (never latest)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := tt.opts
			if opts.Branch == "" {
				opts.Branch = DefaultBranch
			}
			// A file: Prepare would refuse it, were it to get that far.
			opts.Dir = filepath.Join(t.TempDir(), "file")
			if err := os.WriteFile(opts.Dir, nil, 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := Prepare(context.Background(), opts)
			var oe *OptionError
			if !errors.As(err, &oe) {
				t.Fatalf("error %v, want an *OptionError", err)
			}
			if oe.Field != tt.field || err.Error() != tt.want {
				t.Errorf("error about %s: %q, want about %s: %q", oe.Field, err, tt.field, tt.want)
			}
			named := oe.Message(func(f Field) string { return "<" + string(f) + ">" })
			if !strings.Contains(named, "<"+string(tt.field)+">") {
				t.Errorf("Message names the field otherwise: %q", named)
			}
		})
	}
}
