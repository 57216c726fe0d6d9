package publish

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"

	"github.com/signpost-dev/signpost/build/spec"
)

// LockName is the object, under a target's prefix, that a publish holds
// while it changes the bucket, so that two publishes to one target never
// interleave. It is written only if absent (an S3 conditional write), and
// deleted when the publish ends; one left by a publish that died expires.
const LockName = spec.LockKey

// lockTTL is how long a lock holds when the publish that wrote it does not
// delete it: longer than any publish, invalidation waits included.
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

// lock takes the lock of the target's prefix for holder, and returns what
// releases it. A lock whose time has lapsed is taken over once.
func (pub *publisher) lock(ctx context.Context, holder string) (release func(context.Context) error, err error) {
	key := normalizePrefix(pub.target.S3.Prefix) + LockName
	now := time.Now()
	rec, _ := json.Marshal(lockRecord{Holder: holder, Started: now.UTC().Truncate(time.Second), Expires: now.Add(lockTTL).UTC().Truncate(time.Second)})
	for attempt := 0; ; attempt++ {
		_, err := pub.bucket.api.PutObject(ctx, &s3.PutObjectInput{
			Bucket:       aws.String(pub.bucket.name),
			Key:          aws.String(key),
			Body:         strings.NewReader(string(rec)),
			ContentType:  aws.String(spec.ContentTypeJSON),
			CacheControl: aws.String("no-store"),
			IfNoneMatch:  aws.String("*"),
		})
		if err == nil {
			return func(ctx context.Context) error { return pub.bucket.delete(ctx, key) }, nil
		}
		if !preconditionFailed(err) || attempt > 0 {
			return nil, fmt.Errorf("take the lock %s: %w", key, err)
		}
		held, err := pub.bucket.readLock(ctx, key)
		if err != nil {
			return nil, err
		}
		if held.Expires.After(now) {
			return nil, &LockedError{Bucket: pub.bucket.name, Key: key, Holder: held.Holder, Started: held.Started, Expires: held.Expires}
		}
		// The publish that wrote it died: the lock is taken over.
		if err := pub.bucket.delete(ctx, key); err != nil {
			return nil, err
		}
	}
}

// readLock reads the lock object key; a body that is not a lock record
// holds the target until an hour from now.
func (b s3Bucket) readLock(ctx context.Context, key string) (lockRecord, error) {
	out, err := b.api.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(b.name), Key: aws.String(key)})
	if err != nil {
		var nsk *types.NoSuchKey
		if errors.As(err, &nsk) {
			// Deleted meanwhile: the next attempt tells.
			return lockRecord{}, nil
		}
		return lockRecord{}, fmt.Errorf("read the lock %s: %w", key, err)
	}
	defer out.Body.Close()
	var rec lockRecord
	data, err := io.ReadAll(io.LimitReader(out.Body, 64<<10))
	if err != nil || json.Unmarshal(data, &rec) != nil || rec.Expires.IsZero() {
		return lockRecord{Holder: "an unknown holder (the lock object is not signpost's)", Expires: time.Now().Add(lockTTL)}, nil
	}
	return rec, nil
}

// delete deletes the object key.
func (b s3Bucket) delete(ctx context.Context, key string) error {
	out, err := b.api.DeleteObjects(ctx, &s3.DeleteObjectsInput{
		Bucket: aws.String(b.name),
		Delete: &types.Delete{Objects: []types.ObjectIdentifier{{Key: aws.String(key)}}, Quiet: aws.Bool(true)},
	})
	if err == nil && len(out.Errors) > 0 {
		err = fmt.Errorf("%s", aws.ToString(out.Errors[0].Message))
	}
	if err != nil {
		return fmt.Errorf("delete %s: %w", key, err)
	}
	return nil
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
