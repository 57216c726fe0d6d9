package main

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/signpost-dev/signpost/build"
	"github.com/signpost-dev/signpost/build/output"
	"github.com/signpost-dev/signpost/cmd/signpost/internal/cmdutil"
	"github.com/signpost-dev/signpost/conformance"
	"github.com/signpost-dev/signpost/hosts"
)

// build --verify builds the catalog twice more, each time in a child process
// of this executable, and holds the three builds to one another with
// conformance.Compare before anything is written to --out. Child processes,
// not goroutines, because what they must not depend on is process-wide: the
// working directory, TZ and the locale are read once per process, and a
// build that leaked one of them would leak it the same way twice in one
// process. Each child gets its own copy of the catalog, written in opposite
// file orders, so that neither the catalog's path nor the order its files
// were created in can reach the output unnoticed.

// verifyTimeout bounds each verification build.
const verifyTimeout = 10 * time.Minute

// Bounds of the catalog copied for each verification build, and of what a
// child's output is kept of for a message.
const (
	verifyMaxFiles    = 100_000
	verifyMaxBytes    = 1 << 30
	verifyOutputBytes = 16 << 10
)

// verifyVariant is how one verification build differs from the other.
type verifyVariant struct {
	name    string
	tz      string
	locale  string
	reverse bool // write the catalog's files in reverse order
	nested  bool // run in a folder below the copy, naming the catalog and output by absolute path
}

var verifyVariants = []verifyVariant{
	{name: "first", tz: "UTC", locale: "C"},
	{name: "second", tz: "Pacific/Kiritimati", locale: "de_DE.UTF-8", reverse: true, nested: true},
}

// verifyBuild builds the catalog of opts twice in child processes, writes b
// as this build would, and compares the three; it prints the report and
// returns a cmdutil.ReportedError when they differ. Every temporary folder is
// removed before it returns.
func verifyBuild(ctx context.Context, opts buildOptions, b *output.Build, host hosts.Host, stdout, stderr io.Writer) error {
	tmp, err := os.MkdirTemp("", "signpost-verify-")
	if err != nil {
		return fmt.Errorf("verify: %w", err)
	}
	defer os.RemoveAll(tmp)

	files, err := catalogFiles(ctx, opts.Dir)
	if err != nil {
		return fmt.Errorf("verify: copy %s: %w", opts.Dir, err)
	}
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("verify: find this executable: %w", err)
	}
	outs := make([]string, len(verifyVariants))
	g, gctx := errgroup.WithContext(ctx)
	for i, v := range verifyVariants {
		g.Go(func() error {
			var err error
			outs[i], err = verifyChild(gctx, exe, filepath.Join(tmp, v.name), opts, files, v)
			return err
		})
	}
	self := filepath.Join(tmp, "self", "site")
	if _, err := host.Write(ctx, b, self); err != nil {
		_ = g.Wait()
		return fmt.Errorf("verify: %w", err)
	}
	if err := g.Wait(); err != nil {
		return err
	}

	builds := make([]*conformance.Build, 0, 3)
	for i, dir := range append(outs, self) {
		name := "this build"
		if i < len(verifyVariants) {
			name = verifyVariants[i].name + " build"
		}
		cb, err := conformance.Read(ctx, name, dir)
		if err != nil {
			return fmt.Errorf("verify: %w", err)
		}
		builds = append(builds, cb)
	}
	format := conformance.FormatText
	if opts.Format == build.FormatJSON {
		format = conformance.FormatJSON
	}
	failed := false
	for _, pair := range [][2]*conformance.Build{{builds[0], builds[1]}, {builds[0], builds[2]}} {
		report, err := conformance.Compare(pair[0], pair[1])
		if err != nil {
			return err
		}
		if report.Conformant {
			continue
		}
		failed = true
		if err := report.Write(stdout, format); err != nil {
			return err
		}
	}
	if failed {
		if opts.Format == build.FormatText {
			_ = cmdutil.PrintLine(stderr, "%s: independent builds differ; nothing written", opts.Dir)
		}
		return cmdutil.ReportedError{Code: cmdutil.ExitInvalid}
	}
	return nil
}

