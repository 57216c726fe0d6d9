package check

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/check/documents"
	"github.com/signpost-dev/signpost/check/jsonval"
	"github.com/signpost-dev/signpost/check/signatures"
)

// ai-catalog.signature and ai-catalog.trust-manifest: the signer's DID
// document fetched where its did:web DID says (or on the checked origin),
// the signatures verified by check/signatures, and the AI Catalog
// conformance level the catalog reaches.

// didDocumentURL is where the check reads the DID document of the signer
// domain: on the checked origin when it is the domain's, or when the
// origin is a loopback address (a local serve of the site stands for it);
// at https://DOMAIN/.well-known/did.json otherwise.
func (c *checker) didDocumentURL(domain string) (u string, local bool) {
	o, err := url.Parse(c.origin)
	if err == nil && (strings.EqualFold(o.Hostname(), domain) || spec.IsLoopbackHost(o.Hostname())) {
		return c.at(spec.RouteDIDDocument), true
	}
	return signatures.DIDURL(domain), false
}

// signerDomain is the domain of the DID that signs the AI catalog: its root
// signature's signer, else the first signed manifest's; "" when nothing is
// signed or the signer is no root did:web DID.
func signerDomain(cat *documents.AICatalog) string {
	root, _ := jsonval.Object(cat.Raw)
	if sig := signatures.SignatureOf(root); sig != nil {
		s, _ := sig["signer"].(string)
		return signatures.DIDDomain(s)
	}
	for _, e := range cat.Items {
		em, _ := jsonval.Object(e.Raw)
		tms, _ := jsonval.Array(em["trustManifests"])
		for _, tm := range tms {
			m, _ := jsonval.Object(tm)
			if sig := signatures.SignatureOf(m); sig != nil {
				s, _ := sig["signer"].(string)
				return signatures.DIDDomain(s)
			}
		}
	}
	return ""
}

// didPage is the page of the signer's DID document, for the second stage
// of the crawl; none when nothing is signed, or when the document is on
// another origin and the check stays on its own.
func (c *checker) didPage() []*page {
	if c.aiCatalog == nil {
		return nil
	}
	domain := signerDomain(c.aiCatalog)
	if domain == "" {
		return nil
	}
	u, local := c.didDocumentURL(domain)
	c.didURL = u
	if !local && c.opts.SameOrigin {
		return nil
	}
	return []*page{{url: u, role: roleAICatalog, local: local, keep: true}}
}

// checkSignatures applies ai-catalog.signature and ai-catalog.trust-manifest
// to the AI catalog at u, and says the conformance level it reaches.
func (c *checker) checkSignatures(u string) {
	cat := c.aiCatalog
	root, _ := jsonval.Object(cat.Raw)
	v := &signatures.Verifier{Now: c.now()}
	if c.didURL != "" {
		p := c.pages[c.didURL]
		switch {
		case p == nil:
			v.DIDErr = "not read from " + c.didURL + " (the check stays on the checked origin)"
		case p.err != nil || p.status != 200:
			v.DIDErr = c.didURL + " is not served"
		default:
			doc, err := jsonval.Decode(p.body)
			if m, ok := jsonval.Object(doc); err == nil && ok {
				v.DID = m
			} else {
				v.DIDErr = c.didURL + " is not a JSON object: " + fmt.Sprint(err, len(p.body))
			}
		}
	}
	host, _ := jsonval.Object(root["host"])
	hostID, _ := host["identifier"].(string)
	rootOK := false
	if signatures.SignatureOf(root) == nil {
		c.add("ai-catalog.signature", ResultSkip, u, "no signature", "the catalog is not signed")
	} else if signer, why := v.Verify(root, signatures.TypCatalog); why != "" {
		c.add("ai-catalog.signature", ResultFail, u, why, "the catalog's signature must verify under the did:web Catalog Profile (did-web-v1)")
	} else if hostID != signer {
		c.add("ai-catalog.signature", ResultFail, u, fmt.Sprintf("host.identifier %s, signer %s", jsonval.Show(host["identifier"]), signer), "the Catalog Profile requires host.identifier to be exactly the signer")
	} else {
		rootOK = true
		c.add("ai-catalog.signature", ResultPass, u, "signed by "+signer+" (did-web-v1)", "the catalog's signature verifies under the did:web Catalog Profile")
	}
	manifests, endorsed := 0, 0
	for i, e := range cat.Items {
		em, _ := jsonval.Object(e.Raw)
		tms, _ := jsonval.Array(em["trustManifests"])
		id := e.Identifier.Text()
		place := u + "#/" + cat.Entries.Name + "/" + strconv.Itoa(i)
		publisher := ""
		if rest, ok := strings.CutPrefix(id, "urn:air:"); ok {
			publisher, _, _ = strings.Cut(rest, ":")
		}
		ok := false
		for j, tm := range tms {
			m, _ := jsonval.Object(tm)
			if m == nil || signatures.SignatureOf(m) == nil {
				continue
			}
			manifests++
			at := place + "/trustManifests/" + strconv.Itoa(j)
			if why := v.ManifestProblem(em, m, publisher); why != "" {
				c.add("ai-catalog.trust-manifest", ResultFail, at, why, "a signed Trust Manifest must verify under the did:web Publisher Profile and bind the entry's release")
				continue
			}
			ok = true
			c.add("ai-catalog.trust-manifest", ResultPass, at, "signed by did:web:"+publisher+", subject bound", "the publisher's Trust Manifest verifies and binds the entry's release")
		}
		if ok {
			endorsed++
		}
	}
	if manifests == 0 {
		c.add("ai-catalog.trust-manifest", ResultSkip, u, "no signed Trust Manifest", "no entry is signed")
	}
	// The level (AI Catalog 1.0, Conformance Levels).
	level, why := 1, "no host object with a displayName (level 2, Discoverable Catalog)"
	if name, _ := host["displayName"].(string); name != "" {
		level, why = 2, ""
		switch {
		case len(cat.Items) == 0 || endorsed < len(cat.Items):
			why = fmt.Sprintf("%d of %d entries have a verified publisher Trust Manifest", endorsed, len(cat.Items))
		case !rootOK:
			why = "the catalog's own signature (the Catalog Profile) does not verify"
		default:
			level = 3
		}
	}
	c.level, c.levelWhy = level, why
}

// now is the time signatures are held to.
func (c *checker) now() time.Time {
	if c.opts.Now != nil {
		return c.opts.Now()
	}
	return time.Now()
}
