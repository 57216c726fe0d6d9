package check

import (
	"context"
	"slices"
	"strings"

	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/check/dial"
	"github.com/signpost-dev/signpost/check/registry"
)

// The MCP registry is checked by check/registry, which replays what its
// clients send (registry.Replay): the crawl fetches the pages the replay
// asks for and hands it each document of the second stage; registrySite
// is the site as the replay reads it, and where its findings go.

// registryRules are the names of the registry's rules.
func registryRules() []string {
	var out []string
	for _, r := range ruleTable {
		if strings.HasPrefix(r.Name, "registry.") {
			out = append(out, r.Name)
		}
	}
	return out
}

// registryStage1 are the registry's pages of the first stage: VS Code's
// probe and list, and Copilot CLI's lookup of a name no registry lists.
func (c *checker) registryStage1() []*page {
	c.registry = registry.New(registrySite{c}, c.v)
	return c.registryPages(c.registry.Stage1())
}

// registryPages are the pages of reqs, requested as the registry's clients
// request them.
func (c *checker) registryPages(reqs []registry.Request) []*page {
	pages := make([]*page, len(reqs))
	for i, r := range reqs {
		pages[i] = &page{url: r.URL, role: roleRegistry, local: true, keep: r.Keep, accept: registry.Accept, origin: registry.Origin}
	}
	return pages
}

// learnRegistry reads VS Code's list, following its pages, and chooses
// the search.
func (c *checker) learnRegistry(ctx context.Context) { c.registry.Learn(ctx) }

// registryStage2 are the registry's pages of the second stage, at most
// room of them (see registry.Replay.Stage2).
func (c *checker) registryStage2(room int) []*page {
	return c.registryPages(c.registry.Stage2(room))
}

// registryDocument applies the rules of one document of the second stage.
func (c *checker) registryDocument(p *page) { c.registry.Document(registryPage(p)) }

// checkRegistry applies the rest of the registry's rules, or skips them
// all when the site has no registry.
func (c *checker) checkRegistry(ctx context.Context) {
	if why := c.registry.Absent(); why != "" {
		c.skip(c.at(spec.RouteRegistry), why, registryRules()...)
		return
	}
	c.registry.Check(ctx)
}

// registryPage is p as the replay reads it; nil for none.
func registryPage(p *page) *registry.Page {
	if p == nil {
		return nil
	}
	return &registry.Page{
		URL:        p.url,
		Response:   registry.Response{Err: p.err, Status: p.status, Header: p.header, Body: p.body, TooBig: p.tooBig},
		WithOrigin: registry.Response{Err: p.withOrigin.err, Status: p.withOrigin.status, Header: p.withOrigin.header},
	}
}

// registrySite is the checked site as the registry's replay reads it.
type registrySite struct{ c *checker }

func (s registrySite) At(route string) string       { return s.c.at(route) }
func (s registrySite) Page(u string) *registry.Page { return registryPage(s.c.pages[u]) }

func (s registrySite) Pages() []*registry.Page {
	var out []*registry.Page
	for _, p := range s.c.pages {
		if p.role == roleRegistry {
			out = append(out, registryPage(p))
		}
	}
	slices.SortFunc(out, func(a, b *registry.Page) int { return strings.Compare(a.URL, b.URL) })
	return out
}

func (s registrySite) Fetch(ctx context.Context, reqs ...registry.Request) {
	s.c.fetch(ctx, s.c.registryPages(reqs), nil)
}

func (s registrySite) Do(ctx context.Context, method, u string, header [][2]string) registry.Response {
	r := s.c.do(ctx, method, u, header, false, false)
	return registry.Response{Err: r.err, Status: r.status, Header: r.header}
}

func (s registrySite) LeftOut()                 { s.c.notFetched++ }
func (s registrySite) Token() bool              { return s.c.opts.Token != "" }
func (s registrySite) ErrText(err error) string { return dial.ErrText(err, s.c.opts.Timeout) }

func (s registrySite) StatusEvidence(u string) string {
	_, ev := s.c.statusOf(s.c.pages[u])
	return ev
}

func (s registrySite) Pass(rule, u, ev, msg string) { s.c.add(rule, ResultPass, u, ev, msg) }
func (s registrySite) Fail(rule, u, ev, msg string) { s.c.add(rule, ResultFail, u, ev, msg) }
func (s registrySite) Warn(rule, u, ev, msg string) { s.c.add(rule, ResultWarn, u, ev, msg) }
func (s registrySite) Skip(rule, u, ev, msg string) { s.c.add(rule, ResultSkip, u, ev, msg) }
func (s registrySite) TooBig(rule, u string)        { s.c.add(rule, ResultSkip, u, "", skippedTooBig) }

func (s registrySite) Problems(rule, u string, probs []string, passEv, passMsg, failMsg string) {
	s.c.problems(rule, u, probs, passEv, passMsg, failMsg)
}

func (s registrySite) ContentType(rule, u, want string) { s.c.contentType(rule, s.c.pages[u], want) }
