package discovery

// This file reads and checks the servers: declarations; catalogs.go turns
// them into the documents of MCP discovery: each local server's card in two
// forms (the draft card, served as application/mcp-server+json and listed by
// /.well-known/mcp/catalog.json, and the v1 card, served as
// application/mcp-server-card+json and listed by
// /.well-known/ai-catalog.json), and the two catalogs. One URL has one
// Content-Type, so a server declared once is published at one path per media
// type. A server whose card another host serves (cardUrl) is only listed.
//
// The rules read a server declaration decoded once (Decl, decl.go); the
// cards and catalogs are decoded JSON values (map[string]any, []any,
// string, json.Number, bool, nil). The loader turns problems into
// diagnostics and the writer encodes the documents.

import (
	"cmp"
	"fmt"
	"net/url"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/signpost-dev/signpost/build/jcs"
	"github.com/signpost-dev/signpost/build/secrets"
	"github.com/signpost-dev/signpost/build/source"
	"github.com/signpost-dev/signpost/build/spec"
)

// serverToolCatalogType is the media type of the tool catalog entry's data
// (ContentTypeJSON; spelled out so this file stands on its own).
const serverToolCatalogType = "application/json"

// serverCardSchemaURI is the $schema every v1 server card carries.
const serverCardSchemaURI = "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json"

// Where a server's cards go when its declaration does not say.
const (
	serverDraftPathPrefix = "/.well-known/mcp/servers/"
	serverV1PathPrefix    = "/.well-known/mcp/server-cards/"
)

// Limits of the server card.
const (
	serverNameMin        = 3
	serverNameMax        = 200
	serverDescriptionMax = 100
	serverTitleMax       = 100
)

// Server is one declared MCP server.
type Server struct {
	// Name is reverse-DNS/name, such as com.example/weather.
	Name        string
	Version     string
	Description string // trimmed
	Title       string // trimmed; optional
	WebsiteURL  string
	// Repository, Icons, Remotes and Meta (the card's _meta) are the
	// declared values, published as they are.
	Repository map[string]any
	Icons      []any
	Remotes    []any
	Meta       map[string]any
	// Endpoints are the remotes decoded (decl.go), in the order declared:
	// what a reader of a remote's URL, variables or headers reads. An item
	// of remotes that is not an object is nil here.
	Endpoints []*Remote
	// Packages are the declared packages, published as they are in the
	// registry's server.json (not in the cards, which describe remote
	// endpoints); Locals are the same decoded, in the order declared (nil
	// for an item that is not an object).
	Packages []any
	Locals   []*Package
	// DraftPath and V1Path are where this site publishes the draft and the
	// v1 card; empty for a cross-host server. Empty on a local server means
	// the default path.
	DraftPath, V1Path string
	// CardURL and CardMediaType are set for a cross-host server, whose card
	// another host serves: it is listed in the catalogs and gets no card
	// here. CardMediaType is ContentTypeServerCardDraft or
	// ContentTypeServerCardV1; empty means the draft type.
	CardURL, CardMediaType string
	// AICatalogIdentifier is the identifier the declaration gives the
	// server's AI catalog entry; empty means the derived one (see
	// AIIdentifiers).
	AICatalogIdentifier string
	// RepresentativeQueries are what a user might ask that the server
	// serves, 2 to 5, trimmed, as declared: its ARD entry publishes them.
	RepresentativeQueries []string
	// PrivacyPolicyURL and TermsOfServiceURL are the server's own
	// policies, https URLs; empty means the site's (see PolicyURLs).
	PrivacyPolicyURL, TermsOfServiceURL string
}

// crossHost reports whether the server's card is served by another host.
func (s *Server) CrossHost() bool { return s.CardURL != "" }

// draftPath is where the server's draft card goes, default included.
func (s *Server) DraftRoute() string {
	return cmp.Or(s.DraftPath, serverDraftPathPrefix+s.Name+".json")
}

// v1Path is where the server's v1 card goes, default included.
func (s *Server) V1Route() string {
	return cmp.Or(s.V1Path, serverV1PathPrefix+s.Name+".json")
}

// cardMediaType is the media type of a cross-host server's card.
func (s *Server) CardType() string {
	return cmp.Or(s.CardMediaType, spec.ContentTypeServerCardDraft)
}

// Problem is one thing wrong with a server declaration: Pointer is
// relative to the server item ("" is the item itself), Message one line.
type Problem struct{ Pointer, Message string }

var (
	serverNameRe = regexp.MustCompile(`^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$`)
	// A {variable} of a URL or header template, and of variables.
	serverVarNameRe = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	// _meta keys: [PREFIX/]NAME, PREFIX being dot-separated labels.
	serverMetaLabelRe = regexp.MustCompile(`^[A-Za-z]([A-Za-z0-9-]*[A-Za-z0-9])?$`)
	serverMetaNameRe  = regexp.MustCompile(`^[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?$`)
)

