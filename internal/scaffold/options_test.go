package scaffold

import (
	"bytes"
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
