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

func TestWorkflowVersion(t *testing.T) {
	for _, tt := range []struct{ version, want string }{
		{"v1.2.3", "v1.2.3"},
		{"v0.4.0-rc.1", "v0.4.0-rc.1"},
		{"v0.0.0-20260101120000-0123456789ab", "v0.0.0-20260101120000-0123456789ab"},
		{"dev", "latest"},
		{"(devel)", "latest"},
		{"", "latest"},
		{"v1.2.3+dirty", "latest"},
		{"v1.2.3-0.20260101120000-0123456789ab+dirty", "latest"},
		{"1.2.3", "latest"},
		{"v1.2.3; rm -rf /", "latest"},
	} {
		if got := workflowVersion(tt.version); got != tt.want {
			t.Errorf("workflowVersion(%q) = %q, want %q", tt.version, got, tt.want)
		}
	}
	d := templateData{Origin: DefaultOrigin, Publisher: defaultPublisher, DisplayName: "X", Publish: PublishNone,
		Branch: "main", Version: "v1.2.3", ServerName: "com.example/notes", ServerURL: "https://mcp.example.com/notes",
		Catalog: ".", Site: "site"}
	files, err := render(d)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if f.Path == workflowPath || f.Path == "README.md" {
			if !bytes.Contains(f.Data, []byte("go install github.com/signpost-dev/signpost/cmd/signpost@v1.2.3\n")) {
				t.Errorf("%s does not install signpost@v1.2.3", f.Path)
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
			`Publish "ftp" must be s3, pages or none`},
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
