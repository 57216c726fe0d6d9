// Command benchtokens measures the tokens a model reads to choose and call
// a tool (`make bench-tokens` runs it), on a hold-out corpus: the tools of
// 16 public MCP servers (servers.go), each started from its pinned npm
// package over stdio and asked for tools/list with the live package, never
// kept in the repository. It builds one catalog of all of them (a
// declaration file per server, an mcp: import of its recording) and
// prints, per server and in total, the tokens (o200k_base) of the standard
// list's entries, with and without their definition digests, and of the
// compact list's, their ratio, and the tokens from the site's root (the AI
// catalog) to a callable tool through the compact view and through the
// tool catalogue's groups.
//
// It exits 1 when a compact descriptor loses what a model needs to choose
// a tool (its toolId, a required argument, an enum of at most 16 values),
// naming each loss, or when the compact list costs more than -goal of the
// standard list's tokens, with or without its digests; 2 when a server cannot be read or the catalog
// cannot be built.
package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/signpost-dev/signpost/build"
	"github.com/signpost-dev/signpost/live"
)

// config is what the flags set.
type config struct {
	modules  string        // the node_modules folder the packages are installed in
	work     string        // scratch folder, kept when given
	deadline time.Duration // for each server's listing
	goal     float64       // the most the compact list may cost of the standard list, with or without its digests
}

func main() {
	var c config
	flag.StringVar(&c.modules, "modules", "bin/npm-token-corpus/node_modules", "the node_modules folder the servers and Node.js are installed in (make bench-tokens installs them)")
	flag.StringVar(&c.work, "work", "", "scratch folder, kept: the recordings and the catalog (default: a new temporary one, removed at the end)")
	flag.DurationVar(&c.deadline, "deadline", time.Minute, "the longest each server may take to start and list its tools")
	flag.Float64Var(&c.goal, "goal", 0.50, "the most the compact list may cost of the standard list's tokens, with or without its digests")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	code, err := run(ctx, c)
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench-tokens:", err)
	}
	os.Exit(code)
}

// npmPackages are the servers' packages, pinned: npm/package.json's
// dependencies, which its lockfile pins with theirs.
func npmPackages() []string {
	var ps []string
	for _, s := range corpus {
		ps = append(ps, s.pkg+"@"+s.version)
	}
	return ps
}

func run(ctx context.Context, c config) (int, error) {
	modules, err := filepath.Abs(c.modules)
	if err != nil {
		return 2, err
	}
	// Node.js from the npm registry (some servers need 22 or later), the
	// package of this platform: in a folder of its own beside the
	// servers' node_modules.
	nodes, _ := filepath.Glob(filepath.Join(filepath.Dir(modules), "node", "node_modules", "node-*", "bin", "node"))
	if len(nodes) != 1 {
		return 2, fmt.Errorf("%d Node.js installs in %s; want 1: make bench-tokens installs it beside the servers", len(nodes), filepath.Join(filepath.Dir(c.modules), "node"))
	}
	node := nodes[0]
	work := c.work
	if work == "" {
		if work, err = os.MkdirTemp("", "bench-tokens-"); err != nil {
			return 2, err
		}
		defer os.RemoveAll(work)
	}
	catalog := filepath.Join(work, "catalog")
	scratch := filepath.Join(work, "scratch")
	for _, d := range []string{filepath.Join(catalog, "recorded"), scratch} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return 2, err
		}
	}
	files := map[string]string{"signpost.yaml": "site: {origin: https://example.com, publisher: example.com}\n"}
	var failed []error
	for _, s := range corpus {
		rec, n, err := record(ctx, s, modules, node, scratch, c.deadline)
		if err != nil {
			failed = append(failed, fmt.Errorf("%s (%s@%s): %w", s.name, s.pkg, s.version, err))
			continue
		}
		fmt.Fprintf(os.Stderr, "recorded %s %s: %d tools\n", s.pkg, s.version, n)
		files[filepath.Join("recorded", s.name+".json")] = string(rec)
		files[s.name+".yaml"] = declaration(s)
	}
	if len(failed) > 0 {
		return 2, errors.Join(failed...)
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(catalog, name), []byte(text), 0o644); err != nil {
			return 2, err
		}
	}
	cat, diags := build.Load(ctx, catalog)
	if diags.HasErrors() {
		var b strings.Builder
		_ = diags.Write(&b, build.FormatText)
		return 2, fmt.Errorf("the corpus's catalog does not build:\n%s", b.String())
	}
	b, err := build.Compile(ctx, cat)
	if err != nil {
		return 2, fmt.Errorf("compile the corpus's catalog: %w", err)
	}
	if len(b.Sites) != 1 {
		return 2, fmt.Errorf("the corpus's catalog builds %d sites; want 1", len(b.Sites))
	}
	r, err := measure(b.Sites[0], names())
	if err != nil {
		return 2, err
	}
	fmt.Print(r.markdown())
	code := 0
	for _, l := range r.losses {
		fmt.Fprintln(os.Stderr, "loss:", l)
		code = 1
	}
	// The goal holds against the standard list without its digests too:
	// they are tokens a model has no use for, in the standard list alone.
	for _, g := range []struct {
		of    string
		ratio float64
	}{{"", r.total.ratio()}, {" without their digests", r.total.ratioNoDigest()}} {
		if g.ratio > c.goal {
			fmt.Fprintf(os.Stderr, "the compact list costs %.1f%% of the standard list's tokens%s; the goal is at most %.0f%%\n", 100*g.ratio, g.of, 100*c.goal)
			code = 1
		}
	}
	return code, nil
}

