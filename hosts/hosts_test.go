package hosts

import (
	"testing"

	"github.com/signpost-dev/signpost/build/output"
	"github.com/signpost-dev/signpost/build/spec"
)

func TestLabel(t *testing.T) {
	for _, c := range []struct {
		gap  Gap
		want string
	}{
		{Gap{Route: EveryRoute}, "every route"},
		{Gap{Route: EveryRoute, View: spec.ViewCompact}, "every route"},
		{Gap{Route: "/tools", View: spec.ViewStandard}, "/tools"},
		{Gap{Route: "/tools/{toolId}"}, "/tools/{toolId}"},
		{Gap{Route: "/tools", View: spec.ViewCompact}, "/tools?view=compact"},
	} {
		if got := c.gap.Label(); got != c.want {
			t.Errorf("%+v: label %q, want %q", c.gap, got, c.want)
		}
	}
}

func TestCount(t *testing.T) {
	doc := func(route, view string) output.Document {
		return output.Document{Route: output.Route{Route: route, View: view}}
	}
	s := &output.Site{Documents: []output.Document{doc("/tools", spec.ViewStandard), doc("/tools", spec.ViewCompact), doc("/tools/a", spec.ViewStandard)}}
	routes, own, every := Count(s, []Gap{{Route: "/tools", View: spec.ViewCompact}})
	if routes != 3 || own != 2 || every {
		t.Errorf("one gap of one view: %d, %d, %v; want 3, 2, false", routes, own, every)
	}
	routes, own, every = Count(s, []Gap{{Route: EveryRoute}, {Route: "/tools/a", View: spec.ViewStandard}})
	if routes != 3 || own != 2 || !every {
		t.Errorf("a gap of every route: %d, %d, %v; want 3, 2, true", routes, own, every)
	}
}
