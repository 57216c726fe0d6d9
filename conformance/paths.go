package conformance

import (
	"fmt"
	"strings"

	"github.com/signpost-dev/signpost/build/output"
)

// PathProblem says why p, a slash-separated path of the route table (a site's
// dir or a route's key), is unsafe to write or read inside a build folder, or
// returns "" when it is safe: it must be relative, without backslashes, NUL
// or other control characters, empty, "." or ".." segments, or a Windows
// drive or stream colon.
func PathProblem(p string) string {
	switch {
	case p == "":
		return "the path is empty"
	case strings.HasPrefix(p, "/"):
		return "the path is absolute"
	case strings.ContainsRune(p, 0):
		return "the path holds a NUL byte"
	case strings.Contains(p, `\`):
		return "the path holds a backslash"
	case strings.Contains(p, ":"):
		return "the path holds a colon (a Windows drive or stream)"
	}
	for _, c := range p {
		if c < 0x20 || c == 0x7f {
			return "the path holds a control character"
		}
	}
	for seg := range strings.SplitSeq(p, "/") {
		switch seg {
		case "":
			return "the path has an empty segment"
		case ".", "..":
			return fmt.Sprintf("the path has a %q segment", seg)
		}
	}
	return ""
}

// checkPaths reports the unsafe paths of a route table, the files two
// routes share (exactly, or in a case-insensitive file system, or a file
// that is another's folder), and the routes mapped twice.
func checkPaths(b *Build) []Finding {
	var out []Finding
	exact := map[string]owner{}
	folded := map[string]owner{}
	folders := map[string]string{} // folded folder -> a file below it
	files := map[string]owner{}    // folded file -> its route
	// routes.json is a file of the folder too.
	files[strings.ToLower(output.RouteTableFile)] = owner{file: output.RouteTableFile}
	exact[output.RouteTableFile] = owner{file: output.RouteTableFile}
	folded[strings.ToLower(output.RouteTableFile)] = owner{file: output.RouteTableFile}
	dirs := map[string]bool{}
	for _, s := range b.Table.Sites {
		if msg := PathProblem(s.Dir); msg != "" {
			out = append(out, Finding{Kind: KindUnsafePath, Build: b.Name, File: s.Dir, Message: "site dir: " + msg})
		}
		if dirs[s.Dir] {
			out = append(out, Finding{Kind: KindDuplicatePath, Build: b.Name, File: s.Dir, Message: "two sites share the dir"})
		}
		dirs[s.Dir] = true
		seen := map[[2]string]bool{}
		for _, r := range s.Routes {
			p := objectPath(s.Dir, r.Key)
			at := Finding{Build: b.Name, File: p, Route: r.Route, View: r.View}
			if msg := PathProblem(r.Key); msg != "" {
				at.Kind, at.Message = KindUnsafePath, "key "+quote(r.Key)+": "+msg
				out = append(out, at)
			}
			rv := [2]string{r.Route, r.View}
			twice := seen[rv]
			if twice {
				at.Kind, at.Message = KindDuplicatePath, "the route is mapped twice in the site"
				out = append(out, at)
			}
			seen[rv] = true
			lower := strings.ToLower(p)
			if o, ok := exact[p]; twice && ok && o.route == r.Route && o.view == r.View {
				// The same entry again: reported once, above.
			} else if ok {
				at.Kind, at.Message = KindDuplicatePath, "the file is also the object of "+o.describe()
				out = append(out, at)
			} else if o, ok := folded[lower]; ok {
				at.Kind, at.Message = KindDuplicatePath, "the file differs only in case from "+o.file+", the object of "+o.describe()+": one file on a case-insensitive file system"
				out = append(out, at)
			}
			exact[p] = owner{p, r.Route, r.View}
			folded[lower] = owner{p, r.Route, r.View}
			files[lower] = owner{p, r.Route, r.View}
			segs := strings.Split(lower, "/")
			for i := 1; i < len(segs); i++ {
				dir := strings.Join(segs[:i], "/")
				if _, ok := folders[dir]; !ok {
					folders[dir] = p
				}
			}
		}
	}
	for lower, o := range files {
		if below, ok := folders[lower]; ok {
			out = append(out, Finding{Kind: KindDuplicatePath, Build: b.Name, File: o.file, Route: o.route, View: o.view,
				Message: "the file is also the folder of " + below})
		}
	}
	return out
}

// owner is the route whose object a file is.
type owner struct{ file, route, view string }

func (o owner) describe() string {
	if o.route == "" {
		return "the route table"
	}
	if o.view != "" && o.view != "standard" {
		return o.route + " ?view=" + o.view
	}
	return o.route
}

func quote(s string) string { return fmt.Sprintf("%q", s) }
