package discovery

import (
	"fmt"
	"maps"
	"slices"
	"strconv"

	"github.com/signpost-dev/signpost/schemas"
)

// This file decodes a server declaration, a servers: item or a v1 card,
// into a Decl: the one place of the package that reads decoded JSON by
// member name. Declare's rules read the Decl's fields. A member of the
// wrong type is decoded as what it is (see Str) rather than dropped, for
// the rules say so; the schema of the declarations has normally said it
// first.

// Decl is a server declaration decoded: the members the rules read,
// typed, and the values a card publishes as they are declared.
type Decl struct {
	// Raw is the declaration as written: what the credential scan reads,
	// and what the loader holds to the value limit.
	Raw any
	// Object is false when the declaration is not a JSON object: nothing
	// else is set.
	Object bool

	Name, Version, Description, Title, WebsiteURL Str
	AICatalogIdentifier                           Str
	CardURL, CardMediaType                        Str
	// PrivacyPolicyURL and TermsOfServiceURL are privacyPolicyUrl and
	// termsOfServiceUrl: the server's own policies, over the site's.
	PrivacyPolicyURL, TermsOfServiceURL Str
	// HasQueries says whether representativeQueries is there, whatever
	// its value; Queries are its items when it is an array.
	HasQueries bool
	Queries    []Str
	// DraftPath and V1Path are card.draftPath and card.v1Path.
	DraftPath, V1Path Str
	// Subfolder is repository.subfolder.
	Subfolder Str
	// HasCard, HasRepository, HasIcons, HasRemotes, HasPackages and
	// HasMeta say which of card, repository, icons, remotes, packages and
	// _meta are there, whatever their value.
	HasCard, HasRepository, HasIcons, HasRemotes, HasPackages, HasMeta bool
	// Published are the members a card publishes as they are declared.
	Published CardValues
	// MetaKeys are the keys of _meta, sorted.
	MetaKeys []string
	// Remotes are the items of remotes, nil for one that is not an object.
	Remotes []*Remote
	// Packages are the items of packages, nil for one that is not an
	// object.
	Packages []*Package
}

// CardValues are the members of a declaration a card publishes as they
// are: each nil when it is absent or not an object (an array for icons and
// remotes).
type CardValues struct {
	Repository, Meta         map[string]any
	Icons, Remotes, Packages []any
}

// Str is a member that should be a string.
type Str struct {
	Value string // the member, when it is a string
	Set   bool   // whether the member is there, whatever its value
	// Kind is the JSON type of a member that is there but not a string
	// (schemas.KindOf); "" for a string.
	Kind string
}

// String returns the member and true when it is a string.
func (s Str) String() (string, bool) { return s.Value, s.Set && s.Kind == "" }

// Remote is one item of remotes.
type Remote struct {
	// Type is the transport: streamable-http or sse.
	Type Str
	URL  Str
	// Variables are the members of variables, sorted by name; nil when it
	// is absent or not an object.
	Variables []Var
	// Headers are the items of headers, nil for one that is not an
	// object.
	Headers []*Header
}

// Var is one member of a remote's or a header's variables.
type Var struct {
	Name  string
	Input *Input // nil when the member is not an object
}

// Header is one header of a remote: an Input with a name, and variables
// of its own.
type Header struct {
	Name Str
	Input
	Variables []Var // as Remote.Variables
}

// Input is what a header and a variable hold.
type Input struct {
	// IsSecret and IsRequired are set when isSecret and isRequired are
	// true.
	IsSecret, IsRequired bool
	Value, Default       Str
	// Description is description.
	Description Str
	// HasChoices says whether choices is there, whatever its value;
	// Choices are its items when it is an array.
	HasChoices bool
	Choices    []Str
}

