package importer

import (
	"fmt"
	"slices"
	"strings"

	"github.com/signpost-dev/signpost/build/discovery"
)

// packageRegistryTypes are the registry types a declaration may give a
// package.
var packageRegistryTypes = []string{discovery.RegistryNPM, discovery.RegistryPyPI, discovery.RegistryOCI, discovery.RegistryNuGet, discovery.RegistryMCPB}

// packages converts the packages of a document: each one a declaration
// can hold, in order, its members as they are but for what an input may
// not publish (see input) and the members no package has. A package that
// breaks a rule of the declarations (an unknown registry type, a version
// that is a range or latest, no transport, ...) is dropped with a note
// saying why, so that what is imported is what the loader accepts.
func (d *docImporter) packages(pkgs packagesDoc) []any {
	var out []any
	for i, p := range pkgs.items {
		path := fmt.Sprintf("packages[%d]", i)
		if p.kind != "" {
			d.note("dropped %s: it is %s, not an object", path, p.kind)
			continue
		}
		if pkg := d.pkg(path, p); pkg != nil {
			out = append(out, pkg)
		}
	}
	return out
}

// pkg converts one package, or returns nil, noting why.
func (d *docImporter) pkg(path string, p packageDoc) map[string]any {
	out := map[string]any{}
	label := path
	if id, ok := p.identifier.str(); ok {
		label = fmt.Sprintf("%s (%s)", path, quoteForReason(id))
	}
	for _, f := range []struct {
		k string
		v member
	}{
		{"registryType", p.registryType}, {"registryBaseUrl", p.registryBaseURL}, {"identifier", p.identifier},
		{"version", p.version}, {"fileSha256", p.fileSHA256}, {"runtimeHint", p.runtimeHint},
	} {
		if !f.v.set {
			continue
		}
		s, ok := f.v.str()
		if !ok {
			d.note("dropped %s: %s is %s, not a string", label, f.k, f.v.kind())
			return nil
		}
		out[f.k] = s
	}
	if t, _ := out["registryType"].(string); !slices.Contains(packageRegistryTypes, t) {
		d.note("dropped %s: registryType %s is not one of %s", label, quoteForReason(out["registryType"]), strings.Join(packageRegistryTypes, ", "))
		return nil
	}

	if p.transport.set {
		if p.transportKind != "" {
			d.note("dropped %s: transport is %s, not an object", label, p.transportKind)
			return nil
		}
		t := map[string]any{}
		for _, f := range []struct {
			k string
			v member
		}{{"type", p.transportType}, {"url", p.transportURL}} {
			if s, ok := f.v.str(); ok {
				t[f.k] = s
			} else if f.v.set {
				d.note("dropped %s: transport.%s is %s, not a string", label, f.k, f.v.kind())
				return nil
			}
		}
		if p.transportHeaders.set {
			if headers := d.inputList(path+".transport.headers", "header", p.transportHeaders); len(headers) > 0 {
				t["headers"] = headers
			}
		}
		d.dropUnknown(path+".transport", p.transportUnknown)
		out["transport"] = t
	}
	for _, f := range []struct {
		k    string
		args argumentsDoc
	}{{"runtimeArguments", p.runtimeArguments}, {"packageArguments", p.packageArguments}} {
		if !f.args.set {
			continue
		}
		if f.args.kind != "" {
			d.note("dropped %s.%s: it is %s, not an array", path, f.k, f.args.kind)
			continue
		}
		var args []any
		for j, a := range f.args.items {
			if arg := d.argument(fmt.Sprintf("%s.%s[%d]", path, f.k, j), a); arg != nil {
				args = append(args, arg)
			}
		}
		if len(args) > 0 {
			out[f.k] = args
		}
	}
	if p.environmentVariables.set {
		if env := d.inputList(path+".environmentVariables", "environment variable", p.environmentVariables); len(env) > 0 {
			out["environmentVariables"] = env
		}
	}
	d.dropUnknown(path, p.unknown)

	// The loader's rules of a package, on the package alone.
	decl := discovery.DecodeDecl(map[string]any{"name": "x.y/z", "version": "1", "description": "d", "packages": []any{out}})
	_, problems := discovery.Declare(&decl)
	var why []string
	for _, pr := range problems {
		if strings.HasPrefix(pr.Pointer, "/packages/0") || pr.Pointer == "/packages" {
			why = append(why, pr.Message)
		}
	}
	if len(why) > 0 {
		d.note("dropped %s: %s", label, strings.Join(why, "; "))
		return nil
	}
	return out
}

// inputList converts a list of headers or environment variables (kind),
// dropping a name declared twice.
func (d *docImporter) inputList(path, kind string, list headersDoc) []any {
	if list.kind != "" {
		d.note("dropped %s: it is %s, not an array", path, list.kind)
		return nil
	}
	var out []any
	seen := map[string]string{}
	for i, h := range list.items {
		hp := fmt.Sprintf("%s[%d]", path, i)
		in, name := d.input(hp, kind, "", h)
		if in == nil {
			continue
		}
		key := name
		if kind == "header" {
			key = strings.ToLower(name)
		}
		if first, dup := seen[key]; dup {
			d.note("dropped %s: %s %s is already declared by %s", hp, kind, quoteKeyForReason(name), first)
			continue
		}
		seen[key] = hp
		out = append(out, in)
	}
	return out
}

// argument converts one argument of a package, or returns nil, noting
// why.
func (d *docImporter) argument(path string, a argumentDoc) map[string]any {
	if a.in.kind != "" {
		d.note("dropped %s: it is %s, not an object", path, a.in.kind)
		return nil
	}
	typ, _ := a.typ.str()
	if typ != "positional" && typ != "named" {
		d.note("dropped %s: type %s is not positional or named", path, quoteForReason(a.typ.v))
		return nil
	}
	label := ""
	if typ == "named" {
		name, ok := a.in.name.str()
		if !ok || strings.TrimSpace(name) == "" {
			d.note("dropped %s: a named argument without a name", path)
			return nil
		}
		label = name
	} else if a.in.name.set {
		d.note("dropped %s.name: a positional argument has none", path)
	}
	hint, hasHint := a.valueHint.str()
	if a.valueHint.set && !hasHint {
		d.note("dropped %s.valueHint: it is %s, not a string", path, a.valueHint.kind())
	}
	if label == "" {
		label = hint
	}
	out, _ := d.input(path, "argument", label, a.in)
	if out == nil {
		return nil
	}
	out["type"] = typ
	if typ == "named" {
		out["name"] = label
	}
	if hasHint {
		out["valueHint"] = hint
	}
	if a.isRepeated.set {
		if b, ok := a.isRepeated.boolean(); ok {
			out["isRepeated"] = b
		} else {
			d.note("dropped %s.isRepeated: it is %s, not a boolean", path, a.isRepeated.kind())
		}
	}
	if _, hasValue := out["value"]; typ == "positional" && !hasValue && !hasHint {
		d.note("dropped %s: a positional argument with neither value nor valueHint", path)
		return nil
	}
	return out
}