// Declare makes the Server a declaration declares (a schema-valid one,
// normally; anything else gives problems, never a panic), and applies the
// rules the schema cannot express:
//   - version is exact, never a range or a tag (^1.2, ~1.2, >=1, 1.x, *,
//     latest, 1.2 - 1.4, a || b);
//   - description and title are at most 100 characters (not bytes) and not
//     blank; both are trimmed;
//   - remote URLs are https with a literal scheme, plain http only for
//     loopback hosts (localhost, *.localhost, 127.0.0.0/8, ::1), and carry no user
//     information;
//   - every {variable} of a remote URL is declared in the remote's
//     variables and every variable there is used, and likewise for a
//     header's value and the header's own variables; variable names are
//     letters, digits and _, not starting with a digit;
//   - a secret input (isSecret: true) carries no default and no choices,
//     and a value only when it is a template that leaves a variable for
//     clients to prompt for, as in "Bearer {token}";
//   - an Authorization, Proxy-Authorization or Cookie header that is not
//     secret carries no literal value or default;
//   - no credential material anywhere in the item (secrets.Find), nor in the
//     value, default or choices of an input whose name says it holds a
//     secret (X-API-Key, api_key, token, ...);
//   - repository.subfolder is a clean relative path; _meta keys are
//     [PREFIX/]NAME and do not use a prefix MCP reserves;
//   - card paths, declared or default, are absolute, end in .json and have
//     no query, fragment, empty, "." or ".." segments;
//   - a package pins what it runs (see pkg): an exact version, an image's
//     tag or digest, a bundle's SHA-256; its arguments, environment
//     variables and transport headers follow the rules of inputs above;
//   - a cross-host server (cardUrl) has an https card URL (plain http only
//     for loopback hosts), no card paths and no other local-card field, and
//     may leave out version and description; cardMediaType needs cardUrl.
//
// The Server is filled in as far as the declaration allows even when there
// are problems. Problems are sorted by Pointer, then Message. Messages never
// repeat the value of a header or input.
func Declare(decl *Decl) (*Server, []Problem) {
	var d serverDecoder
	s := d.declare(decl)
	return s, d.finish()
}

type serverDecoder struct {
	problems []Problem
	// secretAt holds the pointers secrets.Find reported, so that no value is
	// reported twice as credential material.
	secretAt map[string]bool
}

func (d *serverDecoder) add(ptr, format string, args ...any) {
	d.problems = append(d.problems, Problem{Pointer: ptr, Message: fmt.Sprintf(format, args...)})
}

func (d *serverDecoder) finish() []Problem {
	if len(d.problems) == 0 {
		return nil
	}
	slices.SortFunc(d.problems, func(a, b Problem) int {
		return cmp.Or(strings.Compare(a.Pointer, b.Pointer), strings.Compare(a.Message, b.Message))
	})
	return slices.Compact(d.problems)
}

// str returns the member when it is a string; one of another type is a
// problem at ptr.
func (d *serverDecoder) str(v Str, ptr string) (string, bool) {
	if !v.Set {
		return "", false
	}
	if v.Kind != "" {
		d.add(ptr, "must be a string, got %s", v.Kind)
	}
	return v.String()
}

