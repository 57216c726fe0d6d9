package publish

import (
	"context"
	"sync"
)

// Listings are the objects under the prefixes of a target's sites, listed
// ahead of the plan. A publish starts them as soon as it knows its target
// and tenants, so that listing the bucket, which waits on the network,
// overlaps building the sites; Sites then plans from them (Options.Listings).
// A nil *Listings holds none.
type Listings struct {
	bucket string
	byPref map[string]*listing
}

// listing is one prefix's listing, done when done is closed.
type listing struct {
	done chan struct{}
	// read is closed once the manifest is read, with inputs what it
	// records, or once the listing failed.
	read   chan struct{}
	inputs string
	remote *remoteSite
	err    error
}

// Prefetch starts listing bucket under each of prefixes (as SitePrefix
// gives them), each in a goroutine that ends with the listing or with ctx:
// the prefix's manifest is read, then its objects are listed, in ranges at
// the same time when the manifest names enough of them.
func Prefetch(ctx context.Context, api S3API, bucket string, prefixes []string) *Listings {
	l := &Listings{bucket: bucket, byPref: map[string]*listing{}}
	for _, p := range prefixes {
		p = normalizePrefix(p)
		if l.byPref[p] != nil {
			continue
		}
		li := &listing{done: make(chan struct{}), read: make(chan struct{})}
		l.byPref[p] = li
		go func() {
			var once sync.Once
			read := func(meta map[string]string) {
				once.Do(func() { li.inputs = meta[metaInputs]; close(li.read) })
			}
			defer close(li.done)
			defer read(nil)
			li.remote, li.err = listSite(ctx, api, bucket, p, rangeKeys, read)
		}()
	}
	return l
}

// Recorded reports whether the manifest of every prefix being listed
// records inputs (Options.Inputs of the publish that wrote it): whether
// Unchanged may find the sites unchanged. It waits for the manifests only,
// not for the listings.
func (l *Listings) Recorded(ctx context.Context, inputs string) bool {
	if l == nil || inputs == "" || len(l.byPref) == 0 {
		return false
	}
	for _, li := range l.byPref {
		select {
		case <-li.read:
		case <-ctx.Done():
			return false
		}
		if li.inputs != inputs {
			return false
		}
	}
	return true
}

// site waits for the listing of prefix (normalized) in bucket and returns
// it; listed is false when Prefetch did not start one.
func (l *Listings) site(ctx context.Context, bucket, prefix string) (remote *remoteSite, listed bool, err error) {
	if l == nil || l.bucket != bucket || l.byPref[prefix] == nil {
		return nil, false, nil
	}
	li := l.byPref[prefix]
	select {
	case <-li.done:
		return li.remote, true, li.err
	case <-ctx.Done():
		return nil, true, ctx.Err()
	}
}
