package hosts

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/signpost-dev/signpost/build/output"
	"github.com/signpost-dev/signpost/internal/english"
)

// Host lays a build out for one kind of host. Every layout of signpost
// (S3 behind CloudFront, GitHub Pages, Cloudflare, Netlify) is one.
type Host interface {
	// Write writes b to the folder out as the host serves it, atomically,
	// as output.Build.Write does, and never changes b. It returns what the
	// host cannot serve as the contract says, or nil when it serves all of
	// it.
	Write(ctx context.Context, b *output.Build, out string) (*Report, error)
}

// VariantServer is a Host that serves a build's precompressed variants
// (output.Build.Precompress) with their Content-Encoding, and so needs a
// build that has them.
type VariantServer interface {
	Host
	// ServesVariants reports whether the host serves the variants.
	ServesVariants() bool
}

// ServesVariants reports whether h serves a build's precompressed
// variants: a build for it makes them, a build for any other host makes
// none (GitHub Pages and Netlify compress at their edge).
func ServesVariants(h Host) bool {
	v, ok := h.(VariantServer)
	return ok && v.ServesVariants()
}

// Report is what a host cannot serve of a build: the JSON report file a
// layout writes beside the route table, and the text build prints. Every
// host's report has this shape; what differs is the host's words.
type Report struct {
	// Format is the version of the report file's layout.
	Format int `json:"format"`
	// Target is the kind of target, as the report file names it:
	// "github-pages", "cloudflare", "netlify" or "cloudfront".
	Target string       `json:"target"`
	Sites  []SiteReport `json:"sites"`

	// Host names the host in the text: "GitHub Pages".
	Host string `json:"-"`
	// Limits say what the host cannot do, one line each, for the top of
	// the text; none, no heading.
	Limits []string `json:"-"`
	// Exactly ends the line that counts a site's routes served exactly:
	// what "exactly" covers, when the host adds to it.
	Exactly string `json:"-"`
	// Deploying are the notes on deploying to the host, one line each.
	Deploying []string `json:"-"`
}

// SiteReport is the report of one site.
type SiteReport struct {
	Tenant string `json:"tenant"`
	Dir    string `json:"dir"`
	// Worker is the Cloudflare Worker that serves the site.
	Worker string `json:"worker,omitempty"`
	// Routes counts the site's routes and views; Exact those the host
	// serves exactly as the contract says.
	Routes int `json:"routes"`
	Exact  int `json:"exact"`
	// Function lists the routes a function of the host serves (Netlify),
	// nil for a host without one.
	Function *[]string `json:"function,omitempty"`
	Gaps     []Gap     `json:"gaps"`

	// Lines are the text's lines of the site's gaps, grouped as the host
	// groups them.
	Lines []string `json:"-"`
	// URLRight counts the routes, beyond Exact, whose URL and Content-Type
	// are right but which lack headers every route needs.
	URLRight int `json:"-"`
}

// GapLine is the text's line of one gap: the route, what the contract
// needs, what the host does instead (serves is the host and its verb,
// "Pages serves"), and the fix.
func GapLine(g Gap, serves string) string {
	return fmt.Sprintf("%s: needs %s; %s %s. Fix: %s.", g.Label(), g.Requirement, serves, g.Served, g.Fix)
}

// File is the report as the file name a layout writes beside the route
// table.
func (r *Report) File(name string) (output.File, error) {
	for i := range r.Sites {
		if r.Sites[i].Gaps == nil {
			r.Sites[i].Gaps = []Gap{}
		}
	}
	if r.Sites == nil {
		r.Sites = []SiteReport{}
	}
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return output.File{}, fmt.Errorf("write %s: %w", name, err)
	}
	return output.File{Path: name, Body: append(data, '\n')}, nil
}

// WriteBeside writes laid, a build as a host lays it out, to the folder
// out, atomically (output.Build.Write), with the report as the file name
// beside the route table.
func (r *Report) WriteBeside(ctx context.Context, laid *output.Build, name, out string) error {
	file, err := r.File(name)
	if err != nil {
		return err
	}
	laid.Files = append(laid.Files, file)
	return laid.Write(ctx, out)
}

// WriteText prints the report: what the host cannot do; then for each
// site its folder, its gaps grouped by kind and a line counting the routes
// the host serves exactly as the contract says; then the notes on
// deploying.
func (r *Report) WriteText(w io.Writer) error {
	var sb strings.Builder
	if len(r.Limits) > 0 {
		fmt.Fprintf(&sb, "What %s cannot do:\n", r.Host)
		for _, l := range r.Limits {
			sb.WriteString("  " + l + ".\n")
		}
	}
	for _, s := range r.Sites {
		fmt.Fprintf(&sb, "%s/", s.Dir)
		if s.Tenant != "" {
			fmt.Fprintf(&sb, " (tenant %s)", s.Tenant)
		}
		sb.WriteString(": ")
		if s.Worker != "" {
			fmt.Fprintf(&sb, "Worker %s, ", s.Worker)
		}
		fmt.Fprintf(&sb, "%s on %s, %s\n", english.Count(s.Routes, "route", "routes"), r.Host, english.Count(len(s.Gaps), "gap", "gaps"))
		for _, l := range s.Lines {
			sb.WriteString("  " + l + "\n")
		}
		fmt.Fprintf(&sb, "  %d of %s %s served exactly as the contract says%s", s.Exact, english.Count(s.Routes, "route", "routes"), english.Plural(s.Exact, "is", "are"), r.Exactly)
		if s.URLRight > 0 {
			fmt.Fprintf(&sb, "; %d more %s the contract's URL and Content-Type but not the headers every route needs", s.URLRight, english.Plural(s.URLRight, "has", "have"))
		}
		sb.WriteString(".\n")
	}
	fmt.Fprintf(&sb, "Deploying to %s:\n", r.Host)
	for _, l := range r.Deploying {
		sb.WriteString("  " + l + "\n")
	}
	_, err := io.WriteString(w, sb.String())
	return err
}

// Tenants reports whether any site of the report is a tenant's.
func (r *Report) Tenants() bool {
	for _, s := range r.Sites {
		if s.Tenant != "" {
			return true
		}
	}
	return false
}

// Plain is the layout of a build for no host in particular: the
// documents at their keys and the route table (output.Build.Write), which
// serve and publish read.
type Plain struct{}

// Write writes b as it is; a plain layout has no report.
func (Plain) Write(ctx context.Context, b *output.Build, out string) (*Report, error) {
	return nil, b.Write(ctx, out)
}
