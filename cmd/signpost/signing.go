package main

import (
	"context"
	"fmt"
	"os"

	"github.com/signpost-dev/signpost/build"
	"github.com/signpost-dev/signpost/build/signing"
	"github.com/signpost-dev/signpost/build/signing/awskms"
)

// openSigner opens the key that signing.key of the catalog folder dir
// names: nil when signpost.yaml signs nothing. A key is never given on the
// command line: env:NAME reads the environment, file:PATH a file outside
// the catalog folder, kms:ARN a key that stays in AWS KMS. No error
// repeats the key.
func openSigner(ctx context.Context, dir string, cfg *build.Config) (signing.Signer, error) {
	if cfg == nil || cfg.Signing == nil {
		return nil, nil
	}
	kind, name, err := signing.ParseSource(cfg.Signing.Key)
	if err != nil {
		return nil, fmt.Errorf("signing.key: %w", err)
	}
	if kind == signing.SourceKMS {
		s, err := awskms.Open(ctx, name, awskms.Options{})
		if err != nil {
			return nil, fmt.Errorf("signing.key: %w", err)
		}
		return s, nil
	}
	s, err := signing.OpenLocal(kind, name, dir, os.Getenv)
	if err != nil {
		return nil, fmt.Errorf("signing.key: %w", err)
	}
	return s, nil
}