func (d *serverDecoder) declare(m *Decl) *Server {
	s := &Server{
		Repository: m.Published.Repository,
		Icons:      m.Published.Icons,
		Remotes:    m.Published.Remotes,
		Meta:       m.Published.Meta,
		Endpoints:  m.Remotes,
		Packages:   m.Published.Packages,
		Locals:     m.Packages,
	}
	if !m.Object {
		d.add("", "a server must be an object with at least a name")
		return s
	}

	// Credential material first, so later checks can avoid saying it again.
	d.secretAt = map[string]bool{}
	for _, f := range secrets.Find(m.Raw) {
		d.secretAt[f.Pointer] = true
		d.add(f.Pointer, "%s: remove it; published documents are public", f.Reason)
	}

	name, ok := d.str(m.Name, "/name")
	nameOK := false
	switch {
	case !ok:
		if !m.Name.Set {
			d.add("", `missing required field "name"`)
		}
	case utf8.RuneCountInString(name) < serverNameMin || utf8.RuneCountInString(name) > serverNameMax:
		d.add("/name", "name %q must be %d to %d characters long", name, serverNameMin, serverNameMax)
	case !serverNameRe.MatchString(name):
		d.add("/name", "name %q must be reverse-DNS/name, such as com.example/weather: letters, digits, '.' and '-', one '/', then letters, digits, '.', '_' and '-'", name)
	default:
		nameOK = true
	}
	s.Name = name
	if id, ok := d.str(m.AICatalogIdentifier, "/aiCatalogIdentifier"); ok {
		s.AICatalogIdentifier = id
		if !AIIdentifierRe.MatchString(id) {
			d.add("/aiCatalogIdentifier", "aiCatalogIdentifier %q must be urn:air:PUBLISHER:mcp:NAME, NAME being letters, digits, '.', '_' and '-', such as urn:air:example.com:mcp:weather", id)
		}
	}

	cross := m.CardURL.Set
	if cross {
		d.crossHost(s, m)
	} else {
		if m.CardMediaType.Set {
			d.add("/cardMediaType", "cardMediaType needs cardUrl: it is the media type of a card another host serves")
		}
		for _, f := range []struct {
			name string
			v    Str
		}{{"version", m.Version}, {"description", m.Description}} {
			if !f.v.Set {
				d.add("", "missing required field %q", f.name)
			}
		}
	}

	if v, ok := d.str(m.Version, "/version"); ok {
		s.Version = v
		switch {
		case v == "":
			d.add("/version", "version must not be empty: give the exact version the server runs, such as 1.4.0")
		case serverVersionIsRange(v):
			d.add("/version", "version %q is a range or a tag, not an exact version: give the version the server runs, such as 1.4.0", v)
		}
	}
	s.Description = d.text(m.Description, "description", serverDescriptionMax)
	s.Title = d.text(m.Title, "title", serverTitleMax)
	s.WebsiteURL, _ = d.str(m.WebsiteURL, "/websiteUrl")
	s.RepresentativeQueries = d.queries(m)
	s.PrivacyPolicyURL = d.policyURL(m.PrivacyPolicyURL, "privacyPolicyUrl")
	s.TermsOfServiceURL = d.policyURL(m.TermsOfServiceURL, "termsOfServiceUrl")

	if cross {
		return s // the local-card fields are reported as not allowed
	}
	if sub, ok := m.Subfolder.String(); ok && !serverCleanRelPath(sub) {
		d.add("/repository/subfolder", "subfolder %q must be a clean relative path inside the repository, such as servers/weather", sub)
	}
	for i, r := range m.Remotes {
		if r != nil {
			d.remote("/remotes/"+strconv.Itoa(i), r)
		}
	}
	for i, p := range m.Packages {
		if p != nil {
			d.pkg("/packages/"+strconv.Itoa(i), p)
		}
	}
	for _, k := range m.MetaKeys {
		if msg := serverMetaKeyProblem(k); msg != "" {
			d.add("/_meta/"+source.EscapePointer(k), "%s", msg)
		}
	}
	d.cardPaths(s, m, nameOK)
	return s
}

// Representative queries of an ARD entry: ARD v0.91 asks for 2 to 5.
const (
	queriesMin   = 2
	queriesMax   = 5
	queryLenMax  = 200
	queriesField = "representativeQueries"
)

// queries reads representativeQueries: 2 to 5 strings, each trimmed, not
// blank, at most queryLenMax characters, no two the same.
func (d *serverDecoder) queries(m *Decl) []string {
	if !m.HasQueries {
		return nil
	}
	if n := len(m.Queries); n < queriesMin || n > queriesMax {
		d.add("/"+queriesField, "%s must list %d to %d queries a user might ask that the server serves, got %d", queriesField, queriesMin, queriesMax, n)
	}
	var out []string
	seen := map[string]bool{}
	for i, q := range m.Queries {
		ptr := "/" + queriesField + "/" + strconv.Itoa(i)
		t, ok := d.str(q, ptr)
		if !ok {
			continue
		}
		t = strings.TrimSpace(t)
		switch n := utf8.RuneCountInString(t); {
		case t == "":
			d.add(ptr, "a representative query must not be blank")
			continue
		case n > queryLenMax:
			d.add(ptr, "a representative query is %d characters long; write one a user would type, at most %d", n, queryLenMax)
		case seen[t]:
			d.add(ptr, "the representative query %q is listed twice", t)
			continue
		}
		seen[t] = true
		out = append(out, t)
	}
	return out
}

// policyURL reads privacyPolicyUrl or termsOfServiceUrl: an absolute
// https URL, which the AI catalog publishes (so valid input to JCS).
func (d *serverDecoder) policyURL(v Str, k string) string {
	u, ok := d.str(v, "/"+k)
	if !ok {
		return ""
	}
	if msg := PolicyURLProblem(u); msg != "" {
		d.add("/"+k, "%s %q %s", k, spec.Redact(u), msg)
		return ""
	}
	return u
}

