package publish

import "context"

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
	done   chan struct{}
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
		li := &listing{done: make(chan struct{})}
		l.byPref[p] = li
		go func() {
			defer close(li.done)
			li.remote, li.err = listSite(ctx, api, bucket, p, rangeKeys)
		}()
	}
	return l
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
