package openapi

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// Scheme is what one security scheme of the document asks of a caller,
// as an operation's security requirement names it.
type Scheme struct {
	// Type is the scheme's type: apiKey, http, oauth2, openIdConnect or
	// mutualTLS; "" when components/securitySchemes does not define it.
	Type string
	// In and Name are where the credential goes: for apiKey the
	// scheme's own (header, query or cookie, and the parameter's name);
	// for http, oauth2 and openIdConnect the header Authorization.
	In, Name string
	// Scheme is an http scheme's name, lower case: bearer, basic, ...
	Scheme string
	// Scopes are the scopes (or roles) the requirement names.
	Scopes []string
}

// Requirement is one way to meet an operation's security: every scheme
// it names, together, by name.
type Requirement map[string]Scheme

// security is what the document's security schemes make of an
// operation's parameters and security.
type security struct {
	schemes map[string]*openapi3.SecurityScheme
	names   []string // of schemes, sorted
	global  openapi3.SecurityRequirements
}

func newSecurity(doc *openapi3.T) *security {
	s := &security{schemes: map[string]*openapi3.SecurityScheme{}, global: doc.Security}
	if doc.Components != nil {
		for name, ref := range doc.Components.SecuritySchemes {
			if ref != nil && ref.Value != nil {
				s.schemes[name] = ref.Value
			}
		}
	}
	s.names = slices.Sorted(maps.Keys(s.schemes))
	return s
}

// isBearer reports whether a scheme's credential is a bearer token, which
// RFC 6750 sends in the Authorization header or as the query parameter
// access_token.
func isBearer(s *openapi3.SecurityScheme) bool {
	switch s.Type {
	case "oauth2", "openIdConnect":
		return true
	case "http":
		return strings.EqualFold(s.Scheme, "bearer")
	}
	return false
}

// requirements are an operation's security requirements, and whether it
// has any: its own when it declares them (security: [] declares none),
// else the document's.
func (s *security) requirements(op *openapi3.Operation) (openapi3.SecurityRequirements, bool) {
	if op.Security != nil {
		return *op.Security, true
	}
	return s.global, len(s.global) > 0
}

// auth is what the operation's security asks of a caller, nil when the
// document declares no security for it; a requirement that names a scheme
// the document does not define adds a note.
func (s *security) auth(op *openapi3.Operation, notes *[]string) []Requirement {
	reqs, declared := s.requirements(op)
	if !declared {
		return nil
	}
	out := make([]Requirement, 0, len(reqs))
	for _, req := range reqs {
		r := Requirement{}
		for _, name := range slices.Sorted(maps.Keys(req)) {
			sc := Scheme{Scopes: slices.Clone(req[name])}
			def := s.schemes[name]
			if def == nil {
				// The library refuses such a document; said all the same.
				*notes = append(*notes, fmt.Sprintf("security names %q, which components/securitySchemes does not define", name))
				r[name] = sc
				continue
			}
			sc.Type = def.Type
			switch def.Type {
			case "apiKey":
				sc.In, sc.Name = def.In, def.Name
			case "http":
				sc.In, sc.Name, sc.Scheme = "header", "Authorization", strings.ToLower(def.Scheme)
			case "oauth2", "openIdConnect":
				sc.In, sc.Name = "header", "Authorization"
			}
			r[name] = sc
		}
		out = append(out, r)
	}
	return out
}

// required reports whether the operation's security names the scheme.
func (s *security) required(op *openapi3.Operation, scheme string) bool {
	reqs, _ := s.requirements(op)
	for _, req := range reqs {
		if _, ok := req[scheme]; ok {
			return true
		}
	}
	return false
}

// credential says why a parameter is not an argument when it carries a
// credential, or is one OpenAPI ignores; "" when it is an argument. A
// parameter that carries the credential of a scheme the document defines
// is never an argument, whether the operation's security names the scheme
// or not (security: [] included): a credential is the caller's, never the
// model's to fill.
func (s *security) credential(op *openapi3.Operation, p *openapi3.Parameter) string {
	// The schemes whose credential the parameter may carry: the one the
	// operation requires is named, else the first by name.
	var carries []string
	for _, name := range s.names {
		def := s.schemes[name]
		switch {
		case def.Type == "apiKey":
			if def.In == p.In && sameName(p.In, def.Name, p.Name) {
				carries = append(carries, name)
			}
		case p.In == openapi3.ParameterInHeader && strings.EqualFold(p.Name, "Authorization"):
			if def.Type == "http" || def.Type == "oauth2" || def.Type == "openIdConnect" {
				carries = append(carries, name)
			}
		case p.In == openapi3.ParameterInQuery && p.Name == "access_token":
			if isBearer(def) {
				carries = append(carries, name)
			}
		}
	}
	scheme := ""
	if len(carries) > 0 {
		scheme = carries[0]
		if i := slices.IndexFunc(carries, func(name string) bool { return s.required(op, name) }); i >= 0 {
			scheme = carries[i]
		}
	}
	what := fmt.Sprintf("%s parameter %s is not an argument", p.In, p.Name)
	if scheme != "" {
		msg := fmt.Sprintf("%s: it carries the credential of security scheme %s", what, scheme)
		if !s.required(op, scheme) {
			msg += ", which the operation does not require"
		}
		return msg
	}
	if p.In == openapi3.ParameterInHeader {
		for _, h := range []string{"Accept", "Content-Type", "Authorization"} {
			if strings.EqualFold(p.Name, h) {
				return what + ": OpenAPI ignores a header parameter named " + h
			}
		}
	}
	return ""
}

// sameName reports whether a parameter's name is a scheme's: header names
// are case-insensitive.
func sameName(in, a, b string) bool {
	if in == openapi3.ParameterInHeader {
		return strings.EqualFold(a, b)
	}
	return a == b
}
