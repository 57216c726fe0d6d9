package export

import (
	"fmt"
	"slices"
	"strings"

	"github.com/signpost-dev/signpost/build/discovery"
)

// maxCommands is the most commands a package is allowed by: its arguments'
// choices, multiplied, may make no more.
const maxCommands = 64

// runtimes are the programs that run a package of each registry type, as
// VS Code writes a server it installs from a registry (docs/policy.md): an
// mcpb bundle is run by the client itself, and has none.
var runtimes = map[string]string{
	discovery.RegistryNPM:   "npx",
	discovery.RegistryPyPI:  "uvx",
	discovery.RegistryOCI:   "docker",
	discovery.RegistryNuGet: "dnx",
}

// packageCommands returns the command lines a client runs a package with,
// each the program and its arguments, sorted: the command VS Code writes
// when it installs the package from a registry, each argument as declared:
//
//	npm    npx [runtime arguments] IDENTIFIER@VERSION [package arguments]
//	pypi   uvx [runtime arguments] IDENTIFIER==VERSION [package arguments]
//	oci    docker run -i --rm [runtime arguments] [-e NAME for each environment
//	       variable] IDENTIFIER[:VERSION] [package arguments]
//	nuget  dnx [runtime arguments] IDENTIFIER@VERSION --yes [-- package arguments]
//
// An argument is its value (a named one, its flag and then its value, or
// the flag alone when it has neither value nor anything to prompt for),
// each {variable} of the value filled with the variable's fixed value or
// each of its choices; an argument without value whose choices list its
// values gives one command per choice. When a user supplies part of the
// command (an argument or variable without a fixed value or choices), the
// package runs no command a policy can name: reason says why, and commands
// is nil. So it is for a package that does not speak stdio (GitHub matches
// serverCommand against stdio servers only), an mcpb bundle, and more than
// maxCommands combinations of choices.
//
// A runtimeHint is not followed: VS Code runs the usual program whatever
// the hint, and the hint's program would take other arguments (python
// runs a module, not example-mcp==1.0.0). hint says so when the hint
// names another program.
func packageCommands(p *discovery.Package) (commands [][]string, reason, hint string) {
	typ, _ := p.RegistryType.String()
	id, _ := p.Identifier.String()
	version, hasVersion := p.Version.String()
	if t, _ := p.TransportType.String(); t != discovery.TransportStdio {
		return nil, fmt.Sprintf("package %s speaks %s, not stdio, and GitHub matches a command against stdio servers only", id, t), ""
	}
	usual, ok := runtimes[typ]
	if !ok {
		return nil, fmt.Sprintf("package %s is an %s bundle, which the client runs itself: no command names it", id, typ), ""
	}
	if h, ok := p.RuntimeHint.String(); ok && h != usual {
		hint = fmt.Sprintf("package %s names the runtime %s, but VS Code runs it with %s, which its serverCommand names: a configuration that runs it with %s is blocked", id, h, usual, h)
	}

	// Each part is a list of alternatives, each a list of tokens.
	var parts [][][]string
	fixed := func(tokens ...string) { parts = append(parts, [][]string{tokens}) }
	if typ == discovery.RegistryOCI {
		fixed("run", "-i", "--rm")
	}
	for _, a := range p.RuntimeArguments {
		alts, why := argumentTokens(a)
		if why != "" {
			return nil, fmt.Sprintf("package %s: %s", id, why), ""
		}
		parts = append(parts, alts)
	}
	if typ == discovery.RegistryOCI {
		for _, e := range p.EnvironmentVariables {
			if name, ok := e.Name.String(); ok {
				fixed("-e", name)
			}
		}
	}
	switch typ {
	case discovery.RegistryNPM:
		fixed(id + "@" + version)
	case discovery.RegistryPyPI:
		fixed(id + "==" + version)
	case discovery.RegistryOCI:
		if hasVersion {
			fixed(id + ":" + version)
		} else {
			fixed(id)
		}
	case discovery.RegistryNuGet:
		fixed(id+"@"+version, "--yes")
		if len(p.PackageArguments) > 0 {
			fixed("--")
		}
	}
	for _, a := range p.PackageArguments {
		alts, why := argumentTokens(a)
		if why != "" {
			return nil, fmt.Sprintf("package %s: %s", id, why), ""
		}
		parts = append(parts, alts)
	}

	lines := [][]string{nil}
	for _, alts := range parts {
		if len(lines)*len(alts) > maxCommands {
			return nil, fmt.Sprintf("package %s: its arguments' choices make more than %d commands", id, maxCommands), ""
		}
		next := make([][]string, 0, len(lines)*len(alts))
		for _, l := range lines {
			for _, alt := range alts {
				next = append(next, append(slices.Clone(l), alt...))
			}
		}
		lines = next
	}
	for _, l := range lines {
		commands = append(commands, append([]string{usual}, l...))
	}
	slices.SortFunc(commands, slices.Compare)
	return slices.CompactFunc(commands, slices.Equal), "", hint
}