// PolicyURLProblem says what is wrong with a privacy policy's or terms of
// service's URL, "" when nothing is: it must be an absolute https URL
// with a host, no fragment, and valid input to JCS (the AI catalog
// publishes it).
func PolicyURLProblem(u string) string {
	p, err := url.Parse(u)
	switch {
	case err != nil || p.Host == "" || !p.IsAbs():
		return "must be an absolute https URL, such as https://example.com/privacy"
	case p.Scheme != "https":
		return "must be https: a policy is read by people deciding whether to trust the server"
	case p.User != nil:
		return "must not hold a user name or password"
	}
	if err := jcs.ValidString(u); err != nil {
		return fmt.Sprintf("has %v: the AI catalog that publishes it must be valid input to JSON canonicalization (RFC 8785); write the URL in ASCII, percent-encoding what is not", err)
	}
	return ""
}

// text reads a trimmed description or title of at most max characters.
func (d *serverDecoder) text(v Str, k string, max int) string {
	t, ok := d.str(v, "/"+k)
	if !ok {
		return ""
	}
	t = strings.TrimSpace(t)
	if t == "" {
		d.add("/"+k, "%s must not be blank", k)
	} else if n := utf8.RuneCountInString(t); n > max {
		d.add("/"+k, "%s is %d characters long; a server card allows at most %d", k, n, max)
	}
	return t
}

// crossHost reads and checks the fields of a server whose card another
// host serves.
func (d *serverDecoder) crossHost(s *Server, m *Decl) {
	if u, ok := d.str(m.CardURL, "/cardUrl"); ok {
		s.CardURL = u
		if strings.ContainsAny(u, "{}") {
			d.add("/cardUrl", "cardUrl %q must not contain {placeholders}: clients fetch it as it is", spec.Redact(u))
		} else if msg := CheckRemoteURL(u); msg != "" {
			d.add("/cardUrl", "cardUrl %q %s", spec.Redact(u), msg)
		} else if err := jcs.ValidString(u); err != nil {
			d.add("/cardUrl", "cardUrl %+q has %v: the AI catalog that lists it must be valid input to JSON canonicalization (RFC 8785), which takes I-JSON only; write the URL in ASCII, percent-encoding what is not", spec.Redact(u), err)
		}
	}
	s.CardMediaType = spec.ContentTypeServerCardDraft
	if mt, ok := d.str(m.CardMediaType, "/cardMediaType"); ok {
		if mt != spec.ContentTypeServerCardDraft && mt != spec.ContentTypeServerCardV1 {
			d.add("/cardMediaType", "cardMediaType %q must be %s or %s", mt, spec.ContentTypeServerCardDraft, spec.ContentTypeServerCardV1)
		} else {
			s.CardMediaType = mt
		}
	}
	// The members that only make up a local card.
	for _, f := range []struct {
		name string
		set  bool
	}{
		{"card", m.HasCard}, {"title", m.Title.Set}, {"websiteUrl", m.WebsiteURL.Set}, {"repository", m.HasRepository},
		{"icons", m.HasIcons}, {"remotes", m.HasRemotes}, {"packages", m.HasPackages}, {"_meta", m.HasMeta},
	} {
		if f.set {
			d.add("/"+f.name, "%s cannot be set on a server with cardUrl: its card is served by another host", f.name)
		}
	}
}

// cardPaths reads the card paths of a local server and checks them,
// defaults included: a name such as "../x" is valid but makes a bad path.
func (d *serverDecoder) cardPaths(s *Server, m *Decl, nameOK bool) {
	for _, p := range []struct {
		field, kind, prefix string
		v                   Str
		dst                 *string
	}{
		{"draftPath", "draft", serverDraftPathPrefix, m.DraftPath, &s.DraftPath},
		{"v1Path", "v1", serverV1PathPrefix, m.V1Path, &s.V1Path},
	} {
		if v, ok := d.str(p.v, "/card/"+p.field); ok {
			*p.dst = v
			if msg := serverCardPathProblem(v); msg != "" {
				d.add("/card/"+p.field, "%s %q %s", p.field, v, msg)
			}
			continue
		}
		if !nameOK {
			continue
		}
		*p.dst = p.prefix + s.Name + ".json"
		if msg := serverCardPathProblem(*p.dst); msg != "" {
			d.add("/name", "the default %s card path %q %s: set card.%s", p.kind, *p.dst, msg, p.field)
		}
	}
}

// remote checks one remote endpoint at ptr.
func (d *serverDecoder) remote(ptr string, r *Remote) {
	if u, ok := d.str(r.URL, ptr+"/url"); ok {
		names, msg := serverTemplateNames(u)
		if msg != "" {
			d.add(ptr+"/url", "url %q %s", spec.Redact(u), msg)
		} else {
			if msg := CheckRemoteURL(u); msg != "" {
				d.add(ptr+"/url", "url %q %s", spec.Redact(u), msg)
			}
			d.matchVariables(ptr, "url", "variables", names, r.Variables)
		}
	}
	d.inputs(ptr, r.Variables, queryVariables(r.URL.Value))
	first := map[string]int{}
	for j, h := range r.Headers {
		if h == nil {
			continue
		}
		hp := ptr + "/headers/" + strconv.Itoa(j)
		if name, ok := h.Name.String(); ok {
			key := strings.ToLower(name)
			if i, dup := first[key]; dup {
				d.add(hp+"/name", "header %q is already declared by header %d of this remote: declare each header once", name, i)
			} else {
				first[key] = j
			}
		}
		d.header(hp, h)
	}
}