// names are the corpus's server names, in its order.
func names() []string {
	var ns []string
	for _, s := range corpus {
		ns = append(ns, s.name)
	}
	return ns
}

// serverName is the MCP server name a server's tools are declared with:
// its group in the tool catalogue is the part after the slash.
func serverName(s server) string { return "org.npmjs/" + s.name }

// declaration is the declaration file of a server: an mcp: import of its
// recording, every tool left as the import classifies it.
func declaration(s server) string {
	prefix := cmp.Or(s.prefix, strings.ReplaceAll(s.name, "-", "_"))
	return fmt.Sprintf("mcp:\n  from: recorded/%s.json\n  server: %s\n  toolIdPrefix: %s\n", s.name, serverName(s), prefix)
}

// record starts the server with node, with no environment but its dummy
// values, PATH and a scratch HOME (no credential of the caller's reaches
// it), and returns its tools/list as a recording and its number of tools.
func record(ctx context.Context, s server, modules, node, scratch string, deadline time.Duration) ([]byte, int, error) {
	dir := filepath.Join(scratch, s.name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, 0, err
	}
	script, err := binScript(filepath.Join(modules, filepath.FromSlash(s.pkg)), s)
	if err != nil {
		return nil, 0, err
	}
	expand := func(v string) string { return strings.ReplaceAll(v, "{dir}", dir) }
	cmd := []string{"env", "-i", "PATH=" + filepath.Dir(node) + ":/usr/bin:/bin", "HOME=" + dir}
	for _, e := range s.env {
		cmd = append(cmd, expand(e))
	}
	cmd = append(cmd, node, script)
	for _, a := range s.args {
		cmd = append(cmd, expand(a))
	}
	l, err := live.List(ctx, live.Endpoint{Command: cmd}, live.Options{Deadline: deadline})
	if err != nil {
		return nil, 0, err
	}
	rec, err := l.Recording()
	return rec, len(l.Tools), err
}

// binScript is the script of the package's bin entry, after checking that
// the package installed is the pinned version.
func binScript(dir string, s server) (string, error) {
	data, err := os.ReadFile(filepath.Join(dir, "package.json"))
	if err != nil {
		return "", fmt.Errorf("not installed: make bench-tokens installs it")
	}
	var p struct {
		Version string
		Bin     json.RawMessage
	}
	if err := json.Unmarshal(data, &p); err != nil {
		return "", fmt.Errorf("its package.json: %w", err)
	}
	if p.Version != s.version {
		return "", fmt.Errorf("version %s is installed, not %s: make bench-tokens installs the pinned one", p.Version, s.version)
	}
	var one string
	if json.Unmarshal(p.Bin, &one) == nil && s.bin == "" {
		return filepath.Join(dir, filepath.FromSlash(one)), nil
	}
	var bins map[string]string
	if err := json.Unmarshal(p.Bin, &bins); err != nil {
		return "", fmt.Errorf("its package.json has no bin entry")
	}
	name := s.bin
	if name == "" {
		if len(bins) != 1 {
			return "", fmt.Errorf("its package.json has %d bin entries: name one", len(bins))
		}
		for n := range bins {
			name = n
		}
	}
	b, ok := bins[name]
	if !ok {
		return "", fmt.Errorf("its package.json has no bin entry %q", name)
	}
	return filepath.Join(dir, filepath.FromSlash(b)), nil
}
