package importcmd

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/cmd/signpost/internal/cmdtest"
)

func TestImportServerFlags(t *testing.T) {
	o := cmdtest.Parsed(t, newImportServerCmd, "a.json", "-")
	if !slices.Equal(o.files, []string{"a.json", "-"}) || o.out != "" || o.strict || o.quiet || !cmdtest.HasIO(o.io) {
		t.Errorf("defaults: %+v", o)
	}
	o = cmdtest.Parsed(t, newImportServerCmd, "a.json", "--out", "servers.yaml", "--strict", "-q")
	if o.out != "servers.yaml" || !o.strict || !o.quiet {
		t.Errorf("flags: %+v", o)
	}
	if err := cmdtest.Refused(t, newImportServerCmd); err == nil || !strings.Contains(err.Error(), "needs at least one FILE") {
		t.Errorf("no FILE: %v", err)
	}
}

func TestImportMCPFlags(t *testing.T) {
	o := cmdtest.Parsed(t, newImportMCPCmd, "tools.json")
	if !slices.Equal(o.files, []string{"tools.json"}) || o.out != "" || o.strict || o.quiet || o.mcp.Server != "" || len(o.mcp.Classify) != 0 || !cmdtest.HasIO(o.io) {
		t.Errorf("defaults: %+v", o)
	}
	o = cmdtest.Parsed(t, newImportMCPCmd, "a.json", "b.json", "-o", "gh.yaml", "--server", "com.example/github", "--tool-id-prefix", "gh",
		"--classify", "read=get_issue,list_issues", "--classify", "pure=get_me", "--replay", "keyed=create_*", "--egress", "internal=*", "--strict", "--quiet")
	if !slices.Equal(o.files, []string{"a.json", "b.json"}) || o.out != "gh.yaml" || !o.strict || !o.quiet ||
		o.mcp.Server != "com.example/github" || o.mcp.ToolIDPrefix != "gh" ||
		o.mcp.Classify["get_issue"] != "read" || o.mcp.Classify["list_issues"] != "read" || o.mcp.Classify["get_me"] != "pure" ||
		o.mcp.Replay["create_*"] != "keyed" || o.mcp.Egress["*"] != "internal" {
		t.Errorf("flags: %+v", o)
	}
	if err := cmdtest.Refused(t, newImportMCPCmd, "a.json", "--classify", "risky=get_me"); err == nil {
		t.Error("a --classify of no tier was accepted")
	}
	if o.endpoint != nil {
		t.Errorf("FILEs read live: %+v", o.endpoint)
	}
	o = cmdtest.Parsed(t, newImportMCPCmd, "--url", "https://mcp.example.com/mcp", "--save", "rec.json", "--allow-private", "--deadline", "5s", "--max-pages", "3")
	if o.endpoint == nil || o.endpoint.URL != "https://mcp.example.com/mcp" || len(o.files) != 0 || o.save != "rec.json" ||
		!o.live.AllowPrivate || o.live.Deadline != 5*time.Second || o.live.MaxPages != 3 {
		t.Errorf("--url: %+v", o)
	}
	o = cmdtest.Parsed(t, newImportMCPCmd, "--command", "--", "npx", "-y", "server")
	if o.endpoint == nil || !slices.Equal(o.endpoint.Command, []string{"npx", "-y", "server"}) || len(o.files) != 0 {
		t.Errorf("--command: %+v", o)
	}
	for _, args := range [][]string{
		{"--url", "https://mcp.example.com/mcp", "a.json"},
		{"--url", "https://mcp.example.com/mcp", "--command"},
		{"--command", "npx"},
		{"a.json", "--save", "rec.json"},
		{"a.json", "--header-env", "Authorization=TOKEN"},
		{"--command", "--header-env", "Authorization=HOME", "--", "server"},
		{"--url", "ftp://mcp.example.com/"},
	} {
		if err := cmdtest.Refused(t, newImportMCPCmd, args...); err == nil {
			t.Errorf("%q was accepted", args)
		}
	}
}

func TestImportOpenAPIFlags(t *testing.T) {
	o := cmdtest.Parsed(t, newImportOpenAPICmd, "api.yaml")
	if o.file != "api.yaml" || o.out != "" || o.openapi.Egress != spec.EgressInternet || o.readGet || o.strict || o.quiet || !cmdtest.HasIO(o.io) {
		t.Errorf("defaults: %+v", o)
	}
	o = cmdtest.Parsed(t, newImportOpenAPICmd, "-", "--read-get", "--tool-id-prefix", "pets", "--classify", "read=searchPets", "--egress", "internal", "--strict", "-o", "pets.yaml", "-q")
	if o.file != "-" || o.out != "pets.yaml" || !o.strict || !o.quiet || !o.readGet || o.openapi.ToolIDPrefix != "pets" ||
		o.openapi.Egress != spec.EgressInternal || o.openapi.Classify["searchPets"] != "read" {
		t.Errorf("flags: %+v", o)
	}
	if err := cmdtest.Refused(t, newImportOpenAPICmd, "a.yaml", "b.yaml"); err == nil {
		t.Error("two FILEs were accepted")
	}
}
