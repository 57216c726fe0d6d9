package publish

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/signpost-dev/signpost/build/target"
)

// Two key value stores of one account, as CloudFront names them.
const (
	storeA = "arn:aws:cloudfront::123456789012:key-value-store/a1b2c3d4-5678-90ab-cdef-EXAMPLE11111"
	storeB = "arn:aws:cloudfront::123456789012:key-value-store/b2c3d4e5-6789-01bc-def0-EXAMPLE22222"
)

// changing lists the operations of log that change a function.
func changing(log []string) []string {
	return slices.DeleteFunc(slices.Clone(log), func(op string) bool {
		return op != "CreateFunction" && op != "UpdateFunction" && op != "PublishFunction"
	})
}

// TestFunctionKeyValueStore takes one function through a key value store
// associated at its creation, kept, replaced, and removed, with the code
// unchanged after the first step: the plan notices the association alone,
// and a plan with nothing to change makes no call that changes anything.
func TestFunctionKeyValueStore(t *testing.T) {
	srv, client := newCloudFront(t)
	ctx := context.Background()
	code := []byte("function handler(event) { return event.request; }\n")
	for _, step := range []struct {
		store, action, change string
	}{
		{storeA, FunctionCreate, "associate key value store " + storeA},
		{storeA, FunctionUnchanged, ""},
		{storeB, FunctionUpdate, "associate key value store " + storeB + " in place of " + storeA},
		{storeB, FunctionUnchanged, ""},
		{"", FunctionUpdate, "remove key value store association " + storeB},
		{"", FunctionUnchanged, ""},
	} {
		before := len(srv.Log())
		p, err := planFunction(ctx, client, "site-viewer-request", code, step.store)
		if err != nil {
			t.Fatal(err)
		}
		if p.Action != step.action || p.KeyValueStoreChange() != step.change {
			t.Fatalf("plan with store %q: %s (%q), want %s (%q)", step.store, p.Action, p.KeyValueStoreChange(), step.action, step.change)
		}
		if err := applyFunction(ctx, client, p); err != nil {
			t.Fatal(err)
		}
		f, _ := srv.Function("site-viewer-request")
		var want []string
		if step.store != "" {
			want = []string{step.store}
		}
		if !slices.Equal(f.LiveKeyValueStores, want) || !slices.Equal(f.KeyValueStores, want) || string(f.Live) != string(code) {
			t.Fatalf("after the plan with store %q: live stores %q, development %q, live code %q", step.store, f.LiveKeyValueStores, f.KeyValueStores, f.Live)
		}
		ops := changing(srv.Log()[before:])
		if step.action == FunctionUnchanged && len(ops) != 0 {
			t.Errorf("an unchanged function with store %q: calls %q, want none that change anything", step.store, ops)
		}
	}

	// A store the infrastructure associated, and the catalog does not
	// name, is removed: the viewer-response function never has one.
	srv.AddFunction("site-viewer-response", code)
	srv.AssociateKeyValueStore("site-viewer-response", storeA)
	p, err := planFunction(ctx, client, "site-viewer-response", code, "")
	if err != nil || p.Action != FunctionUpdate || !slices.Equal(p.LiveKeyValueStoreARNs, []string{storeA}) {
		t.Fatalf("plan of a function with a store not named: %+v, %v", p, err)
	}
	if err := applyFunction(ctx, client, p); err != nil {
		t.Fatal(err)
	}
	if f, _ := srv.Function("site-viewer-response"); len(f.LiveKeyValueStores) != 0 {
		t.Errorf("live stores %q, want none", f.LiveKeyValueStores)
	}

	srv.Fail("DescribeFunction", http.StatusForbidden)
	if _, err := planFunction(ctx, client, "site-viewer-request", code, storeA); err == nil || !strings.Contains(err.Error(), "read CloudFront function site-viewer-request") {
		t.Errorf("failing describe: error %v", err)
	}
}

// TestSitesKeyValueStore publishes the example with a key value store for
// acme's distribution, then again as it is, with another store, and
// without one: only acme's viewer-request function is ever associated, and
// a republish of the same code and store changes no function.
func TestSitesKeyValueStore(t *testing.T) {
	client, bucket := newBucket(t)
	srv, cf := newCloudFront(t)
	ctx := context.Background()
	sites := compileExample(t, nil)
	withStore := func(arn string) *target.Target {
		target := exampleTarget(bucket)
		d := target.CloudFront.Distributions["acme"]
		d.KeyValueStoreARN = arn
		target.CloudFront.Distributions["acme"] = d
		return target
	}
	stores := func(name string) []string {
		f, ok := srv.Function(name)
		if !ok {
			t.Fatalf("no function %s", name)
		}
		if !slices.Equal(f.KeyValueStores, f.LiveKeyValueStores) {
			t.Errorf("%s: development stores %q, live %q", name, f.KeyValueStores, f.LiveKeyValueStores)
		}
		return f.LiveKeyValueStores
	}
	for _, step := range []struct {
		store   string
		actions []string // of viewer-request and viewer-response
	}{
		{storeA, []string{FunctionCreate, FunctionCreate}},
		{storeA, []string{FunctionUnchanged, FunctionUnchanged}},
		{storeB, []string{FunctionUpdate, FunctionUnchanged}},
		{"", []string{FunctionUpdate, FunctionUnchanged}},
		{"", []string{FunctionUnchanged, FunctionUnchanged}},
	} {
		before := len(srv.Log())
		p, err := Sites(ctx, client, cf, sites, withStore(step.store), Options{MaxDeletes: -1})
		if err != nil {
			t.Fatal(err)
		}
		fns := p.Sites[0].CloudFront.Functions
		if len(fns) != 2 || fns[0].Action != step.actions[0] || fns[1].Action != step.actions[1] {
			t.Fatalf("store %q: functions %+v, want actions %q", step.store, fns, step.actions)
		}
		if fns[0].KeyValueStoreARN != step.store || fns[1].KeyValueStoreARN != "" {
			t.Errorf("store %q: planned stores %q and %q", step.store, fns[0].KeyValueStoreARN, fns[1].KeyValueStoreARN)
		}
		var want []string
		if step.store != "" {
			want = []string{step.store}
		}
		if got := stores("acme-viewer-request"); !slices.Equal(got, want) {
			t.Errorf("store %q: viewer-request live stores %q", step.store, got)
		}
		if got := stores("acme-viewer-response"); len(got) != 0 {
			t.Errorf("store %q: viewer-response live stores %q, want none", step.store, got)
		}
		ops := changing(srv.Log()[before:])
		if n := strings.Count(strings.Join(step.actions, " "), FunctionUnchanged); n == 2 && len(ops) != 0 {
			t.Errorf("store %q republished as it is: calls %q, want none that change anything", step.store, ops)
		}
	}
}