// verifyChild copies the catalog into dir and builds it there with a child
// process of exe, as variant v says; it returns the output folder.
func verifyChild(ctx context.Context, exe, dir string, opts buildOptions, files []catalogFile, v verifyVariant) (string, error) {
	catalog := filepath.Join(dir, "catalog")
	if err := copyCatalog(ctx, catalog, files, v.reverse); err != nil {
		return "", fmt.Errorf("verify: copy %s: %w", opts.Dir, err)
	}
	cwd, catArg, out, outArg := dir, "catalog", filepath.Join(dir, "site"), "site"
	if v.nested {
		cwd, catArg, outArg = filepath.Join(dir, "work", "here"), catalog, out
	}
	tmpdir := filepath.Join(dir, "tmp")
	for _, d := range []string{cwd, tmpdir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return "", fmt.Errorf("verify: %w", err)
		}
	}
	// The copy is in no repository: the history is the catalog's own.
	history, err := filepath.Abs(cmp.Or(opts.HistoryFrom, opts.Dir))
	if err != nil {
		return "", fmt.Errorf("verify: %w", err)
	}
	args := []string{"build", catArg, "--out", outArg, "--format", build.FormatJSON, "--" + historyFromFlag, history}
	if opts.Target != "" {
		args = append(args, "--target", opts.Target)
	}
	if opts.Origin != "" {
		args = append(args, "--origin", opts.Origin)
	}
	ctx, cancel := context.WithTimeout(ctx, verifyTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe, args...)
	cmd.Args[0] = "signpost"
	cmd.Dir = cwd
	cmd.Env = append(verifyEnviron(os.Environ()), "TZ="+v.tz, "LANG="+v.locale, "LC_ALL="+v.locale, "TMPDIR="+tmpdir)
	var log limitedBuffer
	cmd.Stdout, cmd.Stderr = &log, &log
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return "", fmt.Errorf("verify: the %s build took longer than %s", v.name, verifyTimeout)
		}
		return "", fmt.Errorf("verify: the %s build (TZ %s, locale %s) failed: %w\n%s", v.name, v.tz, v.locale, err, strings.TrimSpace(log.String()))
	}
	return out, nil
}

// verifyEnviron is env without what the variants set.
func verifyEnviron(env []string) []string {
	return slices.DeleteFunc(slices.Clone(env), func(kv string) bool {
		k, _, _ := strings.Cut(kv, "=")
		return k == "TZ" || k == "LANG" || k == "TMPDIR" || k == "LANGUAGE" || strings.HasPrefix(k, "LC_")
	})
}

// catalogFile is a file of the catalog folder, by its slash-separated path.
type catalogFile struct {
	path string
	body []byte
}

// catalogFiles reads the regular files of the catalog folder dir, sorted,
// leaving out .git and earlier builds (folders with a route table).
func catalogFiles(ctx context.Context, dir string) ([]catalogFile, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	var files []catalogFile
	var total int64
	err = fs.WalkDir(root.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if d.IsDir() {
			if p != "." && (d.Name() == ".git" || output.IsBuild(ctx, filepath.Join(dir, filepath.FromSlash(p)))) {
				return fs.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		body, err := root.ReadFile(filepath.FromSlash(p))
		if err != nil {
			return err
		}
		total += int64(len(body))
		if len(files) >= verifyMaxFiles || total > verifyMaxBytes {
			return fmt.Errorf("the catalog folder holds more than %d files or %d bytes", verifyMaxFiles, verifyMaxBytes)
		}
		files = append(files, catalogFile{path: p, body: body})
		return nil
	})
	return files, err
}

// copyCatalog writes files below dir, in their order or in reverse.
func copyCatalog(ctx context.Context, dir string, files []catalogFile, reverse bool) error {
	order := slices.Clone(files)
	if reverse {
		slices.Reverse(order)
	}
	for _, f := range order {
		if err := ctx.Err(); err != nil {
			return err
		}
		p := filepath.Join(dir, filepath.FromSlash(f.path))
		if err := os.MkdirAll(filepath.Join(dir, filepath.FromSlash(path.Dir(f.path))), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, f.body, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// limitedBuffer keeps the first verifyOutputBytes written to it.
type limitedBuffer struct{ bytes.Buffer }

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if room := verifyOutputBytes - b.Len(); room > 0 {
		b.Buffer.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}
