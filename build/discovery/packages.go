package discovery

import (
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/signpost-dev/signpost/build/spec"
)

// This file checks the packages of a server declaration: the local
// servers a client installs and runs, in the shape of the registry's
// server.json packages. They are published in the MCP registry's
// server.json, and the policy exports allow each by the command a client
// runs (export/commands.go), so a package must say exactly what it runs.

// The registry types a package may declare.
const (
	RegistryNPM   = "npm"
	RegistryPyPI  = "pypi"
	RegistryOCI   = "oci"
	RegistryNuGet = "nuget"
	RegistryMCPB  = "mcpb"
)

// The transports of a package: stdio, or HTTP served on the user's own
// machine.
const (
	TransportStdio = "stdio"
)

var (
	packageSHA256Re = regexp.MustCompile(`^[a-f0-9]{64}$`)
	// An OCI image reference's tag (after the last "/") or digest.
	ociTagRe    = regexp.MustCompile(`:[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$`)
	ociDigestRe = regexp.MustCompile(`@[A-Za-z0-9_+.-]+:[A-Fa-f0-9]{32,}$`)
)

// OCITag returns the tag or digest of an OCI image reference ("1.2.0" of
// ghcr.io/example/weather:1.2.0, "sha256:…" of …@sha256:…), or "".
func OCITag(identifier string) string {
	if m := ociDigestRe.FindString(identifier); m != "" {
		return m[1:]
	}
	last := identifier[strings.LastIndexByte(identifier, '/')+1:]
	if m := ociTagRe.FindString(last); m != "" {
		return m[1:]
	}
	return ""
}

// pkg checks one package at ptr:
//   - registryType is npm, pypi, oci, nuget or mcpb, with an identifier;
//   - what it runs is pinned: npm, pypi and nuget give an exact version
//     (never a range or latest); an oci image either a version or a tag or
//     digest in its identifier (not both, and never the tag latest); an
//     mcpb bundle an https URL and its fileSha256;
//   - a transport: stdio, or streamable-http or sse with a url (an
//     http://localhost URL, usually, that may hold {variables} naming an
//     argument or an environment variable) and headers held to the rules of
//     a remote's headers;
//   - each argument is positional (with a value or a valueHint) or named
//     (with a name), and its value, default and choices, like every
//     environment variable's, follow the rules of inputs: a secret carries
//     none of them, and no value looks like a credential;
//   - environment variables have names, each declared once.
func (d *serverDecoder) pkg(ptr string, p *Package) {
	typ, _ := d.str(p.RegistryType, ptr+"/registryType")
	id, hasID := d.str(p.Identifier, ptr+"/identifier")
	if !p.RegistryType.Set {
		d.add(ptr, `missing required field "registryType": npm, pypi, oci, nuget or mcpb`)
	}
	if !p.Identifier.Set {
		d.add(ptr, `missing required field "identifier": the package's name, or an mcpb bundle's URL`)
	} else if hasID && strings.TrimSpace(id) == "" {
		d.add(ptr+"/identifier", "identifier must not be blank")
	}
	version, hasVersion := d.str(p.Version, ptr+"/version")
	for _, f := range []struct {
		v   Str
		ptr string
	}{{p.RegistryBaseURL, "/registryBaseUrl"}, {p.FileSHA256, "/fileSha256"}, {p.RuntimeHint, "/runtimeHint"}} {
		d.str(f.v, ptr+f.ptr)
	}
	if hasVersion && serverVersionIsRange(version) {
		d.add(ptr+"/version", "version %q is a range or a tag, not an exact version: give the version clients run, such as 1.4.0", version)
	}
	switch typ {
	case RegistryNPM, RegistryPyPI, RegistryNuGet:
		if !p.Version.Set {
			d.add(ptr, "missing required field %q: a %s package runs the version given, and without one clients run whatever is newest", "version", typ)
		}
	case RegistryOCI:
		tag := OCITag(id)
		switch {
		case p.Version.Set && tag != "":
			d.add(ptr+"/version", "version is set, and identifier %q already carries the tag or digest %q: give one of them", id, tag)
		case !p.Version.Set && tag == "" && hasID:
			d.add(ptr+"/identifier", "identifier %q names no tag or digest: add one, as in %s:1.4.0, or give version", id, id)
		case strings.EqualFold(tag, "latest"):
			d.add(ptr+"/identifier", "identifier %q is tagged latest, which is not one image: give the tag of the image clients run, such as 1.4.0", id)
		}
	case RegistryMCPB:
		if hasID && !strings.HasPrefix(strings.ToLower(id), "https://") {
			d.add(ptr+"/identifier", "identifier %q must be the https URL of the bundle", id)
		}
		if !p.FileSHA256.Set {
			d.add(ptr, `missing required field "fileSha256": clients check an mcpb bundle against its SHA-256`)
		}
	case "":
	default:
		d.add(ptr+"/registryType", "registryType %q must be npm, pypi, oci, nuget or mcpb", typ)
	}
	if sum, ok := p.FileSHA256.String(); ok && !packageSHA256Re.MatchString(sum) {
		d.add(ptr+"/fileSha256", "fileSha256 %q must be 64 lower-case hexadecimal digits", sum)
	}
	d.transport(ptr, p)
	for _, list := range []struct {
		field string
		args  []*Argument
	}{{"runtimeArguments", p.RuntimeArguments}, {"packageArguments", p.PackageArguments}} {
		for i, a := range list.args {
			if a != nil {
				d.argument(ptr+"/"+list.field+"/"+strconv.Itoa(i), a)
			}
		}
	}
	first := map[string]int{}
	for i, e := range p.EnvironmentVariables {
		if e == nil {
			continue
		}
		ep := ptr + "/environmentVariables/" + strconv.Itoa(i)
		name, ok := d.str(e.Name, ep+"/name")
		switch {
		case !e.Name.Set:
			d.add(ep, `missing required field "name"`)
		case ok && strings.TrimSpace(name) == "":
			d.add(ep+"/name", "name must not be blank")
		case ok:
			if j, dup := first[name]; dup {
				d.add(ep+"/name", "environment variable %q is already declared by environment variable %d of this package: declare each once", name, j)
			} else {
				first[name] = i
			}
		}
		tpl := d.template(ep, "value", "this environment variable's variables", e.Value, e.Variables)
		d.inputs(ep, e.Variables, tpl.fills(name))
		d.input(ep, "environment variable", name, &e.Input, tpl, "")
	}
}

