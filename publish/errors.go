package publish

import (
	"errors"
	"fmt"
	"net"
	"strings"

	"github.com/aws/smithy-go"

	"github.com/signpost-dev/signpost/build"
	"github.com/signpost-dev/signpost/internal/english"
)

// Cause is a usual cause of a failed call to S3 or CloudFront, as
// [ExplainAWSError] recognises it.
type Cause int

// The causes [ExplainAWSError] recognises.
const (
	// CauseNoSuchBucket: the bucket does not exist, or the endpoint is
	// not the storage that holds it.
	CauseNoSuchBucket Cause = iota + 1
	// CauseWrongRegion: the bucket is in another region than the
	// client's.
	CauseWrongRegion
	// CauseAccessDenied: the credentials lack a permission.
	CauseAccessDenied
	// CauseCredentialsRefused: the credentials are wrong or expired.
	CauseCredentialsRefused
	// CauseNoCredentials: the credential chain found none.
	CauseNoCredentials
	// CauseTimeout: the endpoint did not answer in time, on every try
	// (see Limits).
	CauseTimeout
)

// AWSError is a failed call to S3 or CloudFront for a bucket, with its
// usual cause: its message is Err's, then a line saying what to do.
type AWSError struct {
	Err    error
	Cause  Cause
	Bucket string
}

func (e *AWSError) Error() string { return e.Err.Error() + "\n" + e.Hint() }

func (e *AWSError) Unwrap() error { return e.Err }

// Hint says what to do about the cause.
func (e *AWSError) Hint() string {
	switch e.Cause {
	case CauseNoSuchBucket:
		return "bucket " + e.Bucket + " does not exist: create it, or check the target's bucket and endpoint"
	case CauseWrongRegion:
		return "bucket " + e.Bucket + " is in another region: set the target's region"
	case CauseAccessDenied:
		return "the credentials lack a permission publish needs: templates/aws/cloudfront-s3.yaml's CiPublishPolicy lists them"
	case CauseCredentialsRefused:
		return "the AWS credentials were refused: check the access key, or refresh the session"
	case CauseTimeout:
		return "the endpoint did not answer in time, on any try: check that it is up and reachable, then publish again; the next publish completes what this one left"
	case CauseNoCredentials:
		return "no AWS credentials found: set AWS_PROFILE, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or run where a role is assumed (in GitHub Actions, aws-actions/configure-aws-credentials)"
	}
	return ""
}

// ExplainAWSError returns err, an error of a call to S3 or CloudFront for
// bucket, as an [*AWSError] when it has one of the usual causes: no
// credentials, a missing bucket, a bucket in another region, a permission
// missing. Other errors are returned as they are.
func ExplainAWSError(err error, bucket string) error {
	if err == nil {
		return nil
	}
	var ae smithy.APIError
	var it *InvalidationTimeoutError
	var cause Cause
	switch {
	case errors.As(err, &it):
		return err // its own message says what to do
	case errors.As(err, &ae) && ae.ErrorCode() == "NoSuchBucket":
		cause = CauseNoSuchBucket
	case errors.As(err, &ae) && (ae.ErrorCode() == "AuthorizationHeaderMalformed" || ae.ErrorCode() == "PermanentRedirect"):
		cause = CauseWrongRegion
	case errors.As(err, &ae) && (ae.ErrorCode() == "AccessDenied" || ae.ErrorCode() == "Forbidden"):
		cause = CauseAccessDenied
	case errors.As(err, &ae) && (ae.ErrorCode() == "InvalidAccessKeyId" || ae.ErrorCode() == "SignatureDoesNotMatch" || ae.ErrorCode() == "ExpiredToken"):
		cause = CauseCredentialsRefused
	case strings.Contains(err.Error(), "get credentials") || strings.Contains(err.Error(), "failed to refresh cached credentials"):
		cause = CauseNoCredentials
	case isTimeout(err):
		cause = CauseTimeout
	default:
		return err
	}
	return &AWSError{Err: err, Cause: cause, Bucket: bucket}
}

// isTimeout reports whether err is a call that ran out of time: a network
// timeout (a try of Limits.Attempt), not a cancelled context.
func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// DeleteLimitError refuses a whole publish, before anything changes,
// because some sites plan more deletes than the limit: that usually means a
// wrong prefix or an emptied catalog.
type DeleteLimitError struct {
	Bucket string
	// Limit is Options.MaxDeletes.
	Limit int
	// Sites are the sites over the limit, in the order of the plan.
	Sites []SiteDeletes
}

// SiteDeletes is how many deletes a site plans.
type SiteDeletes struct {
	Prefix  string
	Deletes int
}

