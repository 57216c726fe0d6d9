package publish

import (
	"net"
	"time"

	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/smithy-go/logging"
)

// Defaults of Limits: a call to an endpoint that stopped answering fails
// in under a minute (three tries of 15 s, and the SDK's short backoff
// between them), instead of hanging the publish.
const (
	DefaultAttemptTimeout = 15 * time.Second
	DefaultAttempts       = 3
)

// Limits bound every call a client of NewS3Client or NewCloudFrontClient
// makes. The zero value means the defaults.
type Limits struct {
	// Attempt bounds one try of a call: connecting, sending the request
	// and reading the whole answer.
	Attempt time.Duration
	// Attempts is how many times a call is tried, the first included.
	Attempts int
}

// loadOptions are the SDK options that apply l, with the defaults for its
// zero fields, and silence the SDK's own log lines (an IMDS fallback
// warning on every machine off EC2): errors say what went wrong.
func (l Limits) loadOptions() []func(*config.LoadOptions) error {
	if l.Attempt <= 0 {
		l.Attempt = DefaultAttemptTimeout
	}
	if l.Attempts <= 0 {
		l.Attempts = DefaultAttempts
	}
	client := awshttp.NewBuildableClient().
		WithTimeout(l.Attempt).
		WithDialerOptions(func(d *net.Dialer) { d.Timeout = l.Attempt })
	return []func(*config.LoadOptions) error{
		config.WithLogger(logging.Nop{}),
		config.WithHTTPClient(client),
		config.WithRetryMaxAttempts(l.Attempts),
	}
}
