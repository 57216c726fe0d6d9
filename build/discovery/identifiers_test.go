package discovery

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestAISegment(t *testing.T) {
	for in, want := range map[string]string{
		"weather":        "weather",
		"Weather_v2.1-x": "Weather_v2.1-x",
		"a/b c:d~é":      "a-b-c-d--",
	} {
		if got := AISegment(in); got != want {
			t.Errorf("AISegment(%q) = %q, want %q", in, got, want)
		}
	}
	if got := OwnNamespace("api.example.com"); got != "com.example.api" {
		t.Errorf("OwnNamespace = %q", got)
	}
	for tenant, want := range map[string]string{"": "urn:air:example.com:tool-catalog:tools", "acme": "urn:air:example.com:tool-catalog:acme"} {
		if got := ToolCatalogIdentifier("example.com", tenant); got != want {
			t.Errorf("ToolCatalogIdentifier(%q) = %q, want %q", tenant, got, want)
		}
	}
}

func srvTServer(name, id string) *Server {
	return &Server{Name: name, AICatalogIdentifier: id}
}

func TestAIIdentifiers(t *testing.T) {
	type server struct{ name, id string }
	tests := []struct {
		name     string
		servers  []server
		want     []string
		problems map[int][]Problem
	}{
		{
			name:    "bare names",
			servers: []server{{"com.example/weather", ""}, {"net.partner/search", ""}, {"org.acme/Support_Desk", ""}},
			want:    []string{"urn:air:example.com:mcp:weather", "urn:air:example.com:mcp:search", "urn:air:example.com:mcp:Support_Desk"},
		},
		{
			name:    "a generic name outside the publisher's namespace is qualified, alone or not",
			servers: []server{{"com.gitlab/mcp", ""}, {"io.cycloid.mcp/server", ""}, {"com.example/mcp", ""}, {"org.acme/MCP-Server", ""}, {"net.partner/mcp-tools", ""}},
			want:    []string{"urn:air:example.com:mcp:com.gitlab.mcp", "urn:air:example.com:mcp:io.cycloid.mcp.server", "urn:air:example.com:mcp:mcp", "urn:air:example.com:mcp:org.acme.MCP-Server", "urn:air:example.com:mcp:mcp-tools"},
		},
		{
			name:    "a second generic name renames nobody",
			servers: []server{{"com.gitlab/mcp", ""}, {"com.webflow/mcp", ""}},
			want:    []string{"urn:air:example.com:mcp:com.gitlab.mcp", "urn:air:example.com:mcp:com.webflow.mcp"},
		},
		{
			name:    "the publisher's own server keeps the bare name, ignoring case; the others declare theirs",
			servers: []server{{"net.partner/weather", ""}, {"COM.Example/Weather", ""}, {"org.acme/weather", ""}},
			want:    []string{"urn:air:example.com:mcp:weather", "urn:air:example.com:mcp:Weather", "urn:air:example.com:mcp:weather"},
			problems: map[int][]Problem{
				0: {{Pointer: "/name", Message: `server "net.partner/weather" would have the AI catalog identifier "urn:air:example.com:mcp:weather", which server "COM.Example/Weather" has too: set aiCatalogIdentifier here, such as urn:air:example.com:mcp:net.partner.weather (an identifier is derived from the server's name alone; no collision renames a server)`}},
				2: {{Pointer: "/name", Message: `server "org.acme/weather" would have the AI catalog identifier "urn:air:example.com:mcp:weather", which server "COM.Example/Weather" has too: set aiCatalogIdentifier here, such as urn:air:example.com:mcp:org.acme.weather (an identifier is derived from the server's name alone; no collision renames a server)`}},
			},
		},
		{
			name:    "no server of the publisher's own: every one declares its own",
			servers: []server{{"net.partner/weather", ""}, {"org.acme/weather", ""}},
			want:    []string{"urn:air:example.com:mcp:weather", "urn:air:example.com:mcp:weather"},
			problems: map[int][]Problem{
				0: {{Pointer: "/name", Message: `server "net.partner/weather" would have the AI catalog identifier "urn:air:example.com:mcp:weather", which server "org.acme/weather" has too: set aiCatalogIdentifier here, such as urn:air:example.com:mcp:net.partner.weather (an identifier is derived from the server's name alone; no collision renames a server)`}},
				1: {{Pointer: "/name", Message: `server "org.acme/weather" would have the AI catalog identifier "urn:air:example.com:mcp:weather", which server "net.partner/weather" has too: set aiCatalogIdentifier here, such as urn:air:example.com:mcp:org.acme.weather (an identifier is derived from the server's name alone; no collision renames a server)`}},
			},
		},
		{
			name:    "a declared identifier keeps its own, a derived one is told to declare",
			servers: []server{{"net.partner/weather", ""}, {"org.acme/x", "urn:air:example.com:mcp:weather"}, {"net.partner/other", "urn:air:example.com:mcp:net.partner.other"}},
			want:    []string{"urn:air:example.com:mcp:weather", "urn:air:example.com:mcp:weather", "urn:air:example.com:mcp:net.partner.other"},
			problems: map[int][]Problem{
				0: {{Pointer: "/name", Message: `server "net.partner/weather" would have the AI catalog identifier "urn:air:example.com:mcp:weather", which server "org.acme/x" has too: set aiCatalogIdentifier here, such as urn:air:example.com:mcp:net.partner.weather (an identifier is derived from the server's name alone; no collision renames a server)`}},
			},
		},
		{
			name:     "a declared identifier that is the publisher's own server's",
			servers:  []server{{"org.acme/x", "urn:air:example.com:mcp:Weather"}, {"com.example/weather", ""}},
			want:     []string{"urn:air:example.com:mcp:Weather", "urn:air:example.com:mcp:weather"},
			problems: map[int][]Problem{0: {{Pointer: "/aiCatalogIdentifier", Message: `aiCatalogIdentifier "urn:air:example.com:mcp:Weather" is already the AI catalog identifier of server "com.example/weather": identifiers must be unique, ignoring case`}}},
		},
		{
			name:     "two declared identifiers",
			servers:  []server{{"org.acme/a", "urn:air:example.com:mcp:same"}, {"org.acme/b", "urn:air:example.com:mcp:same"}},
			want:     []string{"urn:air:example.com:mcp:same", "urn:air:example.com:mcp:same"},
			problems: map[int][]Problem{1: {{Pointer: "/aiCatalogIdentifier", Message: `aiCatalogIdentifier "urn:air:example.com:mcp:same" is already the AI catalog identifier of server "org.acme/a": identifiers must be unique, ignoring case`}}},
		},
		{
			name:    "a generic name qualified is the identifier of another",
			servers: []server{{"com.gitlab/mcp", ""}, {"org.x/com.gitlab.mcp", ""}},
			want:    []string{"urn:air:example.com:mcp:com.gitlab.mcp", "urn:air:example.com:mcp:com.gitlab.mcp"},
			problems: map[int][]Problem{
				0: {{Pointer: "/name", Message: `server "com.gitlab/mcp" would have the AI catalog identifier "urn:air:example.com:mcp:com.gitlab.mcp", which server "org.x/com.gitlab.mcp" has too: set aiCatalogIdentifier here, such as urn:air:example.com:mcp:com.gitlab-mcp (an identifier is derived from the server's name alone; no collision renames a server)`}},
				1: {{Pointer: "/name", Message: `server "org.x/com.gitlab.mcp" would have the AI catalog identifier "urn:air:example.com:mcp:com.gitlab.mcp", which server "com.gitlab/mcp" has too: set aiCatalogIdentifier here, such as urn:air:example.com:mcp:org.x.com.gitlab.mcp (an identifier is derived from the server's name alone; no collision renames a server)`}},
			},
		},
		{
			name:     "two of the publisher's own that normalize alike",
			servers:  []server{{"com.example/a b", ""}, {"com.example/a-b", ""}},
			want:     []string{"urn:air:example.com:mcp:a-b", "urn:air:example.com:mcp:a-b"},
			problems: map[int][]Problem{1: {{Pointer: "/name", Message: `server "com.example/a-b" would have the AI catalog identifier "urn:air:example.com:mcp:a-b", which server "com.example/a b" already has: set aiCatalogIdentifier to one of its own, such as urn:air:example.com:mcp:com.example-a-b`}}},
		},
		{
			name:     "a declared identifier of another publisher",
			servers:  []server{{"com.example/a", "urn:air:example.org:mcp:a"}, {"com.example/b", "urn:air:example.com:mcp:x/y"}},
			want:     []string{"urn:air:example.org:mcp:a", "urn:air:example.com:mcp:x/y"},
			problems: map[int][]Problem{0: {{Pointer: "/aiCatalogIdentifier", Message: `aiCatalogIdentifier "urn:air:example.org:mcp:a" must be urn:air:example.com:mcp:NAME: the AI catalog's identifiers are anchored at the publisher's domain (site.publisher)`}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var servers []*Server
			for _, s := range tt.servers {
				servers = append(servers, srvTServer(s.name, s.id))
			}
			ids, problems := AIIdentifiers("example.com", servers)
			if diff := cmp.Diff(tt.want, ids); diff != "" {
				t.Errorf("identifiers (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.problems, problems); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
			// The identifiers do not depend on the order of the servers.
			r := rand.New(rand.NewPCG(3, 4))
			for range 10 {
				perm := r.Perm(len(servers))
				shuffled := make([]*Server, len(servers))
				for i, p := range perm {
					shuffled[i] = servers[p]
				}
				got, _ := AIIdentifiers("example.com", shuffled)
				for i, p := range perm {
					if got[i] != ids[p] {
						t.Fatalf("order %v: %s gets %s, want %s", perm, shuffled[i].Name, got[i], ids[p])
					}
				}
			}
		})
	}
	if ids, ps := AIIdentifiers("example.com", []*Server{nil}); !slices.Equal(ids, []string{""}) || ps != nil {
		t.Errorf("nil server: %q, %v", ids, ps)
	}
}

func TestDerivedAIIdentifier(t *testing.T) {
	for name, want := range map[string]string{
		"com.gitlab/mcp":             "urn:air:example.com:mcp:com.gitlab.mcp",
		"io.cycloid.mcp/server":      "urn:air:example.com:mcp:io.cycloid.mcp.server",
		"app.thoughtspot/mcp-server": "urn:air:example.com:mcp:app.thoughtspot.mcp-server",
		"com.example/mcp":            "urn:air:example.com:mcp:mcp",
		"COM.EXAMPLE/Server":         "urn:air:example.com:mcp:Server",
		"com.example/weather":        "urn:air:example.com:mcp:weather",
		"net.partner/weather":        "urn:air:example.com:mcp:weather",
		"net.partner/mcp server":     "urn:air:example.com:mcp:mcp-server",
		"mcp":                        "urn:air:example.com:mcp:mcp",
	} {
		got := DerivedAIIdentifier("example.com", name)
		if got != want {
			t.Errorf("DerivedAIIdentifier(%q) = %q, want %q", name, got, want)
		}
		if !AIIdentifierRe.MatchString(got) {
			t.Errorf("DerivedAIIdentifier(%q) = %q does not match %s", name, got, AIIdentifierRe)
		}
	}
}

func TestDecodeAICatalogIdentifier(t *testing.T) {
	s, ps := srvTDeclare(srvTJSON(t, `{"name": "com.example/a", "version": "1.0.0", "description": "d", "aiCatalogIdentifier": "urn:air:example.com:mcp:alpha"}`))
	if ps != nil || s.AICatalogIdentifier != "urn:air:example.com:mcp:alpha" {
		t.Errorf("Decode = %q, %v", s.AICatalogIdentifier, ps)
	}
	_, ps = srvTDeclare(srvTJSON(t, `{"name": "com.example/a", "cardUrl": "https://h.example.net/a.json", "aiCatalogIdentifier": "urn:air:example.com:mcp:com.example/a"}`))
	want := []Problem{{Pointer: "/aiCatalogIdentifier", Message: `aiCatalogIdentifier "urn:air:example.com:mcp:com.example/a" must be urn:air:PUBLISHER:mcp:NAME, NAME being letters, digits, '.', '_' and '-', such as urn:air:example.com:mcp:weather`}}
	if diff := cmp.Diff(want, ps); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
	// Check reports a duplicate name once, not again as a duplicate identifier.
	got := Check("example.com", []*Server{srvTServer("com.example/a", ""), srvTServer("com.example/A", "")})
	wantCheck := map[int][]Problem{1: {{Pointer: "/name", Message: `server "com.example/A" is already declared as "com.example/a": names must be unique, ignoring case`}}}
	if diff := cmp.Diff(wantCheck, got); diff != "" {
		t.Errorf("Check (-want +got):\n%s", diff)
	}
}