// transport checks a package's transport.
func (d *serverDecoder) transport(ptr string, p *Package) {
	if !p.HasTransport {
		d.add(ptr, `missing required field "transport": {type: stdio} for a server that speaks over standard input and output`)
		return
	}
	tp := ptr + "/transport"
	typ, ok := d.str(p.TransportType, tp+"/type")
	switch {
	case !p.TransportType.Set:
		d.add(tp, `missing required field "type": stdio, streamable-http or sse`)
	case !ok:
	case typ == TransportStdio:
		if p.TransportURL.Set {
			d.add(tp+"/url", "a stdio transport has no url")
		}
		if len(p.TransportHeaders) > 0 {
			d.add(tp+"/headers", "a stdio transport has no headers")
		}
	case typ == "streamable-http" || typ == "sse":
		u, ok := d.str(p.TransportURL, tp+"/url")
		if !p.TransportURL.Set {
			d.add(tp, "missing required field %q: where the package, once running, serves %s", "url", typ)
		} else if ok {
			if _, msg := serverTemplateNames(u); msg != "" {
				d.add(tp+"/url", "url %q %s", spec.Redact(u), msg)
			} else if parsed, err := url.Parse(fillTemplate(u)); err == nil && parsed.User != nil {
				// As a remote's: a password there would be published,
				// whatever it looks like.
				d.add(tp+"/url", "url %q must not carry user information (user:password@): put a credential in a header clients prompt for", spec.Redact(u))
			}
		}
		first := map[string]int{}
		for j, h := range p.TransportHeaders {
			if h == nil {
				continue
			}
			hp := tp + "/headers/" + strconv.Itoa(j)
			if name, ok := h.Name.String(); ok {
				key := strings.ToLower(name)
				if i, dup := first[key]; dup {
					d.add(hp+"/name", "header %q is already declared by header %d of this transport: declare each header once", name, i)
				} else {
					first[key] = j
				}
			}
			d.header(hp, h)
		}
	default:
		d.add(tp+"/type", "transport type %q must be stdio, streamable-http or sse", typ)
	}
}

// argument checks one runtime or package argument at ptr.
func (d *serverDecoder) argument(ptr string, a *Argument) {
	typ, ok := d.str(a.Type, ptr+"/type")
	name, _ := d.str(a.Name, ptr+"/name")
	d.str(a.ValueHint, ptr+"/valueHint")
	switch {
	case !a.Type.Set:
		d.add(ptr, `missing required field "type": positional or named`)
	case !ok:
	case typ == "named":
		if !a.Name.Set {
			d.add(ptr, `missing required field "name": the flag, such as --port`)
		} else if strings.TrimSpace(name) == "" {
			d.add(ptr+"/name", "name must not be blank")
		}
	case typ == "positional":
		if !a.Value.Set && !a.ValueHint.Set {
			d.add(ptr, "a positional argument needs a value or a valueHint")
		}
		if a.Name.Set {
			name = ""
			d.add(ptr+"/name", "a positional argument has no name: use valueHint to label it")
		}
	default:
		d.add(ptr+"/type", "argument type %q must be positional or named", typ)
	}
	label := name
	if label == "" {
		label, _ = a.ValueHint.String()
	}
	tpl := d.template(ptr, "value", "this argument's variables", a.Value, a.Variables)
	d.inputs(ptr, a.Variables, tpl.fills(label))
	d.input(ptr, "argument", label, &a.Input, tpl, "")
}

// template checks the value of a header, an environment variable or an
// argument at ptr against the variables declared for it (called declaredIn
// in messages), and returns it parsed: nil when it is absent or no
// template.
func (d *serverDecoder) template(ptr, field, declaredIn string, value Str, vars []Var) *serverTemplate {
	v, ok := d.str(value, ptr+"/"+field)
	if !ok {
		d.matchVariables(ptr, field, declaredIn, nil, vars)
		return nil
	}
	names, msg := serverTemplateNames(v)
	if msg != "" {
		d.add(ptr+"/"+field, "%s %s", field, msg)
		return nil
	}
	d.matchVariables(ptr, field, declaredIn, names, vars)
	return &serverTemplate{names: names, vars: vars}
}
