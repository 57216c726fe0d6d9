// Package awskms is the signing.Signer of a key held by AWS KMS: an
// asymmetric key of spec ECC_NIST_P256 and usage SIGN_VERIFY, which signs
// with ECDSA_SHA_256 and never leaves KMS. KMS's signatures are ECDSA's
// usual randomized ones: two builds of one commit differ in their
// signatures' bytes (each verifies), unlike a key signpost holds
// (signing.KeySigner, RFC 6979).
package awskms

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/sha256"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/kms"
	"github.com/aws/aws-sdk-go-v2/service/kms/types"
	"github.com/aws/smithy-go/logging"

	"github.com/signpost-dev/signpost/build/signing"
)

// Options are how the KMS client is made.
type Options struct {
	// Endpoint, when set, is where the KMS API is (a test's server);
	// otherwise the region's endpoint.
	Endpoint string
	// Credentials, when set, replace the default credential chain.
	Credentials aws.CredentialsProvider
	// Timeout bounds each attempt of a call (default 10s); a call makes
	// at most 3.
	Timeout time.Duration
}

// Signer signs with a KMS key.
type Signer struct {
	client *kms.Client
	keyID  string
	pub    *ecdsa.PublicKey
	kid    string
}

// Open reads the public key of the KMS key arn (a key's or an alias's ARN,
// whose region it names) and returns its Signer: an error when the key is
// not an ECC_NIST_P256 key for signing with ECDSA_SHA_256.
func Open(ctx context.Context, arn string, opts Options) (*Signer, error) {
	region, err := regionOf(arn)
	if err != nil {
		return nil, err
	}
	timeout := opts.Timeout
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	client := awshttp.NewBuildableClient().WithTimeout(timeout).WithDialerOptions(func(d *net.Dialer) { d.Timeout = timeout })
	load := []func(*config.LoadOptions) error{
		config.WithLogger(logging.Nop{}), config.WithHTTPClient(client), config.WithRetryMaxAttempts(3), config.WithRegion(region),
	}
	if opts.Credentials != nil {
		load = append(load, config.WithCredentialsProvider(opts.Credentials))
	}
	cfg, err := config.LoadDefaultConfig(ctx, load...)
	if err != nil {
		return nil, fmt.Errorf("load AWS configuration for the KMS key: %w", err)
	}
	s := &Signer{keyID: arn, client: kms.NewFromConfig(cfg, func(o *kms.Options) {
		if opts.Endpoint != "" {
			o.BaseEndpoint = aws.String(opts.Endpoint)
		}
	})}
	out, err := s.client.GetPublicKey(ctx, &kms.GetPublicKeyInput{KeyId: aws.String(arn)})
	if err != nil {
		return nil, fmt.Errorf("read the public key of the KMS key %s: %w", arn, err)
	}
	if out.KeySpec != types.KeySpecEccNistP256 || out.KeyUsage != types.KeyUsageTypeSignVerify {
		return nil, fmt.Errorf("the KMS key %s is a %s key for %s: signing needs an ECC_NIST_P256 key for SIGN_VERIFY", arn, out.KeySpec, out.KeyUsage)
	}
	pub, err := x509.ParsePKIXPublicKey(out.PublicKey)
	ec, ok := pub.(*ecdsa.PublicKey)
	if err != nil || !ok || ec.Curve != elliptic.P256() {
		return nil, fmt.Errorf("the KMS key %s gave no P-256 public key", arn)
	}
	s.pub = ec
	if s.kid, err = signing.Thumbprint(ec); err != nil {
		return nil, err
	}
	return s, nil
}

// regionOf is the region an ARN names: arn:PARTITION:kms:REGION:ACCOUNT:….
func regionOf(arn string) (string, error) {
	parts := strings.SplitN(arn, ":", 6)
	if len(parts) != 6 || parts[0] != "arn" || parts[2] != "kms" || parts[3] == "" || !(strings.HasPrefix(parts[5], "key/") || strings.HasPrefix(parts[5], "alias/")) {
		return "", fmt.Errorf("%q is not the ARN of a KMS key or alias (arn:aws:kms:REGION:ACCOUNT:key/ID)", arn)
	}
	return parts[3], nil
}

// Sign implements signing.Signer: KMS signs the SHA-256 of payload
// (MessageType DIGEST, ECDSA_SHA_256), and its DER signature is turned into
// JOSE's r||s, then verified with the key's public key.
func (s *Signer) Sign(ctx context.Context, payload []byte) ([]byte, error) {
	sum := sha256.Sum256(payload)
	out, err := s.client.Sign(ctx, &kms.SignInput{
		KeyId: aws.String(s.keyID), Message: sum[:], MessageType: types.MessageTypeDigest,
		SigningAlgorithm: types.SigningAlgorithmSpecEcdsaSha256,
	})
	if err != nil {
		return nil, fmt.Errorf("sign with the KMS key %s: %w", s.keyID, err)
	}
	if !ecdsa.VerifyASN1(s.pub, sum[:], out.Signature) {
		return nil, errors.New("the KMS key " + s.keyID + " gave a signature its public key does not verify")
	}
	return signing.DERToJOSE(out.Signature)
}

// PublicJWK implements signing.Signer.
func (s *Signer) PublicJWK() *ecdsa.PublicKey { return s.pub }

// KeyID implements signing.Signer: the public key's JWK thumbprint.
func (s *Signer) KeyID() string { return s.kid }

// Deterministic implements signing.Signer: false, KMS's ECDSA is
// randomized.
func (s *Signer) Deterministic() bool { return false }
