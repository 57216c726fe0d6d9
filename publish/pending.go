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
const PendingInvalidationName = spec.PendingInvalidationKey

// pendingInvalidation is the body of the PendingInvalidationName object.
type pendingInvalidation struct {
	DistributionID string   `json:"distributionId"`
	Paths          []string `json:"paths"`
}

// readPendingInvalidation returns the paths an earlier publish of the site
// of p left to invalidate: none when there is no PendingInvalidationName
// object. Paths left for another distribution count too: the site's
// objects changed whichever distribution was in front of them, and the one
// there now may have cached them.
func readPendingInvalidation(ctx context.Context, api S3API, p *ObjectPlan) ([]string, error) {
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

// hasPendingInvalidation reports whether the bucket held pending paths for
// the site of p when it was planned.
func hasPendingInvalidation(p *ObjectPlan) bool {
	_, ok := p.own[p.Prefix+PendingInvalidationName]
	return ok
}

// savePendingInvalidation records paths as pending for the site of p.
func savePendingInvalidation(ctx context.Context, api S3API, p *ObjectPlan, distributionID string, paths []string) error {
	body, err := json.Marshal(pendingInvalidation{DistributionID: distributionID, Paths: paths})
	if err != nil {
		return err
	}
	return s3Bucket{api, p.Bucket}.put(ctx, object{key: p.Prefix + PendingInvalidationName, body: append(body, '\n'), contentType: spec.ContentTypeJSON, cacheControl: "no-store"})
}

// clearPendingInvalidation deletes the site's pending paths, once they are
// invalidated.
func clearPendingInvalidation(ctx context.Context, api S3API, p *ObjectPlan) error {
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
