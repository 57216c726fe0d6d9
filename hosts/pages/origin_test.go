package pages

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"
)

// pagesOrigin stands in for GitHub Pages serving one site's folder, as
// far as GitHub documents it and as the Pages report describes it:
//
//   - a file is served at its path, with the media type of its extension
//     (GitHub takes the types from mime-db and lets no site set one:
//     .json is application/json, a file without a type
//     application/octet-stream);
//   - a path without an extension is also tried with .html, and a folder
//     with an index.html is redirected to its path with a slash and
//     served from it; no other extension is ever added (.json included);
//   - anything else is Pages' HTML 404 (or the site's 404.html, text/html
//     too);
//   - the query is ignored;
//   - every response has Access-Control-Allow-Origin: * and no other CORS
//     header, and every file Cache-Control: max-age=600 and a strong ETag
//     of Pages' own, with 304s;
//   - only GET and HEAD serve files: Pages has no OPTIONS of its own. What
//     status it answers OPTIONS with is not documented; this stand-in
//     answers 405, and tests assert only what holds whatever the status:
//     no Access-Control-Allow-Methods or -Headers, so a browser's
//     preflight fails.
//
// How Pages reads %2F in a path is not documented either: decodeSlash
// picks a reading, as / (a folder) or as the three characters of a file's
// name, and tests that depend on it run both.
type pagesOrigin struct {
	root        string
	decodeSlash bool
}

// pagesNotFound is the body of Pages' 404, in short.
const pagesNotFound = "<!DOCTYPE html>\n<title>Page not found &middot; GitHub Pages</title>\n"

func (o pagesOrigin) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Access-Control-Allow-Origin", "*")
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		h.Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	escaped := r.URL.EscapedPath()
	p, ok := o.unescape(escaped)
	if !ok || !strings.HasPrefix(p, "/") {
		o.notFound(w)
		return
	}
	name := path.Clean(p)
	file := filepath.Join(o.root, filepath.FromSlash(name))
	switch fi, err := os.Stat(file); {
	case err == nil && fi.Mode().IsRegular():
		o.serveFile(w, r, file)
	case err == nil && fi.IsDir():
		index := filepath.Join(file, "index.html")
		if fi, err := os.Stat(index); err != nil || !fi.Mode().IsRegular() {
			o.notFound(w)
		} else if !strings.HasSuffix(escaped, "/") {
			h.Set("Location", escaped+"/")
			w.WriteHeader(http.StatusMovedPermanently)
		} else {
			o.serveFile(w, r, index)
		}
	case path.Ext(name) == "":
		if fi, err := os.Stat(file + ".html"); err == nil && fi.Mode().IsRegular() {
			o.serveFile(w, r, file+".html")
			return
		}
		o.notFound(w)
	default:
		o.notFound(w)
	}
}

// unescape decodes a request's escaped path: every %XX, but %2F only
// when decodeSlash says so.
func (o pagesOrigin) unescape(escaped string) (string, bool) {
	const keep = "\x00"
	if !o.decodeSlash {
		escaped = strings.NewReplacer("%2F", keep, "%2f", keep).Replace(escaped)
	}
	p, err := url.PathUnescape(escaped)
	if err != nil || strings.Contains(strings.ReplaceAll(p, keep, ""), "\x00") {
		return "", false
	}
	return strings.ReplaceAll(p, keep, "%2F"), true
}

func (o pagesOrigin) serveFile(w http.ResponseWriter, r *http.Request, file string) {
	body, err := os.ReadFile(file)
	if err != nil {
		o.notFound(w)
		return
	}
	h := w.Header()
	switch path.Ext(file) {
	case ".json":
		h.Set("Content-Type", pagesJSONType)
	case ".html":
		h.Set("Content-Type", "text/html")
	default:
		h.Set("Content-Type", "application/octet-stream")
	}
	sum := sha256.Sum256(body)
	etag := `"` + hex.EncodeToString(sum[:8]) + `"`
	h.Set("Cache-Control", pagesCacheControl)
	h.Set("ETag", etag)
	if r.Header.Get("If-None-Match") == etag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	if r.Method == http.MethodHead {
		return
	}
	_, _ = w.Write(body)
}

