package importer

import (
	"fmt"
	"maps"
	"slices"
	"strconv"

	"github.com/signpost-dev/signpost/schemas"
)

// This file decodes the documents of import server, as encoding/json
// decodes a file (numbers as json.Number), into the typed values that
// server.go and server_fields.go read: the one place of the importer that
// reads a server.json document by member name. A foreign document may hold
// anything, and the import says what it drops and why, so a decoded value
// keeps what the rules need to say it: whether each member is there, its
// value as written (see member), and the members the importer does not
// know. Tool schemas (mcp.go) are JSON Schema, read as they are.

// member is a member of an object of a foreign document: set when the
// object has it, v its value (nil for null).
type member struct {
	set bool
	v   any
}

func memberOf(m map[string]any, k string) member {
	v, ok := m[k]
	return member{set: ok, v: v}
}

// str returns the member's value when it is a string.
func (m member) str() (string, bool) {
	s, ok := m.v.(string)
	return s, ok
}

// boolean returns the member's value when it is a boolean.
func (m member) boolean() (bool, bool) {
	b, ok := m.v.(bool)
	return b, ok
}

// stringList returns the member's value as a fresh []any of strings, when
// it is one.
func (m member) stringList() ([]any, bool) {
	l, ok := m.v.([]any)
	if !ok {
		return nil, false
	}
	out := make([]any, len(l))
	for i, e := range l {
		s, ok := e.(string)
		if !ok {
			return nil, false
		}
		out[i] = s
	}
	return out, true
}

// null reports whether the member is absent or null.
func (m member) null() bool { return m.v == nil }

// kind is the JSON type of the member's value, for a message.
func (m member) kind() string { return schemas.KindOf(m.v) }

// sourcedDoc is one document of a file and the source that names it.
type sourcedDoc struct {
	source string
	v      any
}

// registryDocs finds the documents of a file's value v: a single
// server.json document, a JSON array of them, or a registry API response
// (a list {"servers": [...]} or a single {"server": {...}, "_meta":
// {...}}). The error is for a value of none of these shapes.
func registryDocs(file string, v any) ([]sourcedDoc, error) {
	var out []sourcedDoc
	switch t := v.(type) {
	case []any:
		for i, e := range t {
			out = append(out, sourcedDoc{file + "#/" + strconv.Itoa(i), e})
		}
	case map[string]any:
		list, isList := t["servers"]
		if _, named := t["name"]; !isList || named {
			return []sourcedDoc{{file, t}}, nil
		}
		arr, ok := list.([]any)
		if !ok {
			return nil, fmt.Errorf("%s: \"servers\" is %s, not an array of registry entries", file, schemas.KindOf(list))
		}
		for i, e := range arr {
			out = append(out, sourcedDoc{file + "#/servers/" + strconv.Itoa(i), e})
		}
	default:
		return nil, fmt.Errorf("%s: the JSON value is %s, not a server.json object, an array of them or a registry server list", file, schemas.KindOf(v))
	}
	return out, nil
}

// registryEntry is one document: a server.json object, or a registry API
// entry {"server": {...}, "_meta": {...}} around one.
type registryEntry struct {
	// kind is the JSON type of a document that is not an object; "" for
	// an object.
	kind string
	// wrapped is set for a registry API entry: an object with "server"
	// and without "name". serverKind is the JSON type of its "server" when
	// that is not an object; wrapper is what is around it.
	wrapped    bool
	serverKind string
	wrapper    entryWrapper
	server     serverDoc
}

// entryWrapper is what a registry API entry holds around its server.
type entryWrapper struct {
	meta metaDoc
	// others are its members but server and _meta, sorted.
	others []string
}

// serverDoc is a server.json object.
type serverDoc struct {
	name, version, description, title member
	// websiteURL is websiteUrl, websiteURLLegacy website_url.
	websiteURL, websiteURLLegacy member
	// versionDetail is version_detail, and versionDetailVersion its
	// version when it is an object (the first registry format).
	versionDetail, versionDetailVersion member
	repository                          repositoryDoc
	icons                               iconsDoc
	remotes                             remotesDoc
	packages                            packagesDoc
	meta                                metaDoc
	// unknown are the members the importer does not know, sorted.
	unknown []string
}

