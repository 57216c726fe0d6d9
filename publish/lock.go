package publish

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"

	"github.com/signpost-dev/signpost/build/spec"
)

// LockName is the object, under a target's prefix, that a publish holds
// while it changes the bucket, so that two publishes to one target never
// interleave. It is written only if absent, written again while the
// publish runs and deleted when it ends only if it is still the one that
// publish wrote (S3's conditional writes and deletes); one left by a
// publish that died expires, and is taken over only if it is still the one
// that expired.
const LockName = spec.LockKey

// lockTTL is how long a lock holds past its last write when the publish
// that wrote it neither writes it again nor deletes it: it died.
const lockTTL = time.Hour

// lockRecord is the body of the LockName object: who holds the target, since
// when, and until when at most.
type lockRecord struct {
	Holder  string    `json:"holder"`
	Started time.Time `json:"started"`
	Expires time.Time `json:"expires"`
}

// LockedError is the error of a publish to a target another publish holds:
// nothing was changed.
type LockedError struct {
	Bucket, Key string
	// Holder says who holds it (a host and process, a CI run), as that
	// publish wrote it; Started and Expires are when it took the lock and
	// when the lock lapses if never deleted.
	Holder           string
	Started, Expires time.Time
}

func (e *LockedError) Error() string {
	return fmt.Sprintf("publish: another publish holds s3://%s/%s: %s, since %s; nothing was changed: run again when it ends (its lock lapses at %s if it never does)",
		e.Bucket, e.Key, e.Holder, e.Started.UTC().Format(time.RFC3339), e.Expires.UTC().Format(time.RFC3339))
}

// ChangedError is the error of a publish whose bucket another publish
// changed after this one listed it: its plan is stale, and nothing was
// changed.
type ChangedError struct {
	Bucket, Key string
}

func (e *ChangedError) Error() string {
	return fmt.Sprintf("publish: s3://%s/%s changed while this publish planned (another publish ended meanwhile); nothing was changed: run again", e.Bucket, e.Key)
}

// Holder is the default holder a lock names: this host and process, and
// the CI run when the environment names one.
func Holder() string {
	host, _ := os.Hostname()
	h := fmt.Sprintf("%s, process %d", host, os.Getpid())
	if run := os.Getenv("GITHUB_RUN_ID"); run != "" {
		h += fmt.Sprintf(", GitHub Actions run %s of %s", run, os.Getenv("GITHUB_REPOSITORY"))
	}
	return h
}

// lockRenewal is how often a publish that holds its target's lock writes
// the lock again, its expiry lockTTL ahead: a publish longer than lockTTL
// (many sites, each waiting on CloudFront before its deletes) keeps it.
const lockRenewal = lockTTL / 4

// heldLock is the lock of a target as the publish that holds it sees it.
// Every write of it after the first, and its release, are conditioned on
// the ETag of the record this publish wrote last: a lock another publish
// took over once it lapsed is never written or deleted by this one.
type heldLock struct {
	bucket  s3Bucket
	key     string
	holder  string
	started time.Time

	mu      sync.Mutex
	etag    string    // of the record this publish wrote last
	expires time.Time // when that record lapses
	lost    error     // why the lock is no longer this publish's, once it is not

	stop    context.CancelFunc // stops the renewals and the work under the lock
	renewer sync.WaitGroup
}

// lock takes the lock of the target's prefix for holder, and keeps it,
// writing it again every every, until it is released. It returns the lock
// and the context the publish changes the bucket under, which ends when
// the lock is lost. A lock whose time has lapsed is taken over, on the
// condition that it is still the lapsed one.
func (pub *publisher) lock(ctx context.Context, holder string, every time.Duration) (*heldLock, context.Context, error) {
	l := &heldLock{bucket: pub.bucket, key: normalizePrefix(pub.target.S3.Prefix) + LockName, holder: holder,
		started: time.Now().UTC().Truncate(time.Second)}
	if err := l.take(ctx); err != nil {
		return nil, nil, err
	}
	work, stop := context.WithCancel(ctx)
	l.stop = stop
	l.renewer.Go(func() { l.renew(work, every) })
	return l, work, nil
}