// inputs checks the variables of a remote or a header at ptr. fills names,
// for a variable, what its value becomes a part of: a query parameter of
// the URL, or the header.
func (d *serverDecoder) inputs(ptr string, vars []Var, fills map[string]string) {
	for _, v := range vars {
		if v.Input != nil {
			d.input(ptr+"/variables/"+source.EscapePointer(v.Name), "variable", v.Name, v.Input, nil, fills[v.Name])
		}
	}
}

// queryVariables maps each {variable} of a URL template's query to the
// parameter whose value it is part of: "https://h/p?access_token={t}"
// gives t: access_token.
func queryVariables(u string) map[string]string {
	_, query, ok := strings.Cut(u, "?")
	if !ok {
		return nil
	}
	query, _, _ = strings.Cut(query, "#")
	fills := map[string]string{}
	for pair := range strings.SplitSeq(query, "&") {
		name, value, _ := strings.Cut(pair, "=")
		if names, msg := serverTemplateNames(value); msg == "" {
			for _, n := range names {
				fills[n] = name
			}
		}
	}
	return fills
}

// header checks one header input at ptr.
func (d *serverDecoder) header(ptr string, h *Header) {
	name := h.Name.Value
	var tpl *serverTemplate
	if v, ok := d.str(h.Value, ptr+"/value"); ok {
		names, msg := serverTemplateNames(v)
		if msg != "" {
			d.add(ptr+"/value", "value %s", msg)
		} else {
			tpl = &serverTemplate{names: names, vars: h.Variables}
			d.matchVariables(ptr, "value", "this header's variables", names, h.Variables)
		}
	} else {
		d.matchVariables(ptr, "value", "this header's variables", nil, h.Variables)
	}
	d.inputs(ptr, h.Variables, tpl.fills(name))
	d.input(ptr, "header", name, &h.Input, tpl, "")

	if !h.IsSecret && serverCredentialHeader(name) {
		if _, ok := h.Value.String(); ok && (tpl == nil || len(tpl.names) == 0) && !d.secretAt[ptr+"/value"] {
			d.add(ptr+"/value", `header %q must not carry a literal credential: put the secret in a variable, as in "Bearer {token}", and mark the header isSecret`, name)
		}
		if _, ok := h.Default.String(); ok && !d.secretAt[ptr+"/default"] {
			d.add(ptr+"/default", "header %q must not have a default: clients prompt for the credential", name)
		}
	}
}

// serverTemplate is a header value's template and the variables that fill
// it.
type serverTemplate struct {
	names []string
	vars  []Var
}

// fills maps each {variable} of the template to name, what its value
// becomes a part of (a header, an environment variable, an argument):
// judged by that name too (see input). Nil for no template.
func (t *serverTemplate) fills(name string) map[string]string {
	if t == nil {
		return nil
	}
	m := make(map[string]string, len(t.names))
	for _, n := range t.names {
		m[n] = name
	}
	return m
}

// prompts reports whether the template leaves something for clients to
// prompt for: a variable without value, default or choices.
func (t *serverTemplate) prompts() bool {
	if t == nil {
		return false
	}
	for _, n := range t.names {
		v, _ := varsOf(t.vars, n)
		if in := v.Input; in != nil && !in.Value.Set && !in.Default.Set && !in.HasChoices {
			return true
		}
	}
	return false
}

// matchVariables checks that the {names} of a template (field, at
// ptr/field) and the variables declared for it (at ptr/variables, called
// declaredIn in messages) are the same set.
func (d *serverDecoder) matchVariables(ptr, field, declaredIn string, names []string, vars []Var) {
	for _, n := range names {
		if _, ok := varsOf(vars, n); !ok {
			d.add(ptr+"/"+field, "%s uses {%s}, but %s does not declare it", field, n, declaredIn)
		}
	}
	for _, v := range vars {
		k := v.Name
		switch {
		case !serverVarNameRe.MatchString(k):
			d.add(ptr+"/variables/"+source.EscapePointer(k), "variable name %q must be letters, digits and _, not starting with a digit", k)
		case !slices.Contains(names, k):
			d.add(ptr+"/variables/"+source.EscapePointer(k), "variable %q is not used in %s: use it as {%s} or remove it", k, field, k)
		}
	}
}