// registryServerKeys are the server.json fields the importer knows; the
// others are dropped with a note.
var registryServerKeys = []string{"$schema", "name", "version", "version_detail", "description", "title", "websiteUrl", "website_url", "repository", "icons", "remotes", "packages", "_meta"}

// repositoryDoc is repository.
type repositoryDoc struct {
	set                        bool
	kind                       string // the JSON type of one that is not an object
	empty                      bool   // {}
	url, source, subfolder, id member
	unknown                    []string // sorted
}

// listDoc is a member whose value should be an array: whether it is set,
// the JSON type of a value that is not an array, and the items of one
// that is, each decoded.
type listDoc[T any] struct {
	set   bool
	kind  string // the JSON type of one that is not an array
	items []T
}

// decodeList decodes v as a listDoc, each item by item.
func decodeList[T any](v member, item func(any) T) listDoc[T] {
	d := listDoc[T]{set: v.set}
	l, ok := v.v.([]any)
	if !ok {
		d.kind = v.kind()
		return d
	}
	for _, e := range l {
		d.items = append(d.items, item(e))
	}
	return d
}

// iconsDoc is icons.
type iconsDoc = listDoc[iconDoc]

// iconDoc is one item of icons.
type iconDoc struct {
	kind                        string // the JSON type of one that is not an object
	src, mimeType, sizes, theme member
	unknown                     []string // sorted
}

// remotesDoc is remotes.
type remotesDoc = listDoc[remoteDoc]

// remoteDoc is one item of remotes.
type remoteDoc struct {
	kind string // the JSON type of one that is not an object
	// typ is type, transportType transport_type (the first registry
	// format).
	typ, transportType, url member
	headers                 headersDoc
	variables               varsDoc
	protocolVersions        member // supportedProtocolVersions
	unknown                 []string
}

// headersDoc is the headers of a remote.
type headersDoc = listDoc[inputDoc]

// varsDoc is the variables of a remote or a header.
type varsDoc struct {
	set  bool
	kind string // the JSON type of one that is not an object
	vars []namedInput
}

// namedInput is a variable: its key and its input.
type namedInput struct {
	key string
	in  inputDoc
}

// inputDoc is an Input: a header, or a variable.
type inputDoc struct {
	kind string // the JSON type of one that is not an object
	name member
	// The members an input may have: isRequiredLegacy and isSecretLegacy
	// are is_required and is_secret (the first registry format).
	description, def, placeholder, value, choices, format  member
	isRequired, isSecret, isRequiredLegacy, isSecretLegacy member
	variables                                              varsDoc
	// unknown are the members no input has, sorted.
	unknown []string
}

// inputKeys are the members an input may have.
var inputKeys = []string{"name", "description", "default", "placeholder", "value", "choices", "format", "isRequired", "isSecret", "is_required", "is_secret", "variables"}

// packagesDoc is packages.
type packagesDoc = listDoc[packageDoc]

// packageDoc is one item of packages.
type packageDoc struct {
	kind string // the JSON type of one that is not an object
	// The string members of a package.
	registryType, registryBaseURL, identifier, version, fileSHA256, runtimeHint member
	// transport is the transport as it is, transportKind its JSON type
	// when it is not an object, and transportType, transportURL and
	// transportHeaders its members when it is one.
	transportKind                          string
	transport, transportType, transportURL member
	transportHeaders                       headersDoc
	transportUnknown                       []string // sorted
	runtimeArguments, packageArguments     argumentsDoc
	environmentVariables                   headersDoc
	unknown                                []string // sorted
}

// argumentsDoc is the runtimeArguments or packageArguments of a package.
type argumentsDoc = listDoc[argumentDoc]

// argumentDoc is one argument: its own members, and those of an input
// (whose unknown members leave these out).
type argumentDoc struct {
	typ, valueHint, isRepeated member
	in                         inputDoc
}