// Package is one item of packages: a local server as the registry's
// server.json describes it, which a client installs and runs.
type Package struct {
	// RegistryType is npm, pypi, oci, nuget or mcpb.
	RegistryType, RegistryBaseURL, Identifier, Version Str
	FileSHA256, RuntimeHint                            Str
	// HasTransport says whether transport is there; TransportType and
	// TransportURL are its type and url, TransportHeaders its headers.
	HasTransport                bool
	TransportType, TransportURL Str
	TransportHeaders            []*Header
	// RuntimeArguments and PackageArguments are the items of
	// runtimeArguments and packageArguments, nil for one that is not an
	// object.
	RuntimeArguments, PackageArguments []*Argument
	// EnvironmentVariables are the items of environmentVariables, nil for
	// one that is not an object.
	EnvironmentVariables []*Header
}

// Argument is one command-line argument of a package: positional (a value
// on its own) or named (a flag, and its value if it has one).
type Argument struct {
	// Type is positional or named; Name is a named argument's flag, such
	// as --port; ValueHint a positional argument's label.
	Type, Name, ValueHint Str
	Input
	Variables []Var // as Remote.Variables
}

// varsOf finds a variable by name.
func varsOf(vars []Var, name string) (Var, bool) {
	for _, v := range vars {
		if v.Name == name {
			return v, true
		}
	}
	return Var{}, false
}

// DecodeDecl decodes a server declaration: a decoded JSON value, as the
// loader reads a servers: item. It never fails: what is wrong is for
// Declare to say.
func DecodeDecl(v any) Decl {
	d := Decl{Raw: v}
	m, _ := v.(map[string]any)
	if m == nil {
		return d
	}
	d.Object = true
	d.Name = strOf(m, "name")
	d.Version = strOf(m, "version")
	d.Description = strOf(m, "description")
	d.Title = strOf(m, "title")
	d.WebsiteURL = strOf(m, "websiteUrl")
	d.AICatalogIdentifier = strOf(m, "aiCatalogIdentifier")
	d.CardURL = strOf(m, "cardUrl")
	d.CardMediaType = strOf(m, "cardMediaType")
	d.PrivacyPolicyURL = strOf(m, "privacyPolicyUrl")
	d.TermsOfServiceURL = strOf(m, "termsOfServiceUrl")
	_, d.HasQueries = m["representativeQueries"]
	for _, q := range arrayOf(m, "representativeQueries") {
		d.Queries = append(d.Queries, strValue(q))
	}
	card, hasCard := m["card"]
	d.HasCard = hasCard
	if card, ok := card.(map[string]any); ok {
		d.DraftPath = strOf(card, "draftPath")
		d.V1Path = strOf(card, "v1Path")
	}
	_, d.HasRepository = m["repository"]
	_, d.HasIcons = m["icons"]
	_, d.HasRemotes = m["remotes"]
	_, d.HasPackages = m["packages"]
	_, d.HasMeta = m["_meta"]
	d.Published = CardValues{
		Repository: objectOf(m, "repository"),
		Meta:       objectOf(m, "_meta"),
		Icons:      arrayOf(m, "icons"),
		Remotes:    arrayOf(m, "remotes"),
		Packages:   arrayOf(m, "packages"),
	}
	d.Subfolder = strOf(d.Published.Repository, "subfolder")
	d.MetaKeys = slices.Sorted(maps.Keys(d.Published.Meta))
	for _, r := range d.Published.Remotes {
		d.Remotes = append(d.Remotes, decodeRemote(r))
	}
	for _, p := range d.Published.Packages {
		d.Packages = append(d.Packages, decodePackage(p))
	}
	return d
}

func decodePackage(v any) *Package {
	m, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	p := &Package{
		RegistryType:    strOf(m, "registryType"),
		RegistryBaseURL: strOf(m, "registryBaseUrl"),
		Identifier:      strOf(m, "identifier"),
		Version:         strOf(m, "version"),
		FileSHA256:      strOf(m, "fileSha256"),
		RuntimeHint:     strOf(m, "runtimeHint"),
	}
	t, hasTransport := m["transport"]
	p.HasTransport = hasTransport
	if t, ok := t.(map[string]any); ok {
		p.TransportType = strOf(t, "type")
		p.TransportURL = strOf(t, "url")
		p.TransportHeaders = decodeHeaders(t)
	}
	p.RuntimeArguments = decodeArguments(m, "runtimeArguments")
	p.PackageArguments = decodeArguments(m, "packageArguments")
	for _, e := range arrayOf(m, "environmentVariables") {
		p.EnvironmentVariables = append(p.EnvironmentVariables, decodeHeader(e))
	}
	return p
}

