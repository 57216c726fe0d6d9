package publish

import (
	"net"
	"net/http"
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

// DefaultConcurrency is the number of uploads a publish keeps in flight
// when Options.Concurrency does not say. An upload to S3 waits tens of
// milliseconds on the network and on S3, not on this machine, so a
// publish's rate is about the uploads in flight over that wait: 1,000
// tools through a link of 20 ms took 16.6-18.4 s with 8 in flight, 9.4 s
// with 16 and 7.0-8.3 s with 32; 32 uploads of 20 to 50 ms each stay well
// under the 3,500 a second S3 takes under one prefix.
const DefaultConcurrency = 32

// MaxConcurrency is the most uploads a publish keeps in flight, and the
// connections a client of NewS3Client keeps open to one host: each upload
// in flight reuses one, instead of opening a connection (and a TLS
// session) that the pool, at the SDK's default of 10, would close again.
const MaxConcurrency = 256

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
		WithDialerOptions(func(d *net.Dialer) { d.Timeout = l.Attempt }).
		WithTransportOptions(func(t *http.Transport) { t.MaxIdleConns, t.MaxIdleConnsPerHost = MaxConcurrency, MaxConcurrency })
	return []func(*config.LoadOptions) error{
		config.WithLogger(logging.Nop{}),
		config.WithHTTPClient(client),
		config.WithRetryMaxAttempts(l.Attempts),
	}
}
