package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/signpost-dev/signpost/build/signing"
	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/check"
	"github.com/signpost-dev/signpost/internal/buildtest"
	"github.com/signpost-dev/signpost/internal/catalogtest"
	"github.com/signpost-dev/signpost/serve"
)

// joseCmd is how to run npm's jose: the Node.js installed beside it, and
// the module. make tools installs both in bin/npm-jose; SIGNPOST_NPM_JOSE
// names another folder of node_modules.
type joseCmd struct{ node, module string }

// findJose finds jose; without it the test fails when CI is set, and is
// skipped otherwise (and in -short mode, which installs no tool).
func findJose(t *testing.T) joseCmd {
	t.Helper()
	modules := os.Getenv("SIGNPOST_NPM_JOSE")
	if modules == "" {
		modules = filepath.Join(catalogtest.ModuleRoot(t), "bin", "npm-jose", "node_modules")
	}
	module := filepath.Join(modules, "jose", "dist", "webapi", "index.js")
	nodes, _ := filepath.Glob(filepath.Join(modules, "node-*", "bin", "node"))
	var err error
	if _, serr := os.Stat(module); serr != nil {
		err = fmt.Errorf("no jose at %s", module)
	} else if len(nodes) != 1 {
		err = fmt.Errorf("no Node.js beside jose in %s (found %d)", modules, len(nodes))
	}
	if err != nil {
		if os.Getenv("CI") != "" && !testing.Short() {
			t.Fatalf("%v: make tools installs it", err)
		}
		t.Skipf("%v: make tools installs it", err)
	}
	return joseCmd{nodes[0], module}
}

// verify runs the jose verifier against origin at now and returns its lines.
func (j joseCmd) verify(t *testing.T, origin, now string) []string {
	t.Helper()
	script, _ := filepath.Abs(filepath.Join("testdata", "jose", "verify.mjs"))
	cmd := exec.CommandContext(t.Context(), j.node, script, "file://"+filepath.ToSlash(j.module), origin, now)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("jose under node: %v\n%s", err, stderr.Bytes())
	}
	return strings.Split(strings.TrimSpace(string(out)), "\n")
}

// signedRepo copies the signed test catalog into a new Git repository,
// committed at buildtest.SignedCommit, and returns the catalog folder.
func signedRepo(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "catalog")
	src := buildtest.SignedDir(t)
	for name, body := range catalogtest.ReadTree(t, src) {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	date := buildtest.SignedCommit.Format("2006-01-02T15:04:05Z")
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "signed"}} {
		cmd := exec.CommandContext(t.Context(), "git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_DATE="+date, "GIT_COMMITTER_DATE="+date)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return dir
}