func decodeArguments(m map[string]any, k string) []*Argument {
	var out []*Argument
	for _, a := range arrayOf(m, k) {
		am, ok := a.(map[string]any)
		if !ok {
			out = append(out, nil)
			continue
		}
		out = append(out, &Argument{
			Type: strOf(am, "type"), Name: strOf(am, "name"), ValueHint: strOf(am, "valueHint"),
			Input: decodeInput(am), Variables: decodeVars(am),
		})
	}
	return out
}

// decodeHeaders decodes the headers of a remote or a package's transport.
func decodeHeaders(m map[string]any) []*Header {
	var out []*Header
	for _, h := range arrayOf(m, "headers") {
		out = append(out, decodeHeader(h))
	}
	return out
}

// decodeHeader decodes a header or an environment variable: a named input
// with variables of its own; nil for one that is not an object.
func decodeHeader(v any) *Header {
	hm, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	return &Header{Name: strOf(hm, "name"), Input: decodeInput(hm), Variables: decodeVars(hm)}
}

func decodeRemote(v any) *Remote {
	m, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	return &Remote{Type: strOf(m, "type"), URL: strOf(m, "url"), Variables: decodeVars(m), Headers: decodeHeaders(m)}
}

// decodeVars decodes the variables of a remote or a header.
func decodeVars(m map[string]any) []Var {
	vars := objectOf(m, "variables")
	if vars == nil {
		return nil
	}
	out := make([]Var, 0, len(vars))
	for _, k := range slices.Sorted(maps.Keys(vars)) {
		v := Var{Name: k}
		if in, ok := vars[k].(map[string]any); ok {
			i := decodeInput(in)
			v.Input = &i
		}
		out = append(out, v)
	}
	return out
}

func decodeInput(m map[string]any) Input {
	in := Input{IsSecret: m["isSecret"] == true, IsRequired: m["isRequired"] == true, Value: strOf(m, "value"), Default: strOf(m, "default"), Description: strOf(m, "description")}
	_, in.HasChoices = m["choices"]
	for _, c := range arrayOf(m, "choices") {
		in.Choices = append(in.Choices, strValue(c))
	}
	return in
}

// declFromCard decodes a v1 server card (a decoded JSON document) as the
// declaration it makes: the card without "$schema", which must name the v1
// server card schema.
func declFromCard(card any) (Decl, []Problem) {
	m, ok := card.(map[string]any)
	if !ok {
		return DecodeDecl(nil), []Problem{{Message: "a server card must be a JSON object, got " + schemas.KindOf(card)}}
	}
	var ps []Problem
	switch sch, present := m["$schema"]; {
	case !present:
		ps = append(ps, Problem{Message: `missing required field "$schema": a v1 server card names ` + serverCardSchemaURI})
	case sch != serverCardSchemaURI:
		ps = append(ps, Problem{Pointer: "/$schema", Message: fmt.Sprintf("$schema %s is not the v1 server card schema %s", serverQuote(sch), serverCardSchemaURI)})
	}
	item := make(map[string]any, len(m))
	for k, v := range m {
		if k != "$schema" {
			item[k] = v
		}
	}
	return DecodeDecl(item), ps
}

// strOf decodes the member k of m (nil reads as an empty object).
func strOf(m map[string]any, k string) Str {
	v, ok := m[k]
	if !ok {
		return Str{}
	}
	return strValue(v)
}

func strValue(v any) Str {
	if s, ok := v.(string); ok {
		return Str{Value: s, Set: true}
	}
	return Str{Set: true, Kind: schemas.KindOf(v)}
}

func objectOf(m map[string]any, k string) map[string]any {
	o, _ := m[k].(map[string]any)
	return o
}

func arrayOf(m map[string]any, k string) []any {
	a, _ := m[k].([]any)
	return a
}

func serverQuote(v any) string {
	if s, ok := v.(string); ok {
		return strconv.Quote(s)
	}
	return schemas.KindOf(v)
}
