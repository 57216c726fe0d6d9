package export

import (
	"errors"
	"slices"
	"strings"

	"github.com/signpost-dev/signpost/build/discovery"
)

// maxExpanded bounds the URLs one remote's choices expand into: beyond it,
// its variables are matched by a wildcard instead.
const maxExpanded = 64

// templateVars returns the {variable} names of a URL template, each once,
// in order of first use. The loader has held the template to its rule
// (letters, digits and _ between the braces), so a brace without its
// partner ends the scan.
func templateVars(s string) []string {
	var names []string
	for {
		i := strings.IndexByte(s, '{')
		if i < 0 {
			return names
		}
		j := strings.IndexByte(s[i:], '}')
		if j < 0 {
			return names
		}
		if n := s[i+1 : i+j]; !slices.Contains(names, n) {
			names = append(names, n)
		}
		s = s[i+j+1:]
	}
}

// fill replaces {name} by value in the template s.
func fill(s, name, value string) string { return strings.ReplaceAll(s, "{"+name+"}", value) }

// braceFree returns v's string when it is one with no { or }: a value a URL
// can take as it is.
func braceFree(v discovery.Str) (string, bool) {
	s, ok := v.String()
	return s, ok && !strings.ContainsAny(s, "{}")
}

// knownValues returns every value the variable can take, when the
// declaration says: its fixed value, or its choices. ok is false when a
// client may give it any value (a default only proposes one).
func knownValues(vars []discovery.Var, name string) (values []string, ok bool) {
	i := slices.IndexFunc(vars, func(v discovery.Var) bool { return v.Name == name })
	if i < 0 || vars[i].Input == nil {
		return nil, false
	}
	in := vars[i].Input
	if v, ok := braceFree(in.Value); ok {
		return []string{v}, true
	}
	if !in.HasChoices || len(in.Choices) == 0 {
		return nil, false
	}
	for _, c := range in.Choices {
		v, ok := braceFree(c)
		if !ok {
			return nil, false
		}
		if !slices.Contains(values, v) {
			values = append(values, v)
		}
	}
	return values, true
}

// urlPatterns returns the serverUrl entries that allow exactly the URLs a
// remote's template makes, as far as GitHub's matching can say it, sorted,
// and the variables a wildcard stands for. Variables with a fixed value or
// choices are filled in, each combination an exact URL (at most
// maxExpanded of them); any other variable makes its URL a pattern (see
// wildcard).
func urlPatterns(template string, vars []discovery.Var) (patterns, free []string, err error) {
	names := templateVars(template)
	urls := []string{template}
	for _, n := range names {
		values, ok := knownValues(vars, n)
		if !ok || len(urls)*len(values) > maxExpanded {
			free = append(free, n)
			continue
		}
		next := make([]string, 0, len(urls)*len(values))
		for _, u := range urls {
			for _, v := range values {
				next = append(next, fill(u, n, v))
			}
		}
		urls = next
	}
	if len(free) > 0 {
		for i, u := range urls {
			if urls[i], err = wildcard(u); err != nil {
				return nil, nil, err
			}
		}
	}
	slices.Sort(urls)
	return slices.Compact(urls), free, nil
}

// wildcard turns a URL template whose variables may take any value into
// the serverUrl pattern GitHub's matching accepts, "*" for a subdomain or
// for the rest of a path (docs/policy.md):
//   - a variable in the host: every label up to and including the last
//     one that holds a variable becomes one "*" label
//     (https://{region}.mcp.example.com/billing becomes
//     https://*.mcp.example.com/billing), and at least two labels must be
//     left;
//   - a variable in the path or the query: the URL is cut where the
//     variable starts and ends in "*" (https://mcp.example.com/t/{tenant}/mcp
//     becomes https://mcp.example.com/t/*, and
//     https://mcp.example.com/mcp?tenant={tenant} becomes
//     https://mcp.example.com/mcp?tenant=*);
//   - a variable in the port, or in an IP address, cannot be matched: the
//     error says so.
//
// The reason of an error is worded for ServerError.
func wildcard(u string) (string, error) {
	scheme, rest, ok := strings.Cut(u, "://")
	if !ok {
		return "", errors.New("is not an absolute URL")
	}
	end := strings.IndexAny(rest, "/?#")
	if end < 0 {
		end = len(rest)
	}
	authority, tail := rest[:end], rest[end:]
	if strings.ContainsRune(authority, '{') {
		host, port := authority, ""
		if strings.HasPrefix(host, "[") {
			return "", errors.New("has a variable in an IP address: GitHub's serverUrl matches a host by its subdomains only; declare the address as it is")
		}
		if i := strings.LastIndexByte(host, ':'); i >= 0 {
			host, port = host[:i], host[i:]
		}
		if strings.ContainsRune(port, '{') {
			return "", errors.New("has a variable in its port: GitHub's serverUrl matches a host by its subdomains only; declare the port as it is")
		}
		labels := strings.Split(host, ".")
		last := -1
		for i, l := range labels {
			if strings.ContainsRune(l, '{') {
				last = i
			}
		}
		if len(labels)-last-1 < 2 {
			return "", errors.New("has a variable in its domain itself: GitHub's serverUrl can match the subdomains of a domain, such as *.mcp.example.com, not any domain; declare the domain as it is")
		}
		authority = "*." + strings.Join(labels[last+1:], ".") + port
	}
	if i := strings.IndexByte(tail, '{'); i >= 0 {
		tail = tail[:i] + "*"
	}
	return scheme + "://" + authority + tail, nil
}

// resolve fills every variable of a remote's URL template with the value a
// client takes when it asks nothing: the variable's fixed value, else its
// default. It returns the name of the first variable that has neither.
func resolve(template string, vars []discovery.Var) (string, string) {
	u := template
	for _, n := range templateVars(template) {
		i := slices.IndexFunc(vars, func(v discovery.Var) bool { return v.Name == n })
		if i < 0 || vars[i].Input == nil {
			return "", n
		}
		v, ok := braceFree(vars[i].Input.Value)
		if !ok {
			v, ok = braceFree(vars[i].Input.Default)
		}
		if !ok {
			return "", n
		}
		u = fill(u, n, v)
	}
	return u, ""
}