// argumentTokens returns the alternatives an argument makes of the
// command line, each its tokens, or why a user completes it.
func argumentTokens(a *discovery.Argument) ([][]string, string) {
	if a == nil {
		return [][]string{nil}, ""
	}
	typ, _ := a.Type.String()
	name, _ := a.Name.String()
	hint, _ := a.ValueHint.String()
	label := name
	if typ != "named" {
		label = hint
	}
	var values []string
	switch value, ok := a.Value.String(); {
	case ok:
		var why string
		if values, why = fillValue(value, a.Variables); why != "" {
			return nil, fmt.Sprintf("argument %s %s", label, why)
		}
	case len(a.Choices) > 0:
		for _, c := range a.Choices {
			if s, ok := c.String(); ok {
				values = append(values, s)
			}
		}
	case typ == "named" && !prompted(a.Input):
		return [][]string{{name}}, "" // a flag alone
	case typ != "named" && !prompted(a.Input):
		return [][]string{{hint}}, "" // VS Code writes the valueHint as it is
	default:
		return nil, fmt.Sprintf("argument %s is for each user to fill in: declare its value, or its choices", label)
	}
	out := make([][]string, len(values))
	for i, v := range values {
		if typ == "named" {
			out[i] = []string{name, v}
		} else {
			out[i] = []string{v}
		}
	}
	return out, ""
}

// prompted reports whether a client asks the user for an argument that
// has no value: VS Code does when the argument has a description or a
// default, and otherwise writes a named argument's flag alone and a
// positional one's valueHint as it is.
func prompted(in discovery.Input) bool {
	return in.Description.Set || in.Default.Set
}

// fillValue returns the values a template makes, each {variable} given its
// fixed value or each of its choices, or why a user completes it.
func fillValue(template string, vars []discovery.Var) ([]string, string) {
	values := []string{template}
	for _, v := range vars {
		ref := "{" + v.Name + "}"
		if !strings.Contains(template, ref) {
			continue
		}
		var fills []string
		switch in := v.Input; {
		case in == nil:
		case in.Value.Set && in.Value.Kind == "":
			fills = []string{in.Value.Value}
		case len(in.Choices) > 0 && !in.IsSecret:
			for _, c := range in.Choices {
				if s, ok := c.String(); ok {
					fills = append(fills, s)
				}
			}
		}
		if len(fills) == 0 {
			return nil, fmt.Sprintf("uses {%s}, which each user fills in: give the variable a value, or its choices", v.Name)
		}
		next := make([]string, 0, len(values)*len(fills))
		for _, val := range values {
			for _, f := range fills {
				next = append(next, strings.ReplaceAll(val, ref, f))
			}
		}
		if len(next) > maxCommands {
			return nil, fmt.Sprintf("makes more than %d values of its variables' choices", maxCommands)
		}
		values = next
	}
	return values, ""
}
