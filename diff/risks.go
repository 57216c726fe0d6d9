package diff

import (
	"fmt"
	"slices"
	"strings"
)

// The kinds of Risk a Change reports, in the order they are listed.
const (
	// RiskTierRaised: a tool's safetyTier moved up the order
	// pure < read < write < exec.
	RiskTierRaised = "tier-raised"
	// RiskEgressWidened: a tool's egress moved up the order
	// none < internal < internet.
	RiskEgressWidened = "egress-widened"
	// RiskReplayLoosened: a tool's replayPolicy moved up the order, from
	// strictest to loosest, deterministic < idempotent < keyed < unsafe.
	RiskReplayLoosened = "replay-loosened"
	// RiskToolAdded: a new tool that can change state: its safetyTier is
	// write or exec. (A tier this version does not know ranks above exec,
	// as for RiskTierRaised, and counts too.) A new pure or read tool is
	// listed as a change, not a risk.
	RiskToolAdded = "tool-added"
	// RiskToolRemoved: a toolId is no longer published, to any tenant or to
	// one that still exists; or a tenant's whole site is gone.
	RiskToolRemoved = "tool-removed"
	// RiskToolReassigned: the same toolId now names a different tool: its
	// MCP server, its MCP name or its source changed.
	RiskToolReassigned = "tool-reassigned"
	// RiskAccessOpened: a gated site is gated no more, or its discovery
	// catalogs and cards are now public: what only token holders could
	// read, anyone can.
	RiskAccessOpened = "access-opened"
	// RiskTenantWidened: a tool is now published to a tenant that did not
	// see it before, or there is a new tenant.
	RiskTenantWidened = "tenant-widened"
	// RiskCompactChanged: the compact view was switched on or off, or a
	// tool's compact descriptor changed while its standard one did not.
	RiskCompactChanged = "compact-changed"
	// RiskServerAdded: a new MCP server: a new endpoint clients connect to
	// and send their credentials to.
	RiskServerAdded = "server-added"
	// RiskServerRemoved: an MCP server is no longer published.
	RiskServerRemoved = "server-removed"
	// RiskServerRemoteChanged: what clients connect to changed: a server's
	// remote endpoints (one added or removed, or anything else about one,
	// such as its URL variables or headers), or the card URL of a server
	// whose card another host serves.
	RiskServerRemoteChanged = "server-remote-changed"
	// RiskOriginChanged: the site's origin or publisher changed, so every
	// URL and identifier the discovery catalogs publish changed. Both are
	// read from the published catalogs: the origin from either, the
	// publisher from the AI catalog.
	RiskOriginChanged = "origin-changed"
	// RiskIdentifierChanged: the AI catalog identifier of a server, or of a
	// site's tool catalog entry, changed while the publisher did not (a
	// new publisher is RiskOriginChanged): clients key what they remember
	// of an entry on its identifier.
	RiskIdentifierChanged = "identifier-changed"
	// RiskRouteRemoved: a route other than the tool routes, one a client
	// could fetch, is no longer published: a discovery catalog switched
	// off, a server card moved or removed.
	RiskRouteRemoved = "route-removed"
	// RiskTargetChanged: where the site is published changed: a publish
	// target of signpost.yaml was added or removed, or its bucket, prefix,
	// region, endpoint, kind, CloudFront distribution or function names
	// changed. Only sides read from declarations (folders and revisions)
	// know their targets; a built site does not record them.
	RiskTargetChanged = "target-changed"
	// RiskReservedChanged: a reserved argument of the tool catalogue (the
	// idempotency key of a keyed tool, the confirmation of an irreversible
	// one) was added, removed or renamed: what a caller must send changed.
	RiskReservedChanged = "reserved-changed"
	// RiskGroupMoved: a tool moved to another group of the tool catalogue:
	// a client that takes one group gains or loses it.
	RiskGroupMoved = "group-moved"
	// RiskLimitsRaised: a limit of signpost.yaml on what a build may
	// write was raised: every build of the catalog, this pull request's
	// included, may take more time, memory and disk.
	RiskLimitsRaised = "limits-raised"
	// RiskRegistryAdded: a server is now in a site's MCP registry: VS Code
	// and Copilot offer it, and Copilot CLI allows it.
	RiskRegistryAdded = "registry-added"
	// RiskRegistryRemoved: a server is no longer in a site's MCP registry:
	// Copilot CLI refuses it.
	RiskRegistryRemoved = "registry-removed"
	// RiskRegistryRenamed: a server of a site's MCP registry is listed
	// under another name (it keeps a remote URL, or its title and
	// description): Copilot CLI refuses the old name.
	RiskRegistryRenamed = "registry-renamed"
	// RiskVersionBackwards: the latest version a site's MCP registry lists
	// for a server comes before the one it listed (semantic versioning's
	// order; a version that is not semantic is never said to go back).
	RiskVersionBackwards = "version-backwards"
)

// RiskAny, given to HasRisk, matches every kind of risk.
const RiskAny = "any"

// riskKinds lists every kind of risk in report order.
var riskKinds = []string{
	RiskTierRaised, RiskEgressWidened, RiskReplayLoosened, RiskToolAdded, RiskToolRemoved,
	RiskToolReassigned, RiskAccessOpened, RiskTenantWidened, RiskCompactChanged, RiskServerAdded, RiskServerRemoved,
	RiskServerRemoteChanged, RiskRegistryAdded, RiskRegistryRemoved, RiskRegistryRenamed, RiskVersionBackwards,
	RiskOriginChanged, RiskIdentifierChanged, RiskRouteRemoved, RiskTargetChanged, RiskLimitsRaised,
	RiskReservedChanged, RiskGroupMoved,
}

// RiskKinds returns every kind of risk, in the order reports list them.
func RiskKinds() []string { return slices.Clone(riskKinds) }

// ParseRiskKinds reads a comma-separated list of risk kinds, such as
// "tier-raised,tool-removed" or "any". Spaces around names are ignored;
// an unknown name is an error that lists the known ones.
func ParseRiskKinds(list string) ([]string, error) {
	var kinds []string
	for k := range strings.SplitSeq(list, ",") {
		k = strings.TrimSpace(k)
		if k == "" {
			continue
		}
		if k != RiskAny && !slices.Contains(riskKinds, k) {
			return nil, fmt.Errorf("unknown risk kind %q: use any or %s", k, strings.Join(riskKinds, ", "))
		}
		if !slices.Contains(kinds, k) {
			kinds = append(kinds, k)
		}
	}
	if len(kinds) == 0 {
		return nil, fmt.Errorf("no risk kind in %q: use any or %s", list, strings.Join(riskKinds, ", "))
	}
	return kinds, nil
}

// rank is the place of v in order, one of the orders of the safety fields
// in build/spec (least to most permissive). A value outside it (a site built
// by another version) ranks above all: changing to it is reported.
func rank(order []string, v string) int {
	if i := slices.Index(order, v); i >= 0 {
		return i
	}
	return len(order)
}

// widens reports whether moving from old to new goes up order.
func widens(order []string, old, new string) bool {
	return old != new && rank(order, new) > rank(order, old)
}