// take writes the lock where there is none, or over a lapsed one that is
// still the one read, or finds this publish's own record there (S3 stored
// a write whose answer was lost, and the SDK's retry found it).
func (l *heldLock) take(ctx context.Context) error {
	first := l.record()
	over := "" // the ETag of a lapsed lock to take over; "" to write where there is none
	for attempt := 0; ; attempt++ {
		etag, err := l.write(ctx, first, over)
		if err == nil {
			l.etag, l.expires = etag, first.Expires
			return nil
		}
		if !preconditionFailed(err) && !isNotFound(err) || attempt > 2 {
			return fmt.Errorf("take the lock %s: %w", l.key, err)
		}
		held, heldETag, err := l.bucket.readLock(ctx, l.key)
		switch {
		case err != nil:
			return err
		case heldETag == "":
			over = "" // deleted meanwhile
		case l.owns(held):
			l.etag, l.expires = heldETag, held.Expires
			return nil
		case held.Expires.After(time.Now()):
			return &LockedError{Bucket: l.bucket.name, Key: l.key, Holder: held.Holder, Started: held.Started, Expires: held.Expires}
		default:
			over = heldETag // the publish that wrote it died
		}
	}
}

// owns reports whether rec is this publish's: its holder and start (the
// expiry moves with each write).
func (l *heldLock) owns(rec lockRecord) bool {
	return rec.Holder == l.holder && rec.Started.Equal(l.started)
}

// record is the lock's body from now: this publish, and an expiry lockTTL
// ahead.
func (l *heldLock) record() lockRecord {
	return lockRecord{Holder: l.holder, Started: l.started, Expires: time.Now().Add(lockTTL).UTC().Truncate(time.Second)}
}

// write puts rec as the lock: where there is none when ifMatch is empty,
// else only over the object of that ETag. It returns the new ETag.
func (l *heldLock) write(ctx context.Context, rec lockRecord, ifMatch string) (string, error) {
	data, _ := json.Marshal(rec)
	in := &s3.PutObjectInput{
		Bucket:       aws.String(l.bucket.name),
		Key:          aws.String(l.key),
		Body:         bytes.NewReader(data),
		ContentType:  aws.String(spec.ContentTypeJSON),
		CacheControl: aws.String("no-store"),
	}
	if ifMatch == "" {
		in.IfNoneMatch = aws.String("*")
	} else {
		in.IfMatch = aws.String(ifMatch)
	}
	out, err := l.bucket.api.PutObject(ctx, in)
	if err != nil {
		return "", err
	}
	return aws.ToString(out.ETag), nil
}

// lockMargin is how long before the lock it last wrote lapses a publish
// whose renewals keep failing stops: past that, another publish may take
// the target over.
const lockMargin = 5 * time.Minute

// renew writes the lock again every every, until ctx ends. When the lock
// is no longer the one this publish wrote (another publish took it over,
// or it was deleted), or when renewals keep failing until the lock last
// written is about to lapse, it records why and ends ctx: the publish must
// stop changing the bucket. A write that fails otherwise (S3 slowing
// down, a timeout) is tried again within a minute.
func (l *heldLock) renew(ctx context.Context, every time.Duration) {
	wait := every
	for {
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		wait = every
		l.mu.Lock()
		etag, expires := l.etag, l.expires
		l.mu.Unlock()
		rec := l.record()
		next, err := l.write(ctx, rec, etag)
		if ctx.Err() != nil {
			return
		}
		who := "another publish"
		if preconditionFailed(err) || isNotFound(err) {
			// S3 may have stored the write whose answer was lost, and
			// refused the SDK's retry of it.
			held, tag, rerr := l.bucket.readLock(context.WithoutCancel(ctx), l.key)
			switch {
			case rerr != nil || tag == "":
			case l.owns(held):
				next, rec, err = tag, held, nil
			default:
				who = held.Holder
			}
		}
		switch {
		case err == nil:
			l.mu.Lock()
			l.etag, l.expires = next, rec.Expires
			l.mu.Unlock()
		case preconditionFailed(err), isNotFound(err):
			l.lose(fmt.Errorf("publish: the lock s3://%s/%s is no longer this publish's (%s holds it, or it was deleted): this publish stopped; the bucket may hold part of each, so publish again", l.bucket.name, l.key, who))
			return
		case time.Until(expires) < lockMargin+min(every, time.Minute):
			l.lose(fmt.Errorf("publish: the lock s3://%s/%s could not be written again before it lapses (%v): this publish stopped, so that no other publish may take the target over meanwhile; publish again", l.bucket.name, l.key, err))
			return
		default:
			wait = min(every, time.Minute)
		}
	}
}