// packageKeys are the members a package may have.
var packageKeys = []string{"registryType", "registryBaseUrl", "identifier", "version", "fileSha256", "runtimeHint", "transport", "runtimeArguments", "packageArguments", "environmentVariables"}

// metaDoc is a _meta object.
type metaDoc struct {
	set     bool
	kind    string // the JSON type of one that is not an object
	members []metaMember
}

// metaMember is a member of _meta: its key, its value as it is, and, for
// the registry's own bookkeeping (registryMetaOfficial), the status it
// gives.
type metaMember struct {
	key      string
	value    any
	official string
}

// decodeEntry decodes one document of a file.
func decodeEntry(v any) registryEntry {
	doc, ok := v.(map[string]any)
	if !ok {
		return registryEntry{kind: schemas.KindOf(v)}
	}
	var e registryEntry
	if inner, wrapped := doc["server"]; wrapped {
		if _, named := doc["name"]; !named {
			e.wrapped = true
			m, ok := inner.(map[string]any)
			if !ok {
				e.serverKind = schemas.KindOf(inner)
				return e
			}
			e.wrapper.meta = decodeMeta(memberOf(doc, "_meta"))
			e.wrapper.others = otherKeys(doc, "server", "_meta")
			doc = m
		}
	}
	e.server = decodeServer(doc)
	return e
}

func decodeServer(doc map[string]any) serverDoc {
	s := serverDoc{
		name:             memberOf(doc, "name"),
		version:          memberOf(doc, "version"),
		description:      memberOf(doc, "description"),
		title:            memberOf(doc, "title"),
		websiteURL:       memberOf(doc, "websiteUrl"),
		websiteURLLegacy: memberOf(doc, "website_url"),
		versionDetail:    memberOf(doc, "version_detail"),
		repository:       decodeRepository(memberOf(doc, "repository")),
		icons:            decodeIcons(memberOf(doc, "icons")),
		remotes:          decodeRemotes(memberOf(doc, "remotes")),
		packages:         decodePackages(memberOf(doc, "packages")),
		meta:             decodeMeta(memberOf(doc, "_meta")),
		unknown:          otherKeys(doc, registryServerKeys...),
	}
	if vd, ok := s.versionDetail.v.(map[string]any); ok {
		s.versionDetailVersion = memberOf(vd, "version")
	}
	return s
}

func decodeRepository(v member) repositoryDoc {
	r := repositoryDoc{set: v.set}
	m, ok := v.v.(map[string]any)
	if !ok {
		r.kind = v.kind()
		return r
	}
	r.empty = len(m) == 0
	r.url, r.source = memberOf(m, "url"), memberOf(m, "source")
	r.subfolder, r.id = memberOf(m, "subfolder"), memberOf(m, "id")
	r.unknown = otherKeys(m, "url", "source", "subfolder", "id")
	return r
}

func decodeIcons(v member) iconsDoc {
	return decodeList(v, func(e any) iconDoc {
		m, ok := e.(map[string]any)
		if !ok {
			return iconDoc{kind: schemas.KindOf(e)}
		}
		return iconDoc{
			src: memberOf(m, "src"), mimeType: memberOf(m, "mimeType"), sizes: memberOf(m, "sizes"), theme: memberOf(m, "theme"),
			unknown: otherKeys(m, "src", "mimeType", "sizes", "theme"),
		}
	})
}

func decodeRemotes(v member) remotesDoc {
	return decodeList(v, func(e any) remoteDoc {
		m, ok := e.(map[string]any)
		if !ok {
			return remoteDoc{kind: schemas.KindOf(e)}
		}
		r := remoteDoc{
			typ: memberOf(m, "type"), transportType: memberOf(m, "transport_type"), url: memberOf(m, "url"),
			variables:        decodeVars(memberOf(m, "variables")),
			protocolVersions: memberOf(m, "supportedProtocolVersions"),
			unknown:          otherKeys(m, "type", "transport_type", "url", "headers", "variables", "supportedProtocolVersions"),
		}
		if h := memberOf(m, "headers"); h.set {
			r.headers = decodeInputList(h)
		}
		return r
	})
}

