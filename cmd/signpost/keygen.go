package main

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/spf13/cobra"

	"github.com/signpost-dev/signpost/build/signing"
	"github.com/signpost-dev/signpost/cmd/signpost/internal/cmdutil"
	"github.com/signpost-dev/signpost/internal/atomicfile"
)

// keygenOptions are the IO and flags of signpost keygen.
type keygenOptions struct {
	io  cmdutil.Streams
	out string
	// random is where the key comes from: crypto/rand, a test's bytes.
	random io.Reader
}

// newKeygenCmd is signpost keygen; runF, runKeygen when nil, runs it with
// the options the command line gives.
func newKeygenCmd(runF func(*keygenOptions) error) *cobra.Command {
	if runF == nil {
		runF = runKeygen
	}
	o := &keygenOptions{random: rand.Reader}
	cmd := &cobra.Command{
		Use:   "keygen [--out FILE]",
		Short: "Make a P-256 key to sign the AI catalog with",
		Long: `Keygen makes a new P-256 private key, as a JSON Web Key, for signing the AI
catalog (signing: in signpost.yaml; see docs/signing.md). With --out it writes
the key to FILE, readable by its owner only, and never over an existing file;
without, it prints the key on standard output, to store as a secret that an
environment variable holds (signing.key: env:NAME).

The key is as secret as a password: keep it out of the catalog's repository.
Standard error says the key's id, the fragment of its verification method in
/.well-known/did.json.`,
		Example: `  signpost keygen --out ~/.config/signpost/signing.jwk
  signpost keygen | gh secret set SIGNPOST_SIGNING_KEY`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.io = cmdutil.StreamsOf(cmd)
			return runF(o)
		},
	}
	cmd.Flags().StringVar(&o.out, "out", "", "write the key to this file (mode 0600) instead of standard output")
	return cmd
}

// runKeygen makes a key and writes or prints it.
func runKeygen(o *keygenOptions) error {
	key, err := signing.GenerateKey(o.random)
	if err != nil {
		return err
	}
	data, err := signing.MarshalPrivateJWK(key)
	if err != nil {
		return err
	}
	kid, err := signing.Thumbprint(&key.PublicKey)
	if err != nil {
		return err
	}
	if o.out == "" {
		if _, err := fmt.Fprintf(o.io.Out, "%s\n", data); err != nil {
			return err
		}
		_, err = fmt.Fprintf(o.io.ErrOut, "made the key %s; store it as a secret and name its variable in signpost.yaml (signing: {key: env:NAME})\n", kid)
		return err
	}
	if _, err := os.Lstat(o.out); err == nil {
		return cmdutil.UsageError{Err: fmt.Errorf("--out %s: the file exists; keygen never replaces a key (choose another file, or remove it first)", o.out)}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return cmdutil.UsageError{Err: fmt.Errorf("--out %s: %w", o.out, err)}
	}
	if err := atomicfile.WritePrivate(o.io.Ctx, o.out, append(data, '\n')); err != nil {
		return err
	}
	_, err = fmt.Fprintf(o.io.ErrOut, "wrote the key %s to %s (mode 0600); name it in signpost.yaml (signing: {key: file:PATH}) and keep it out of Git\n", kid, o.out)
	return err
}