// lose records why the lock is no longer this publish's, and ends the work
// under it.
func (l *heldLock) lose(why error) {
	l.mu.Lock()
	l.lost = why
	l.mu.Unlock()
	l.stop()
}

// Lost returns why the lock stopped being this publish's, or nil.
func (l *heldLock) Lost() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.lost
}

// release stops the renewals and deletes the lock, if it is still the one
// this publish wrote: by the ETag it wrote last, or, when that is refused
// (a renewal stopped in flight was stored all the same), by the ETag read
// back of a lock it owns.
func (l *heldLock) release(ctx context.Context) error {
	l.stop()
	l.renewer.Wait()
	if l.Lost() != nil {
		return nil // not this publish's to delete
	}
	del := func(etag string) error {
		_, err := l.bucket.api.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(l.bucket.name), Key: aws.String(l.key), IfMatch: aws.String(etag)})
		return err
	}
	err := del(l.etag)
	if preconditionFailed(err) {
		if held, tag, rerr := l.bucket.readLock(ctx, l.key); rerr == nil && tag != "" && l.owns(held) {
			err = del(tag)
		}
	}
	switch {
	case err == nil, isNotFound(err):
		return nil
	case preconditionFailed(err):
		return fmt.Errorf("release the lock %s: another publish holds it now", l.key)
	}
	return fmt.Errorf("release the lock %s: %w", l.key, err)
}

// readLock reads the lock object key and its ETag; the ETag is empty when
// there is none. A body that is not a lock record holds the target until
// an hour from now.
func (b s3Bucket) readLock(ctx context.Context, key string) (lockRecord, string, error) {
	out, err := b.api.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(b.name), Key: aws.String(key)})
	if err != nil {
		if isNotFound(err) {
			return lockRecord{}, "", nil
		}
		return lockRecord{}, "", fmt.Errorf("read the lock %s: %w", key, err)
	}
	defer out.Body.Close()
	etag := aws.ToString(out.ETag)
	var rec lockRecord
	data, err := io.ReadAll(io.LimitReader(out.Body, 64<<10))
	if err != nil || json.Unmarshal(data, &rec) != nil || rec.Expires.IsZero() {
		return lockRecord{Holder: "an unknown holder (the lock object is not signpost's)", Expires: time.Now().Add(lockTTL)}, etag, nil
	}
	return rec, etag, nil
}

// unchangedSince reports an error unless the manifest of each site is what
// its plan saw when it listed the bucket: the same ETag, or still missing.
// It is asked once the lock is held, so that a publish that ended between
// this one's listing and its lock cannot have its objects mixed with this
// one's.
func (pub *publisher) unchangedSince(ctx context.Context, p *Plan) error {
	for _, sp := range p.Sites {
		key := sp.Prefix + ManifestName
		in := &s3.GetObjectInput{Bucket: aws.String(pub.bucket.name), Key: aws.String(key), Range: aws.String("bytes=0-0")}
		if etag := sp.objects.manifestETag; etag != "" {
			in.IfMatch = aws.String(etag)
		}
		out, err := pub.bucket.api.GetObject(ctx, in)
		var nsk *types.NoSuchKey
		switch {
		case err == nil:
			out.Body.Close()
			if sp.objects.manifestETag == "" {
				return &ChangedError{Bucket: pub.bucket.name, Key: key}
			}
		case errors.As(err, &nsk) && sp.objects.manifestETag == "":
		case preconditionFailed(err), errors.As(err, &nsk):
			return &ChangedError{Bucket: pub.bucket.name, Key: key}
		default:
			return fmt.Errorf("read %s: %w", key, err)
		}
	}
	return nil
}

// preconditionFailed reports whether err is S3's answer to a condition
// that did not hold (412).
func preconditionFailed(err error) bool {
	var ae smithy.APIError
	return errors.As(err, &ae) && (ae.ErrorCode() == "PreconditionFailed" || ae.ErrorCode() == "ConditionalRequestConflict")
}