// input checks one input (a header, kind "header", or a variable, kind
// "variable") named name at ptr. tpl is a header's parsed value, if any;
// fills, for a variable, names what its value is part of (see inputs), ""
// for nothing or a header.
func (d *serverDecoder) input(ptr, kind, name string, in *Input, tpl *serverTemplate, fills string) {
	if in.IsSecret {
		if in.Value.Set && !tpl.prompts() && !d.secretAt[ptr+"/value"] {
			if kind == "header" {
				d.add(ptr+"/value", `a secret input must not carry a value: clients prompt for it; put the secret in a variable, as in "Bearer {token}"`)
			} else {
				d.add(ptr+"/value", "a secret input must not carry a value: clients prompt for it")
			}
		}
		if in.Default.Set && !d.secretAt[ptr+"/default"] {
			d.add(ptr+"/default", "a secret input must not carry a default: clients prompt for it")
		}
		if in.HasChoices {
			d.add(ptr+"/choices", "a secret input must not list choices: they would publish the secret")
		}
		return
	}
	// A value that secrets.Find does not recognize may still be a credential
	// when the input's name says it holds one, or, for a variable, the name
	// of the query parameter or header its value becomes a part of:
	// "?access_token={t}" or "Authorization: Bearer {b}" publishes the
	// default of t or b as that credential, whatever t and b are called.
	named := name != "" && secrets.Named(name)
	into := ""
	if !named && fills != "" && (secrets.Named(fills) || serverCredentialHeader(fills)) {
		named, into = true, fmt.Sprintf(", which fills %q,", fills)
	}
	if !named {
		return
	}
	check := func(p, what, v string) {
		if !d.secretAt[p] && secrets.LooksLikeCredential(v) {
			d.add(p, "%s of %s %q%s looks like a credential: remove it; published documents are public", what, kind, name, into)
		}
	}
	for _, f := range []struct {
		name string
		v    Str
	}{{"value", in.Value}, {"default", in.Default}} {
		if v, ok := f.v.String(); ok {
			check(ptr+"/"+f.name, f.name, v)
		}
	}
	for i, c := range in.Choices {
		if v, ok := c.String(); ok {
			check(ptr+"/choices/"+strconv.Itoa(i), "a choice", v)
		}
	}
}

// serverCredentialHeader reports whether a header carries credentials by
// its very name.
func serverCredentialHeader(name string) bool {
	switch strings.ToLower(name) {
	case "authorization", "proxy-authorization", "cookie":
		return true
	}
	return false
}

// serverTemplateNames returns the {variable} names of a URL or header
// template, each once, in order of first use, or a message saying why s is
// not a template.
func serverTemplateNames(s string) ([]string, string) {
	const bad = `has "{" or "}" outside a {variable} reference: a variable name is letters, digits and _, not starting with a digit`
	var names []string
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '}':
			return nil, bad
		case '{':
			j := strings.IndexByte(s[i+1:], '}')
			if j < 0 {
				return nil, bad
			}
			n := s[i+1 : i+1+j]
			if !serverVarNameRe.MatchString(n) {
				return nil, bad
			}
			if !slices.Contains(names, n) {
				names = append(names, n)
			}
			i += j + 1
		}
	}
	return names, ""
}

// CheckRemoteURL explains why raw, a remote's URL template that may hold
// {variables}, is not one clients may connect to, or returns "". It must
// start with https:// (plain http:// only for a loopback host), have a host,
// no user information and no whitespace.
func CheckRemoteURL(raw string) string {
	if strings.ContainsAny(raw, " \t\r\n") {
		return "must not contain whitespace"
	}
	lower := strings.ToLower(raw)
	isHTTP := strings.HasPrefix(lower, "http://")
	if !isHTTP && !strings.HasPrefix(lower, "https://") {
		if strings.HasPrefix(raw, "{") {
			return "must start with https://: a variable cannot stand for the scheme and host"
		}
		return "must be an absolute https URL"
	}
	u, err := url.Parse(fillTemplate(raw))
	if err != nil || u.Host == "" {
		return "is not an absolute URL with a host"
	}
	if u.User != nil {
		return "must not carry user information (user:password@)"
	}
	if isHTTP && !spec.IsLoopbackHost(u.Hostname()) {
		return "must use https: plain http is only for loopback hosts (localhost, *.localhost, 127.0.0.0/8, ::1)"
	}
	return ""
}

// serverVersionIsRange reports whether v names a set of versions (a range,
// a wildcard or the tag latest) rather than one version.
func serverVersionIsRange(v string) bool {
	if v == "" || strings.ContainsAny(v, " \t\r\n*|") {
		return true // "1.2 - 1.4", ">= 1", "*", "a || b"
	}
	switch v[0] {
	case '^', '~', '>', '<', '=', '!':
		return true
	}
	if strings.EqualFold(v, "latest") {
		return true
	}
	core := v
	if i := strings.IndexAny(core, "-+"); i >= 0 {
		core = core[:i] // 1.0.0-x is a pre-release, not a wildcard
	}
	for _, part := range strings.Split(core, ".") {
		if part == "x" || part == "X" {
			return true
		}
	}
	return false
}

