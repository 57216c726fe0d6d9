package conformance

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/signpost-dev/signpost/build/output"
	"github.com/signpost-dev/signpost/build/refs"
	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/build/tool"
	"github.com/signpost-dev/signpost/schemas"
)

// schemaOf returns the name of the embedded schema the document of a route
// must be valid against, or "" when signpost publishes none for it (the
// document must still be JSON).
func schemaOf(r output.Route) string {
	_, isTool := spec.ToolIDOf(r.Route)
	_, isGroup := spec.GroupKeyOf(r.Route)
	switch {
	case r.View == spec.ViewCompact && r.Route == spec.RouteTools:
		return "compact-tool-list"
	case r.View == spec.ViewCompact && isTool:
		return "compact-tool-descriptor"
	case r.View == spec.ViewCompact:
		return ""
	case r.Route == spec.RouteTools:
		return "tool-list"
	case isTool:
		return "tool-descriptor"
	case r.Route == spec.RouteToolCatalogue || isGroup:
		return "tool-catalogue"
	case r.Route == spec.RouteMCPCatalog:
		return "mcp-catalog"
	case r.Route == spec.RouteAICatalog:
		return "ai-catalog"
	case r.ContentType == spec.ContentTypeServerCardDraft:
		return "mcp-server-card-draft"
	}
	if req, ok := spec.ParseRegistryPath(r.Route); ok {
		if req.Kind == spec.RegistryVersion {
			return "registry-server-response"
		}
		return "registry-server-list"
	}
	return ""
}

// decodeJSON decodes one JSON value with numbers kept as json.Number, as the
// validator takes them; trailing data is an error.
func decodeJSON(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, fmt.Errorf("data after the JSON value")
	}
	return v, nil
}

// identities are a site's catalogue tool names and their descriptor
// references, by site dir.
type identities map[string]map[string]tool.DescriptorRef

// checker checks one build on its own.
type checker struct {
	v     *schemas.Validator
	b     *Build
	out   []Finding
	ids   identities
	where Finding // the document being checked: Build, File, Route, View
}

func (c *checker) add(kind, pointer, msg string) {
	f := c.where
	f.Kind, f.Pointer, f.Message = kind, pointer, msg
	c.out = append(c.out, f)
}

// checkBuild returns the findings of b on its own and its catalogue
// identities.
func checkBuild(v *schemas.Validator, b *Build) ([]Finding, identities) {
	c := &checker{v: v, b: b, ids: identities{}}
	c.out = append(c.out, checkPaths(b)...)
	if b.RouteTable != nil {
		c.where = Finding{Build: b.Name, File: output.RouteTableFile}
		if doc, err := decodeJSON(b.RouteTable); err != nil {
			c.add(KindInvalidDocument, "", "not JSON: "+err.Error())
		} else {
			for _, vi := range v.Validate("route-table", doc) {
				c.add(KindInvalidDocument, vi.Pointer, vi.Message)
			}
		}
	}
	for _, s := range b.Table.Sites {
		done := map[string]bool{}
		for _, r := range s.Routes {
			p := objectPath(s.Dir, r.Key)
			c.where = Finding{Build: b.Name, File: p, Route: r.Route, View: r.View}
			body, ok := b.Bodies[p]
			if !ok {
				if why := b.Unread[p]; why != "its path is unsafe" {
					if why == "" {
						why = "it was not read"
					}
					c.add(KindObjectUnreadable, "", "the route table names the object, but "+why)
				}
				continue
			}
			sum := sha256.Sum256(body)
			if int64(len(body)) != r.Size || hex.EncodeToString(sum[:]) != r.SHA256 {
				c.add(KindObjectChanged, "", fmt.Sprintf("the object is %d bytes with SHA-256 %s; the route table records %d bytes with %s", len(body), hex.EncodeToString(sum[:]), r.Size, r.SHA256))
			}
			if done[p] {
				continue
			}
			done[p] = true
			c.document(s.Dir, r, body)
		}
		c.registryLatest(s)
	}
	return c.out, c.ids
}

// document checks one document: JSON, its schema, and what the schema
// cannot say.
func (c *checker) document(dir string, r output.Route, body []byte) {
	doc, err := decodeJSON(body)
	if err != nil {
		c.add(KindInvalidDocument, "", "not JSON: "+err.Error())
		return
	}
	name := schemaOf(r)
	versionBad := false
	if name == "tool-catalogue" {
		versionBad = c.catalogue(dir, r, doc)
	}
	if name != "" {
		for _, vi := range c.v.Validate(name, doc) {
			if versionBad && vi.Pointer == "/catalogVersion" {
				continue // reported as unsupported-version
			}
			c.add(KindInvalidDocument, vi.Pointer, "not valid against the "+name+" schema: "+vi.Message)
		}
	}
	switch name {
	case "registry-server-list", "registry-server-response":
		c.registry(r, body)
	case "tool-descriptor", "compact-tool-descriptor":
		c.descriptor("", doc)
	case "tool-list", "compact-tool-list":
		for i, d := range descriptorsOf(doc) {
			c.descriptor("/"+strconv.Itoa(i), d)
		}
	}
}

