package publish

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/signpost-dev/signpost/build/spec"
)

// PendingInvalidationName is the object, under a site's prefix, that holds
// the paths a publish means to invalidate, written before the first upload
// and deleted once they are invalidated. A publish that fails in between
// leaves it, and the next publish invalidates its paths too: otherwise the
// documents it uploaded would look unchanged and stay cached.
const PendingInvalidationName = ".signpost-invalidation.json"

// pendingInvalidation is the body of the PendingInvalidationName object.
type pendingInvalidation struct {
	DistributionID string   `json:"distributionId"`
	Paths          []string `json:"paths"`
}

// ReadPendingInvalidation returns the paths an earlier publish of the site
// of p left to invalidate: none when there is no PendingInvalidationName
// object. Paths left for another distribution count too: the site's
// objects changed whichever distribution was in front of them, and the one
// there now may have cached them.
func ReadPendingInvalidation(ctx context.Context, api S3API, p *Plan) ([]string, error) {
	key := p.Prefix + PendingInvalidationName
	if _, ok := p.own[key]; !ok {
		return nil, nil
	}
	out, err := api.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(p.Bucket), Key: aws.String(key)})
	if err != nil {
		if isNotFound(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("read %s: %w", key, err)
	}
	defer out.Body.Close()
	data, err := io.ReadAll(io.LimitReader(out.Body, 16<<20))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", key, err)
	}
	var pi pendingInvalidation
	if json.Unmarshal(data, &pi) != nil {
		return nil, nil
	}
	var paths []string
	for _, q := range pi.Paths {
		if strings.HasPrefix(q, "/") && !strings.ContainsAny(q, "\x00\n\r") {
			paths = append(paths, q)
		}
	}
	return paths, nil
}

// HasPendingInvalidation reports whether the bucket held pending paths for
// the site of p when it was planned.
func HasPendingInvalidation(p *Plan) bool {
	_, ok := p.own[p.Prefix+PendingInvalidationName]
	return ok
}

// SavePendingInvalidation records paths as pending for the site of p.
func SavePendingInvalidation(ctx context.Context, api S3API, p *Plan, distributionID string, paths []string) error {
	body, err := json.Marshal(pendingInvalidation{DistributionID: distributionID, Paths: paths})
	if err != nil {
		return err
	}
	return put(ctx, api, p.Bucket, p.Prefix+PendingInvalidationName, append(body, '\n'), spec.ContentTypeJSON, "no-store")
}

// ClearPendingInvalidation deletes the site's pending paths, once they are
// invalidated.
func ClearPendingInvalidation(ctx context.Context, api S3API, p *Plan) error {
	key := p.Prefix + PendingInvalidationName
	out, err := api.DeleteObjects(ctx, &s3.DeleteObjectsInput{
		Bucket: aws.String(p.Bucket),
		Delete: &types.Delete{Objects: []types.ObjectIdentifier{{Key: aws.String(key)}}, Quiet: aws.Bool(true)},
	})
	if err == nil && len(out.Errors) > 0 {
		err = fmt.Errorf("%s: %s", aws.ToString(out.Errors[0].Code), aws.ToString(out.Errors[0].Message))
	}
	if err != nil {
		return fmt.Errorf("delete %s: %w", key, err)
	}
	return nil
}
