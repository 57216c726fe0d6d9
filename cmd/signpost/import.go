package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/signpost-dev/signpost/build"
)

func newImportCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "import",
		Short: "Turn documents published elsewhere into declarations",
		Long: `Import reads documents published elsewhere and writes signpost declarations
from them, to review and commit. "import server" reads MCP registry server.json
documents.`,
		Example: `  signpost import server server.json -o servers.yaml`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usageError{fmt.Errorf("unknown command %q for %q", args[0], cmd.CommandPath())}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(newImportServerCmd())
	return cmd
}

func newImportServerCmd() *cobra.Command {
	var out string
	var strict bool
	cmd := &cobra.Command{
		Use:   "server FILE...",
		Short: "Declare the servers of MCP registry server.json documents",
		Long: `Import server reads MCP registry server.json documents and writes the server
declarations (YAML) of those that describe remote endpoints, which is what a
server card publishes.

A FILE holds one server.json document, a JSON array of them, or a registry API
response: a list ({"servers": [{"server": {...}, "_meta": {...}}, ...]}, as
GET /v0/servers returns it) or a single entry. "-" reads standard input.

Every document is reported on stderr, one line each:

  FILE: NAME: imported (NOTES)
  FILE: NAME: not publishable as a card: REASON
  FILE: NAME: invalid: REASON

A document with local packages only (npm, pypi, oci, ...) has no card to
publish. An invalid one breaks the registry schema where it matters for a
card: its name, version (an exact one, not a range) or description is missing
or wrong, or a remote has no usable transport or URL. A second document with
the same name is invalid too: a catalog declares each server once.

An imported server keeps the card fields: name, version, description, title,
websiteUrl, repository, icons, remotes (headers, variables) and _meta. The
notes say what changed: packages are left out; a description over 100
characters is cut at a word; an empty repository is dropped, and so are _meta
keys under a prefix MCP reserves (the registry's among them) and the value,
default or choices of a secret header or variable, since a secret is never
published; a {variable} that a URL or header value uses but does not declare
is declared.

The declarations go to stdout, or to OUT with -o, under a comment naming the
source of each server. Exit status is 0 even when some documents are not
imported; 1 when a FILE cannot be read or is not JSON of these shapes, or,
with --strict, when a document is invalid (in both cases nothing is written).`,
		Example: `  signpost import server server.json
  signpost import server servers/*.json -o catalogs/example/servers.yaml
  curl -s 'https://registry.modelcontextprotocol.io/v0/servers?search=weather' |
    signpost import server - -o servers.yaml
  signpost import server --strict registry.json -o servers.yaml   # fail on invalid documents`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageError{errors.New("import server needs at least one FILE (- for standard input)")}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return runImportServer(cmd, args, out, strict)
		},
	}
	cmd.Flags().StringVarP(&out, "out", "o", "", "write the declarations to this file instead of stdout")
	cmd.Flags().BoolVar(&strict, "strict", false, "exit 1, writing nothing, when a document is invalid")
	return cmd
}

func runImportServer(cmd *cobra.Command, args []string, out string, strict bool) error {
	stderr := cmd.ErrOrStderr()

	// Import every file first: a name may repeat across files.
	type fileResult struct {
		label string
		err   error
		docs  int
	}
	var files []fileResult
	var all []build.ImportedServer
	for _, arg := range args {
		label, data, err := readImportFile(cmd, arg)
		if err == nil {
			var list []build.ImportedServer
			list, err = build.ImportServers(label, data)
			all = append(all, list...)
			files = append(files, fileResult{label: label, err: err, docs: len(list)})
			continue
		}
		files = append(files, fileResult{label: label, err: err})
	}
	all = build.MarkDuplicateServers(all)

	counts := map[string]int{}
	failed, next := 0, 0
	for _, f := range files {
		if f.err != nil {
			fmt.Fprintln(stderr, f.err)
			failed++
			continue
		}
		if f.docs == 0 {
			fmt.Fprintf(stderr, "%s: no server documents\n", f.label)
		}
		for _, s := range all[next : next+f.docs] {
			counts[s.Status]++
			fmt.Fprintln(stderr, importLine(s))
		}
		next += f.docs
	}

	summary := fmt.Sprintf("%d %s: %d imported, %d not publishable as a card, %d invalid",
		len(all), plural(len(all), "document", "documents"),
		counts[build.ImportImported], counts[build.ImportNoRemotes], counts[build.ImportInvalid])
	if failed > 0 {
		fmt.Fprintf(stderr, "%s; %d %s not imported; nothing written\n", summary, failed, plural(failed, "file", "files"))
		return reportedError{exitInvalid}
	}
	if strict && counts[build.ImportInvalid] > 0 {
		fmt.Fprintf(stderr, "%s; nothing written (--strict)\n", summary)
		return reportedError{exitInvalid}
	}

	decl, err := build.ServersYAML(all)
	if err != nil {
		return err
	}
	if out == "" {
		fmt.Fprintln(stderr, summary)
		_, err := cmd.OutOrStdout().Write(decl)
		return err
	}
	if err := writeFileAtomic(out, decl); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "%s; wrote %s\n", summary, out)
	return nil
}

// importLine is the report line of one document.
func importLine(s build.ImportedServer) string {
	prefix := s.Source + ": "
	if s.Name != "" {
		prefix += s.Name + ": "
	}
	switch s.Status {
	case build.ImportImported:
		if s.Reason != "" {
			return prefix + "imported (" + s.Reason + ")"
		}
		return prefix + "imported"
	case build.ImportNoRemotes:
		return prefix + "not publishable as a card: " + s.Reason
	}
	return prefix + "invalid: " + s.Reason
}

// readImportFile reads a FILE argument ("-" is standard input) and returns
// the label its documents are reported under.
func readImportFile(cmd *cobra.Command, arg string) (string, []byte, error) {
	if arg == "-" {
		data, err := io.ReadAll(cmd.InOrStdin())
		if err != nil {
			return "stdin", nil, fmt.Errorf("stdin: cannot read: %w", err)
		}
		return "stdin", data, nil
	}
	data, err := os.ReadFile(arg)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return arg, nil, fmt.Errorf("%s: cannot read: %w", arg, err)
	}
	return arg, data, nil
}

// writeFileAtomic replaces path with data: a reader sees the old file or the
// new one, never a part.
func writeFileAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name()) // after a successful rename, there is nothing left to remove
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}