func (o pagesOrigin) notFound(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/html")
	w.WriteHeader(http.StatusNotFound)
	_, _ = w.Write([]byte(pagesNotFound))
}

// pagesResponse is what a test keeps of a response.
type pagesResponse struct {
	status   int
	header   http.Header
	body     string
	location string
}

// pagesDo sends one request to the origin at base and reads its answer;
// it follows no redirect.
func pagesDo(t testing.TB, base, method, target string, header map[string]string) pagesResponse {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, base+target, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var b strings.Builder
	if _, err := io.Copy(&b, res.Body); err != nil {
		t.Fatal(err)
	}
	return pagesResponse{status: res.StatusCode, header: res.Header, body: b.String(), location: res.Header.Get("Location")}
}

// pagesServer starts the stand-in for Pages on 127.0.0.1 over root.
func pagesServer(t testing.TB, root string, decodeSlash bool) string {
	t.Helper()
	srv := httptest.NewServer(pagesOrigin{root: root, decodeSlash: decodeSlash})
	t.Cleanup(srv.Close)
	return srv.URL
}

// The stand-in itself: what it serves of a folder, as the comment of
// pagesOrigin says.
func TestPagesOrigin(t *testing.T) {
	root := t.TempDir()
	for name, body := range map[string]string{
		"page.html":         "<p>page</p>\n",
		"doc.json":          "{}\n",
		"folder/index.html": "<p>index</p>\n",
		"a/b/c.json":        "{\"c\":1}\n",
		"a%2Fb.json":        "{\"literal\":1}\n",
		"noext":             "raw\n",
	} {
		file := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	type want struct {
		status      int
		contentType string
		body        string
		location    string
	}
	for _, tc := range []struct {
		method, target string
		decodeSlash    bool
		want           want
	}{
		{"GET", "/doc.json", false, want{200, "application/json", "{}\n", ""}},
		{"GET", "/doc.json?view=compact", false, want{200, "application/json", "{}\n", ""}},
		{"GET", "/doc", false, want{404, "text/html", pagesNotFound, ""}},
		{"GET", "/page", false, want{200, "text/html", "<p>page</p>\n", ""}},
		{"GET", "/folder", false, want{301, "", "", "/folder/"}},
		{"GET", "/folder/", false, want{200, "text/html", "<p>index</p>\n", ""}},
		{"GET", "/a/b", false, want{404, "text/html", pagesNotFound, ""}},
		{"GET", "/noext", false, want{200, "application/octet-stream", "raw\n", ""}},
		{"GET", "/a%2Fb/c.json", true, want{200, "application/json", "{\"c\":1}\n", ""}},
		{"GET", "/a%2Fb/c.json", false, want{404, "text/html", pagesNotFound, ""}},
		{"GET", "/a%2Fb.json", false, want{200, "application/json", "{\"literal\":1}\n", ""}},
		// The stand-in's choice of status (see pagesOrigin).
		{"OPTIONS", "/doc.json", false, want{405, "text/html", "", ""}},
	} {
		t.Run(tc.method+" "+tc.target, func(t *testing.T) {
			base := pagesServer(t, root, tc.decodeSlash)
			got := pagesDo(t, base, tc.method, tc.target, nil)
			if got.status != tc.want.status || got.header.Get("Content-Type") != tc.want.contentType || got.body != tc.want.body || got.location != tc.want.location {
				t.Errorf("got %d %q %q (Location %q), want %+v", got.status, got.header.Get("Content-Type"), got.body, got.location, tc.want)
			}
			if got.header.Get("Access-Control-Allow-Origin") != "*" || got.header.Get("Access-Control-Allow-Methods") != "" || got.header.Get("Access-Control-Allow-Headers") != "" {
				t.Errorf("CORS headers %v, want Access-Control-Allow-Origin: * alone", got.header)
			}
			if got.status == 200 && (got.header.Get("Cache-Control") != "max-age=600" || got.header.Get("ETag") == "") {
				t.Errorf("Cache-Control %q, ETag %q", got.header.Get("Cache-Control"), got.header.Get("ETag"))
			}
		})
	}
}