// serverCardPathProblem explains what is wrong with a card path, or
// returns "".
func serverCardPathProblem(p string) string {
	switch {
	case !strings.HasPrefix(p, "/"):
		return "must be absolute: start it with /"
	case strings.ContainsAny(p, "?#"):
		return "must not have a query or a fragment"
	case !strings.HasSuffix(p, ".json"):
		return "must end in .json"
	}
	for _, seg := range strings.Split(p[1:], "/") {
		switch seg {
		case "":
			return "must not have empty segments (//)"
		case ".", "..":
			return `must not have "." or ".." segments`
		}
		if spec.IsReservedName(seg) {
			return spec.ReservedProblem
		}
		for i := 0; i < len(seg); i++ {
			if c := seg[i]; !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-' || c == '~') {
				return "may have only letters, digits, '.', '_', '-' and '~' between its slashes"
			}
		}
	}
	return ""
}

// serverCleanRelPath reports whether p is a clean relative path.
func serverCleanRelPath(p string) bool {
	return p != "" && p != "." && p != ".." && !strings.HasPrefix(p, "/") && !strings.HasPrefix(p, "../") &&
		!strings.Contains(p, `\`) && path.Clean(p) == p
}

// serverMetaKeyProblem explains what is wrong with a top-level _meta key,
// or returns "".
func serverMetaKeyProblem(k string) string {
	prefix, name, hasPrefix := strings.Cut(k, "/")
	if !hasPrefix {
		prefix, name = "", k
	}
	ok := name == "" || serverMetaNameRe.MatchString(name)
	var labels []string
	if hasPrefix {
		labels = strings.Split(prefix, ".")
		for _, l := range labels {
			ok = ok && serverMetaLabelRe.MatchString(l)
		}
	}
	if !ok {
		return fmt.Sprintf("_meta key %q must be NAME or PREFIX/NAME, such as com.example/owner: PREFIX is dot-separated labels of letters, digits and '-', NAME letters, digits, '.', '_' and '-', each starting and ending with a letter or digit", k)
	}
	if n := len(labels); n >= 2 {
		if l := strings.ToLower(labels[n-2]); l == "mcp" || l == "modelcontextprotocol" {
			return fmt.Sprintf("_meta key %q uses the prefix %q, which MCP reserves: use a prefix of your own domain, such as com.example/", k, prefix+"/")
		}
	}
	return ""
}

// Check applies the rules that span servers, to servers as
// Declare returned them (nil entries are skipped):
//   - names are unique, ignoring case (card paths are case-insensitive on
//     some hosts, and identifiers should not differ by case alone);
//   - AI catalog identifiers, declared or derived, are anchored at
//     publisher and unique, ignoring case (AIIdentifiers has the rule;
//     skipped when publisher is empty);
//   - card paths are unique across servers and both kinds of card,
//     ignoring case, stay out of the tool catalog's routes (/tools,
//     /tools/...), the two catalogs and the MCP registry's folder
//     (/v0.1/, whether or not the site publishes it), and no card path lies inside
//     another or inside a catalog (a file cannot also be a folder on static
//     hosts).
//
// The first server to claim a name or path keeps it; the later ones get the
// problem. A server whose name is taken gets no problem for its default
// paths, which clash for the same reason. Both card paths of every local
// server are checked, whichever catalogs the site publishes, so that
// turning one on never breaks a build. A path's problem points at
// /card/draftPath or /card/v1Path, or at /name when the path is the default
// one. The result maps a server's index to its problems, sorted; nil when
// there are none.
func Check(publisher string, servers []*Server) map[int][]Problem {
	out := map[int][]Problem{}
	add := func(i int, ptr, format string, args ...any) {
		out[i] = append(out[i], Problem{Pointer: ptr, Message: fmt.Sprintf(format, args...)})
	}

	names := map[string]int{}
	dupName := map[int]bool{}
	for i, s := range servers {
		if s == nil {
			continue
		}
		key := strings.ToLower(s.Name)
		if j, dup := names[key]; dup {
			dupName[i] = true
			if servers[j].Name == s.Name {
				add(i, "/name", "server %q is already declared: names must be unique, ignoring case", s.Name)
			} else {
				add(i, "/name", "server %q is already declared as %q: names must be unique, ignoring case", s.Name, servers[j].Name)
			}
			continue
		}
		names[key] = i
	}
	var idProblems map[int][]Problem
	if publisher != "" { // without one, the configuration is reported
		_, idProblems = AIIdentifiers(publisher, servers)
	}
	for i, ps := range idProblems {
		for _, p := range ps {
			if p.Pointer == "/name" && dupName[i] {
				continue // the same name, and so the same identifier: the name is reported
			}
			out[i] = append(out[i], p)
		}
	}

	type claim struct {
		server int
		kind   string // draft or v1
		path   string
	}
	type cardPath struct {
		ptr, kind, path string
	}
	pathsOf := func(s *Server) []cardPath {
		ptr := func(field, declared, def string) string {
			if declared == "" || declared == def {
				return "/name"
			}
			return "/card/" + field
		}
		return []cardPath{
			{ptr("draftPath", s.DraftPath, serverDraftPathPrefix+s.Name+".json"), "draft", s.DraftRoute()},
			{ptr("v1Path", s.V1Path, serverV1PathPrefix+s.Name+".json"), "v1", s.V1Route()},
		}
	}
	// The catalogs' routes, and the tool catalog's routes and list objects
	// (a card at /tools.json would overwrite the list in the bucket).
	reserved := map[string]string{
		strings.ToLower(spec.RouteMCPCatalog): "the MCP catalog",
		strings.ToLower(spec.RouteAICatalog):  "the AI catalog",
		strings.ToLower(spec.RouteARD):        "the ARD manifest",
		spec.RouteTools:                       "the tool catalog",
		"/" + spec.ListKey(spec.ViewStandard): "the tool catalog",
		"/" + spec.ListKey(spec.ViewCompact):  "the tool catalog",
		spec.RouteToolCatalogue:               "the tool catalogue",
	}
	claims := map[string]claim{}
	for i, s := range servers {
		if s == nil || s.CrossHost() {
			continue
		}
		for _, p := range pathsOf(s) {
			if p.ptr == "/name" && dupName[i] {
				continue // a default path of a duplicate name: the name is reported
			}
			key := strings.ToLower(p.path)
			_, group := spec.GroupKeyOf(key)
			registry := strings.HasPrefix(key, spec.RegistryFolder)
			if what, ok := reserved[key]; ok || strings.HasPrefix(key, spec.RouteTools+"/") || group || strings.HasPrefix(key, spec.RouteGroups) || registry {
				if !ok {
					what = "the tool catalog"
				}
				if group || strings.HasPrefix(key, spec.RouteGroups) {
					what = "the tool catalogue's groups"
				}
				if registry {
					what = "the MCP registry"
				}
				add(i, p.ptr, "%s card path %q is reserved for %s", p.kind, p.path, what)
				continue
			}
			if c, dup := claims[key]; dup {
				if c.server == i {
					add(i, p.ptr, "%s card path %q is also this server's %s card path: each card needs a path of its own, since each is served with its own media type", p.kind, p.path, c.kind)
				} else {
					add(i, p.ptr, "%s card path %q is already the %s card path of server %q: card paths must be unique, ignoring case", p.kind, p.path, c.kind, servers[c.server].Name)
				}
				continue
			}
			claims[key] = claim{server: i, kind: p.kind, path: p.path}
		}
	}
	// A path inside another: one of its ancestors is a claimed or reserved
	// path.
	for i, s := range servers {
		if s == nil || s.CrossHost() {
			continue
		}
		for _, p := range pathsOf(s) {
			key := strings.ToLower(p.path)
			if c, ok := claims[key]; !ok || c.server != i || c.kind != p.kind {
				continue // reported above
			}
			for k := len(key) - 1; k > 0; k-- {
				if key[k] != '/' {
					continue
				}
				anc := key[:k]
				if c, ok := claims[anc]; ok {
					owner := fmt.Sprintf("server %q", servers[c.server].Name)
					if c.server == i {
						owner = "this server"
					}
					add(i, p.ptr, "%s card path %q lies inside the %s card path %q of %s: a file cannot also be a folder on static hosts", p.kind, p.path, c.kind, c.path, owner)
				} else if what, ok := reserved[anc]; ok {
					add(i, p.ptr, "%s card path %q lies inside %s (%s): a file cannot also be a folder on static hosts", p.kind, p.path, anc, what)
				}
			}
		}
	}
	if len(out) == 0 {
		return nil
	}
	for i := range out {
		slices.SortFunc(out[i], func(a, b Problem) int {
			return cmp.Or(strings.Compare(a.Pointer, b.Pointer), strings.Compare(a.Message, b.Message))
		})
	}
	return out
}

// fillTemplate returns the URL template raw with each {variable} made a
// character that fits in a host, port or path, so that it parses as the
// URLs it stands for do.
func fillTemplate(raw string) string {
	filled := raw
	if names, msg := serverTemplateNames(raw); msg == "" {
		for _, n := range names {
			filled = strings.ReplaceAll(filled, "{"+n+"}", "0")
		}
	}
	return filled
}
