package catalogfile

import (
	"fmt"
	"path"
	"path/filepath"
	"strings"
)

// Reads reports whether Load reads the file at name, slash-separated and
// relative to the catalog folder: a declaration (see IsDeclaration), or a
// .json file anywhere, which a declaration may name (see Resolve).
func Reads(name string) bool {
	return IsDeclaration(name) || IsJSON(name)
}

// IsDeclaration reports whether the file at name is a declaration: a .yaml
// or .yml file outside folders whose names start with "." (such as .git).
func IsDeclaration(name string) bool {
	if ext := path.Ext(name); ext != ".yaml" && ext != ".yml" {
		return false
	}
	for dir := range strings.SplitSeq(path.Dir(name), "/") {
		if strings.HasPrefix(dir, ".") && dir != "." {
			return false
		}
	}
	return true
}

// IsJSON reports whether the file at name is one a declaration may name.
func IsJSON(name string) bool { return path.Ext(name) == ".json" }

// Resolve turns a path written in the file from into the path of a .json
// file inside the catalog folder, or explains why it cannot be used.
func Resolve(from, name string) (string, string) {
	rel, msg := ResolveInside(from, name)
	if msg == "" && !IsJSON(rel) {
		return "", fmt.Sprintf("file %q is not a .json file", name)
	}
	return rel, msg
}

// ResolveInside turns a path written in the file from into a path inside
// the catalog folder, or explains why it cannot be used.
func ResolveInside(from, name string) (string, string) {
	if name == "" {
		return "", "file path is empty"
	}
	if path.IsAbs(name) || filepath.IsAbs(name) || filepath.VolumeName(name) != "" {
		return "", fmt.Sprintf("file %q is an absolute path: name it relative to %s", name, path.Base(from))
	}
	rel := path.Join(path.Dir(from), filepath.ToSlash(name))
	if !filepath.IsLocal(filepath.FromSlash(rel)) {
		return "", fmt.Sprintf("file %q is outside the catalog folder: keep schemas and recordings inside it", name)
	}
	return rel, ""
}
