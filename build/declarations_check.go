package build

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/signpost-dev/signpost/build/catalogfile"
)

// DefaultConfig is the signpost.yaml CheckDeclarations loads declarations
// with when it is given none: a site at example.com, published by
// example.com, with the default limits.
const DefaultConfig = "site: {origin: https://example.com, publisher: example.com}\n"

// CheckDeclarations holds a declaration file not yet written to the rules
// Load holds a catalog folder to, by loading it as Load does, beside config
// (the bytes of a signpost.yaml; DefaultConfig when nil) in a catalog
// folder of its own: the same steps and passes, the same diagnostics. rel
// is the file's path inside its catalog folder (slash-separated, ending in
// .yaml or .yml) and display the name its diagnostics give it. Only the
// file's own diagnostics are returned: what Load says of signpost.yaml, or
// of the catalog as a whole (a limit reported at signpost.yaml), is the
// catalog's to report. The error is for a file that cannot be checked
// (a bad rel, a temporary folder that cannot be written) and cancellation.
func CheckDeclarations(ctx context.Context, config []byte, rel, display string, data []byte) (Diagnostics, error) {
	if !catalogfile.IsDeclaration(rel) || !filepath.IsLocal(filepath.FromSlash(rel)) || path.Base(rel) == ConfigFile {
		return nil, fmt.Errorf("check declarations: %q is not the path of a declaration file inside a catalog folder (a .yaml or .yml file other than %s)", rel, ConfigFile)
	}
	if config == nil {
		config = []byte(DefaultConfig)
	}
	dir, err := os.MkdirTemp("", "signpost-check-")
	if err != nil {
		return nil, fmt.Errorf("check declarations: %w", err)
	}
	defer os.RemoveAll(dir)
	name := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(name), 0o700); err != nil {
		return nil, fmt.Errorf("check declarations: %w", err)
	}
	if err := errors.Join(
		os.WriteFile(filepath.Join(dir, ConfigFile), config, 0o600),
		os.WriteFile(name, data, 0o600),
	); err != nil {
		return nil, fmt.Errorf("check declarations: %w", err)
	}
	_, diags := Load(ctx, dir)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// Load names each file dir joined with its path: the file is named as
	// the caller shows it, and no message keeps the temporary folder.
	prefix := filepath.ToSlash(dir) + "/"
	var out Diagnostics
	for _, d := range diags {
		if d.File != prefix+rel {
			continue
		}
		d.File = display
		d.Message = strings.ReplaceAll(strings.ReplaceAll(d.Message, prefix+rel, display), prefix, "")
		out = append(out, d)
	}
	return out.Sort(), nil
}