// TestSignedBuild: build with a key in the environment writes the same
// bytes twice (RFC 6979), a DID document and a signed catalog; no file it
// writes and nothing it prints holds the private key; and npm's jose,
// reading them over HTTP from serve's handler, verifies every signature
// and refuses a tampered entry, an unknown kid, alg none and an expired
// signature, as signpost check does.
func TestSignedBuild(t *testing.T) {
	jose := findJose(t)
	dir := signedRepo(t)
	jwk := catalogtest.SigningKeyJWK(t, "current")
	var m map[string]string
	_ = json.Unmarshal([]byte(jwk), &m)
	secret := m["d"]
	t.Setenv("SIGNPOST_TEST_SIGNING_KEY", jwk)
	var trees []map[string]string
	var printed bytes.Buffer
	for i := range 2 {
		out := filepath.Join(t.TempDir(), fmt.Sprint("site", i))
		var stdout, stderr bytes.Buffer
		if code := run(t.Context(), []string{"build", dir, "--out", out}, &stdout, &stderr); code != 0 {
			t.Fatalf("build: exit %d\n%s%s", code, stdout.String(), stderr.String())
		}
		printed.Write(stdout.Bytes())
		printed.Write(stderr.Bytes())
		trees = append(trees, catalogtest.ReadTree(t, out))
	}
	if fmt.Sprint(trees[0]) != fmt.Sprint(trees[1]) {
		t.Fatal("two builds of one commit differ")
	}
	for name, body := range trees[0] {
		if strings.Contains(body, secret[:12]) {
			t.Errorf("%s holds the private key", name)
		}
	}
	if strings.Contains(printed.String(), secret[:12]) {
		t.Errorf("build printed the private key")
	}
	if trees[0]["public/.well-known/did.json"] == "" || !strings.Contains(trees[0]["public/.well-known/ai-catalog.json"], `"jws":"`) {
		t.Fatal("no DID document or no signature")
	}
	// A build without the key refuses, without printing anything of it.
	t.Setenv("SIGNPOST_TEST_SIGNING_KEY", "")
	var stderr bytes.Buffer
	if code := run(t.Context(), []string{"build", dir, "--out", filepath.Join(t.TempDir(), "x")}, &stderr, &stderr); code == 0 || !strings.Contains(stderr.String(), "SIGNPOST_TEST_SIGNING_KEY") {
		t.Errorf("build without the key: exit %d\n%s", code, stderr.String())
	}

	site := trees[0]
	handler := func(edit func(route string, body []byte) []byte) string {
		built := buildtest.Signed(t, "current")
		h, err := serve.NewHandler(t.Context(), built.Sites[0], nil)
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			rec := httptest.NewRecorder()
			r.Header.Del("Accept-Encoding")
			h.ServeHTTP(rec, r)
			body := rec.Body.Bytes()
			if edit != nil && rec.Code == http.StatusOK && len(body) > 0 {
				body = edit(r.URL.Path, body)
			}
			for k, v := range rec.Header() {
				w.Header()[k] = v
			}
			w.Header().Del("Content-Length")
			w.WriteHeader(rec.Code)
			_, _ = w.Write(body)
		}))
		t.Cleanup(srv.Close)
		return srv.URL
	}
	// The command's build and buildtest.Signed, which the server below
	// serves, are the same bytes.
	for _, d := range buildtest.Signed(t, "current").Sites[0].Documents {
		if d.Route.Route == spec.RouteAICatalog && string(buildtest.Body(t, d)) != site["public/.well-known/ai-catalog.json"] {
			t.Fatal("the command's build and the test build differ")
		}
	}
	kid, _ := signing.Thumbprint(&catalogtest.SigningKey(t, "current").PublicKey)
	onCatalog := func(f func(m map[string]any)) func(string, []byte) []byte {
		return func(route string, body []byte) []byte {
			if route != spec.RouteAICatalog {
				return body
			}
			var m map[string]any
			if err := json.Unmarshal(body, &m); err != nil {
				return body
			}
			f(m)
			out, _ := json.Marshal(m)
			return out
		}
	}
	header := func(h string) func(m map[string]any) {
		return func(m map[string]any) {
			sig := m["signature"].(map[string]any)
			_, rest, _ := strings.Cut(sig["jws"].(string), "..")
			sig["jws"] = base64.RawURLEncoding.EncodeToString([]byte(h)) + ".." + rest
		}
	}
	const now = "2026-06-01T00:00:00Z"
	cases := []struct {
		name string
		edit func(string, []byte) []byte
		now  string
		want []string
	}{
		{"as built", nil, now, []string{"did.json application/json", "ok catalog", "ok urn:air:signed.example:mcp:maps", "ok urn:air:signed.example:mcp:weather", "ok urn:air:signed.example:tool-catalog:tools"}},
		{"tampered entry", onCatalog(func(m map[string]any) {
			m["entries"].([]any)[1].(map[string]any)["trustManifests"].([]any)[0].(map[string]any)["subject"].(map[string]any)["version"] = "9.9.9"
		}), now, []string{"refused catalog: ERR_JWS_SIGNATURE_VERIFICATION_FAILED", "refused urn:air:signed.example:mcp:weather: ERR_JWS_SIGNATURE_VERIFICATION_FAILED"}},
		{"unknown kid", onCatalog(header(`{"alg":"ES256","kid":"did:web:signed.example#nope","typ":"ai-catalog+jws"}`)), now, []string{"refused catalog: kid not under assertionMethod"}},
		{"alg none", onCatalog(header(`{"alg":"none","kid":"did:web:signed.example#` + kid + `","typ":"ai-catalog+jws"}`)), now, []string{"refused catalog: ERR_JOSE_ALG_NOT_ALLOWED"}},
		{"expired", nil, "2027-05-01T12:00:00Z", []string{"refused catalog: expired"}},
	}
	for _, c := range cases {
		lines := jose.verify(t, handler(c.edit), c.now)
		for _, w := range c.want {
			if !containsLine(lines, w) {
				t.Errorf("%s: jose said %q, want the line %q", c.name, lines, w)
			}
		}
		// signpost check says the same of each.
		r, err := check.Run(t.Context(), handler(c.edit), check.Options{SameOrigin: true, AllowPrivate: true, Now: timeOf(t, c.now)})
		if err != nil {
			t.Fatal(err)
		}
		if wantLevel := map[bool]int{true: 3, false: 2}[c.edit == nil && c.now == now]; r.AICatalogLevel != wantLevel {
			t.Errorf("%s: check reports level %d (%s), want %d", c.name, r.AICatalogLevel, r.AICatalogLevelWhy, wantLevel)
		}
	}
}

func timeOf(t *testing.T, s string) func() time.Time {
	at, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatal(err)
	}
	return func() time.Time { return at }
}

func containsLine(lines []string, want string) bool {
	for _, l := range lines {
		if l == want {
			return true
		}
	}
	return false
}
