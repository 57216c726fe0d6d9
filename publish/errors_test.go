package publish

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// TestExplainAWSError checks the hints publish adds to the usual AWS
// failures, against the real server where it can.
func TestExplainAWSError(t *testing.T) {
	client, _ := newBucket(t)
	_, err := planS3(context.Background(), client, "no-such-bucket-here", "", nil)
	err = ExplainAWSError(err, "no-such-bucket-here")
	var ae *AWSError
	if !errors.As(err, &ae) || ae.Cause != CauseNoSuchBucket || !strings.HasSuffix(err.Error(), "\nbucket no-such-bucket-here does not exist: create it, or check the target's bucket and endpoint") {
		t.Errorf("missing bucket: %v", err)
	}
	plain := errors.New("something else")
	if got := ExplainAWSError(plain, "b"); got != plain {
		t.Errorf("an unknown error was changed: %v", got)
	}
	creds := fmt.Errorf("operation error S3: ListObjectsV2, get identity: get credentials: failed to refresh cached credentials, no EC2 IMDS role found")
	if got := ExplainAWSError(creds, "b"); !strings.Contains(got.Error(), "no AWS credentials found: set AWS_PROFILE") || !errors.Is(got, creds) {
		t.Errorf("no credentials: %v", got)
	}
}

// TestErrorsNameNoFlags checks that no message of the package names a
// command-line flag: the command adds those.
func TestErrorsNameNoFlags(t *testing.T) {
	errs := []error{
		&DeleteLimitError{Bucket: "b", Limit: 1, Sites: []SiteDeletes{{Prefix: "p/", Deletes: 2}, {Prefix: "q/", Deletes: 3}}},
		&InvalidationTimeoutError{DistributionID: "E1", ID: "I1", Err: context.DeadlineExceeded},
	}
	for c := CauseNoSuchBucket; c <= CauseTimeout; c++ {
		errs = append(errs, &AWSError{Err: errors.New("failed"), Cause: c, Bucket: "b"})
	}
	for _, err := range errs {
		if strings.Contains(err.Error(), "--") || strings.HasSuffix(err.Error(), "\n") {
			t.Errorf("%T: %q", err, err)
		}
	}
	want := "2 deletes planned for s3://b/p/; 3 deletes planned for s3://b/q/, more than the limit of 1: nothing published"
	if got := errs[0].Error(); got != want {
		t.Errorf("refusal: %q, want %q", got, want)
	}
	one := &DeleteLimitError{Bucket: "b", Limit: 0, Sites: []SiteDeletes{{Prefix: "p/", Deletes: 1}}}
	if got, want := one.Error(), "1 delete planned for s3://b/p/, more than the limit of 0: nothing published"; got != want {
		t.Errorf("refusal of one: %q, want %q", got, want)
	}
}
