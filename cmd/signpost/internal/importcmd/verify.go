package importcmd

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/signpost-dev/signpost/build"
	"github.com/signpost-dev/signpost/cmd/signpost/internal/cmdutil"
	"github.com/signpost-dev/signpost/importer"
	"github.com/signpost-dev/signpost/internal/catalogdir"
	"github.com/signpost-dev/signpost/internal/english"
)

// writeInvalidFlag adds --write-invalid, which every import takes, to cmd.
func writeInvalidFlag(cmd *cobra.Command, v *bool) {
	cmd.Flags().BoolVar(v, "write-invalid", false, "write the declarations even when build would refuse them, to fix by hand")
}

// verifiedImport is what build says of the declarations an import would
// write (importer.Verify): its diagnostics, and whether the import must
// not write them.
type verifiedImport struct {
	diags   build.Diagnostics
	refused bool
}

// verifyImport holds decl, the declarations an import would write to out
// ("" for stdout), to the rules build holds a catalog to, as build loads
// them: at their place in the catalog folder that holds out, with its
// signpost.yaml, else beside a default one. Build refuses them when a
// diagnostic is an error; then nothing is written, unless writeInvalid.
func verifyImport(ctx context.Context, out string, decl []byte, writeInvalid bool) (verifiedImport, error) {
	w, err := importWritten(out)
	if err != nil {
		return verifiedImport{}, err
	}
	diags, err := importer.Verify(ctx, w, decl)
	if err != nil {
		return verifiedImport{}, err
	}
	return verifiedImport{diags: diags, refused: diags.HasErrors() && !writeInvalid}, nil
}

// importWritten says where out is, for importer.Verify: in the catalog
// folder that holds it (a signpost.yaml in its folder or above), with that
// catalog's signpost.yaml, or outside any.
func importWritten(out string) (importer.Written, error) {
	if out == "" {
		return importer.Written{Display: "stdout"}, nil
	}
	w := importer.Written{Display: filepath.ToSlash(out)}
	cat, ok := catalogdir.Up(filepath.Dir(out))
	if !ok {
		return w, nil
	}
	config, err := os.ReadFile(filepath.Join(cat, build.ConfigFile))
	if err != nil {
		return w, fmt.Errorf("%s: cannot read the catalog's %s to check the declarations against: %w", filepath.ToSlash(cat), build.ConfigFile, err)
	}
	w.Config = config
	rel, err := filepath.Rel(cat, out)
	// A file build would not read as a declaration is checked as one at
	// the catalog's top.
	if err == nil && build.Reads(filepath.ToSlash(rel)) && path.Ext(rel) != ".json" && path.Base(filepath.ToSlash(rel)) != build.ConfigFile {
		w.Rel = filepath.ToSlash(rel)
	}
	return w, nil
}

// add adds what build says of the declarations to report, one line each,
// as build prints them.
func (v verifiedImport) add(report *cmdutil.Lines) {
	for _, d := range v.diags {
		report.Add("%s", d.String())
	}
}

// refusal is the end of the summary of an import that build would refuse.
func (v verifiedImport) refusal() string {
	n := v.diags.Errors()
	return fmt.Sprintf("build would refuse the declarations (%s); nothing written (--write-invalid writes them anyway)", english.Count(n, "error", "errors"))
}

// importVerifyHelp ends the help of every import: what it holds the
// declarations to before writing them.
const importVerifyHelp = `

Before anything is written, the declarations are loaded exactly as build
loads a catalog folder (the same rules, the same messages): at their place
in the catalog folder that holds OUT, with its signpost.yaml, or, outside
one and on stdout, beside a default signpost.yaml (publisher example.com).
Other files of the catalog are not read: "signpost validate" after the
import holds the tools to theirs (a toolId used twice, say). What build
would report is printed as build prints it, FILE:LINE:COL: MESSAGE, the
file as it would be written ("stdout" on stdout). When build would refuse
the declarations, nothing is written and the exit status is 1; with
--write-invalid they are written all the same, to fix by hand.`