// descriptor checks the schemas and safety fields of the tool descriptor v
// at pointer at.
func (c *checker) descriptor(at string, v any) {
	d, ok := descriptorOf(v)
	if !ok {
		return
	}
	c.schemaRefs(at+"/inputSchema", d.inputSchema)
	c.schemaRefs(at+"/outputSchema", d.outputSchema)
	c.exec(at, d.safetyTier, d.source)
	a := d.annotations
	if a == nil {
		return
	}
	want := spec.Derive(d.safetyTier, d.replayPolicy, d.egress)
	for _, h := range []struct {
		name string
		got  *bool
		want bool
	}{
		{"readOnlyHint", a.readOnly, want.ReadOnlyHint}, {"destructiveHint", a.destructive, want.DestructiveHint},
		{"idempotentHint", a.idempotent, want.IdempotentHint}, {"openWorldHint", a.openWorld, want.OpenWorldHint},
	} {
		if h.got != nil && *h.got != h.want {
			c.add(KindSafety, at+"/annotations/"+h.name, fmt.Sprintf("is %t, but safetyTier %s, replayPolicy %s and egress %s make it %t", *h.got, d.safetyTier, d.replayPolicy, d.egress, h.want))
		}
	}
}

// exec reports a tool of safetyTier exec whose source is not a host
// extension.
func (c *checker) exec(at, tier, source string) {
	if tier == spec.TierExec && source != spec.SourceHostExtension {
		c.add(KindSafety, at+"/safetyTier", "exec is only for tools of source host-extension, and this one's source is "+quote(source))
	}
}

// schemaRefs reports the $refs of the schema at pointer at that are not
// local and resolvable.
func (c *checker) schemaRefs(at string, schema any) {
	for _, p := range refs.Check(schema) {
		c.add(KindSchemaRef, at+p.Pointer, p.Message)
	}
}

// catalogue checks a tool catalogue or group document and records its
// tools' identities; it reports whether its catalogVersion is unsupported.
func (c *checker) catalogue(dir string, r output.Route, doc any) bool {
	cat, ok := catalogueOf(doc)
	if !ok {
		return false
	}
	versionBad := false
	if !cat.hasVersion || str(cat.version) != strconv.Itoa(spec.ToolCatalogueVersion) {
		got := "none"
		if cat.hasVersion {
			got = fmt.Sprint(cat.version)
		}
		c.add(KindUnsupportedVersion, "/catalogVersion", fmt.Sprintf("catalogVersion is %s; this signpost reads version %d only", got, spec.ToolCatalogueVersion))
		versionBad = true
	}
	if c.ids[dir] == nil {
		c.ids[dir] = map[string]tool.DescriptorRef{}
	}
	for i, t := range cat.tools {
		if t == nil {
			continue
		}
		at := "/tools/" + strconv.Itoa(i)
		c.schemaRefs(at+"/arguments", t.arguments)
		c.schemaRefs(at+"/response", t.response)
		source := t.source
		c.exec(at, t.safetyTier, source)
		ref := t.descriptor
		if want := descriptorKind(source); want != "" && ref.Kind != want {
			c.add(KindSafety, at+"/descriptor/kind", fmt.Sprintf("is %s, but a tool of source %s has descriptor kind %s", quote(ref.Kind), source, want))
		}
		name := t.name
		if name == "" {
			continue
		}
		if old, ok := c.ids[dir][name]; ok && old != ref {
			c.add(KindIdentityReassigned, at+"/descriptor", fmt.Sprintf("tool %s has descriptor %s here and %s in another document of the site", name, refString(ref), refString(old)))
			continue
		}
		c.ids[dir][name] = ref
	}
	return versionBad
}

// descriptorKind is the descriptor kind of a tool of source, "" for an
// unknown source (the schema reports it).
func descriptorKind(source string) string {
	switch source {
	case spec.SourceOpenAPI:
		return tool.DescriptorOpenAPI
	case spec.SourceMCP:
		return tool.DescriptorMCP
	case spec.SourceHostExtension:
		return tool.DescriptorHostExtension
	}
	return ""
}

func refString(r tool.DescriptorRef) string { return "{" + r.Kind + ", " + r.ID + "}" }