func decodeVars(v member) varsDoc {
	vars := varsDoc{set: v.set}
	m, ok := v.v.(map[string]any)
	if !ok {
		vars.kind = v.kind()
		return vars
	}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		vars.vars = append(vars.vars, namedInput{key: k, in: decodeInput(m[k])})
	}
	return vars
}

func decodeInput(v any) inputDoc {
	m, ok := v.(map[string]any)
	if !ok {
		return inputDoc{kind: schemas.KindOf(v)}
	}
	return inputDoc{
		name:             memberOf(m, "name"),
		description:      memberOf(m, "description"),
		def:              memberOf(m, "default"),
		placeholder:      memberOf(m, "placeholder"),
		value:            memberOf(m, "value"),
		choices:          memberOf(m, "choices"),
		format:           memberOf(m, "format"),
		isRequired:       memberOf(m, "isRequired"),
		isSecret:         memberOf(m, "isSecret"),
		isRequiredLegacy: memberOf(m, "is_required"),
		isSecretLegacy:   memberOf(m, "is_secret"),
		variables:        decodeVars(memberOf(m, "variables")),
		unknown:          otherKeys(m, inputKeys...),
	}
}

func decodePackages(v member) packagesDoc {
	return decodeList(v, func(e any) packageDoc {
		m, ok := e.(map[string]any)
		if !ok {
			return packageDoc{kind: schemas.KindOf(e)}
		}
		pd := packageDoc{
			registryType: memberOf(m, "registryType"), registryBaseURL: memberOf(m, "registryBaseUrl"),
			identifier: memberOf(m, "identifier"), version: memberOf(m, "version"),
			fileSHA256: memberOf(m, "fileSha256"), runtimeHint: memberOf(m, "runtimeHint"),
			transport:            memberOf(m, "transport"),
			runtimeArguments:     decodeArguments(memberOf(m, "runtimeArguments")),
			packageArguments:     decodeArguments(memberOf(m, "packageArguments")),
			environmentVariables: decodeInputList(memberOf(m, "environmentVariables")),
			unknown:              otherKeys(m, packageKeys...),
		}
		if t, ok := pd.transport.v.(map[string]any); ok {
			pd.transportType, pd.transportURL = memberOf(t, "type"), memberOf(t, "url")
			pd.transportHeaders = decodeInputList(memberOf(t, "headers"))
			pd.transportUnknown = otherKeys(t, "type", "url", "headers")
		} else if pd.transport.set {
			pd.transportKind = pd.transport.kind()
		}
		return pd
	})
}

// decodeInputList decodes an array of inputs: headers, or environment
// variables.
func decodeInputList(v member) headersDoc {
	return decodeList(v, decodeInput)
}

func decodeArguments(v member) argumentsDoc {
	return decodeList(v, func(e any) argumentDoc {
		ad := argumentDoc{in: decodeInput(e)}
		if m, ok := e.(map[string]any); ok {
			ad.typ, ad.valueHint, ad.isRepeated = memberOf(m, "type"), memberOf(m, "valueHint"), memberOf(m, "isRepeated")
			ad.in.unknown = otherKeys(m, append([]string{"type", "valueHint", "isRepeated"}, inputKeys...)...)
		}
		return ad
	})
}

func decodeMeta(v member) metaDoc {
	meta := metaDoc{set: v.set}
	m, ok := v.v.(map[string]any)
	if !ok {
		meta.kind = v.kind()
		return meta
	}
	meta.members = make([]metaMember, 0, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		mm := metaMember{key: k, value: m[k]}
		if k == registryMetaOfficial {
			official, _ := m[k].(map[string]any)
			mm.official, _ = official["status"].(string)
		}
		meta.members = append(meta.members, mm)
	}
	return meta
}

// otherKeys returns the keys of m but known, sorted.
func otherKeys(m map[string]any, known ...string) []string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if !slices.Contains(known, k) {
			out = append(out, k)
		}
	}
	return out
}