func (e *DeleteLimitError) Error() string {
	return e.Planned() + fmt.Sprintf(", more than the limit of %d: nothing published", e.Limit)
}

// Planned lists the sites over the limit: "N deletes planned for
// s3://BUCKET/PREFIX", joined by "; ".
func (e *DeleteLimitError) Planned() string {
	parts := make([]string, len(e.Sites))
	for i, s := range e.Sites {
		parts[i] = fmt.Sprintf("%s planned for s3://%s/%s", english.Count(s.Deletes, "delete", "deletes"), e.Bucket, s.Prefix)
	}
	return strings.Join(parts, "; ")
}

// InvalidationTimeoutError is a wait for an invalidation that ended before
// CloudFront completed it: the timeout ran out (Err is
// context.DeadlineExceeded) or the wait was cancelled. Nothing was deleted,
// and the paths stay pending in the bucket for the next publish.
type InvalidationTimeoutError struct {
	DistributionID, ID string
	Err                error
}

func (e *InvalidationTimeoutError) Error() string {
	return e.Waited() + "; publish again later: the paths stay pending until an invalidation succeeds"
}

// Waited says which wait ended, and why: "wait for invalidation ID on
// distribution DISTRIBUTION: ERR".
func (e *InvalidationTimeoutError) Waited() string {
	return fmt.Sprintf("wait for invalidation %s on distribution %s: %v", e.ID, e.DistributionID, e.Err)
}

func (e *InvalidationTimeoutError) Unwrap() error { return e.Err }

// InvalidError is the error of Run for a catalog whose declarations have
// errors: nothing is built or published.
type InvalidError struct {
	Dir         string
	Diagnostics build.Diagnostics
}

func (e *InvalidError) Error() string {
	n := e.Diagnostics.Errors()
	return fmt.Sprintf("%s: %s; nothing published", e.Dir, english.Count(n, "error", "errors"))
}

// NoTargetError is the error of Run given no target to publish to.
type NoTargetError struct {
	// Targets are the names of the targets signpost.yaml declares, sorted.
	Targets []string
}

func (e *NoTargetError) Error() string { return "no target named: " + e.Declared() }

// Declared says which targets signpost.yaml declares: "this catalog has
// targets a, b", or that it declares none and where to add one.
func (e *NoTargetError) Declared() string {
	if len(e.Targets) == 0 {
		return fmt.Sprintf("this catalog declares no targets: add an s3 target to targets: in %s", build.ConfigFile)
	}
	return fmt.Sprintf("this catalog has %s %s", english.Plural(len(e.Targets), "target", "targets"), strings.Join(e.Targets, ", "))
}

// The hosts whose targets publish does not upload to.
const (
	HostGitHubPages = "GitHub Pages"
	HostCloudflare  = "Cloudflare"
	HostNetlify     = "Netlify"
)

// TargetError is a target Run cannot publish to: one that signpost.yaml
// does not declare as an s3 target, or the target of a host whose own tool
// deploys a build (Host).
type TargetError struct {
	Name string
	// Host is HostGitHubPages, HostCloudflare or HostNetlify for a target
	// of that host; empty for a target that is not declared, or has no s3.
	Host string
	// Targets are the names of the targets signpost.yaml declares, sorted;
	// set when Host is empty.
	Targets []string
}

func (e *TargetError) Error() string {
	if e.Host != "" {
		return fmt.Sprintf("target %s is a %s target, which publish does not upload to: build it for the host and deploy it with the host's tool", e.Name, e.Host)
	}
	return fmt.Sprintf("%s declares no s3 target %s; it declares %s", build.ConfigFile, e.Name, e.Declared())
}

// Declared lists the targets signpost.yaml declares: "a, b", or "none".
func (e *TargetError) Declared() string {
	if len(e.Targets) == 0 {
		return "none"
	}
	return strings.Join(e.Targets, ", ")
}

// OverrideError is a field of S3Override that breaks the rule of the same
// field of signpost.yaml's s3 targets.
type OverrideError struct {
	// Field is bucket, prefix, region or endpoint.
	Field   string
	Message string
}

func (e *OverrideError) Error() string {
	return fmt.Sprintf("the %s given in place of the target's: %s", e.Field, e.Message)
}

// PlaceholderError is a target whose bucket is RunOptions.PlaceholderBucket:
// a catalog not set up for publishing yet.
type PlaceholderError struct {
	Target, Bucket string
}

func (e *PlaceholderError) Error() string {
	return fmt.Sprintf("target %s names the placeholder bucket %s: set its s3.bucket in %s", e.Target, e.Bucket, build.ConfigFile)
}
