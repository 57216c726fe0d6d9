package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/signpost-dev/signpost/build/gate"
	"github.com/signpost-dev/signpost/cmd/signpost/internal/cmdutil"
	"github.com/signpost-dev/signpost/internal/atomicfile"
)

func newTokenCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "token",
		Short: "Make the keys and tokens of gated tenant sites",
		Long: `A tenant declared with gate: token in signpost.yaml is served only to
requests carrying Authorization: Bearer TOKEN, a token for that tenant signed
with one of its keys (an HS256 JSON Web Token; its claims are aud, the
tenant, and exp).

The keys file holds the keys, shaped as a CloudFront KeyValueStore import
file, so that one file feeds the store associated with the site's
viewer-request function, signpost serve --token-keys and your token service:

  {"data": [{"key": "acme/k1", "value": "SECRET"}]}

Keep it out of Git: it is as secret as a password. signpost writes it
readable by its owner only.`,
		Args: cmdutil.NoSubcommand,
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(newTokenKeyCmd(nil), newTokenMintCmd(nil))
	return cmd
}

// tokenKeyOptions are the IO and flags of signpost token key.
type tokenKeyOptions struct {
	io                cmdutil.Streams
	file, tenant, kid string
}

// newTokenKeyCmd is signpost token key; runF, runTokenKey when nil, runs
// it with the options the command line gives.
func newTokenKeyCmd(runF func(*tokenKeyOptions) error) *cobra.Command {
	if runF == nil {
		runF = runTokenKey
	}
	o := &tokenKeyOptions{}
	cmd := &cobra.Command{
		Use:   "key --tenant ID --keys FILE",
		Short: "Add a new random signing key for a tenant to a keys file",
		Long: `Key adds a fresh random key (32 bytes of crypto/rand, base64url) for the
tenant to the keys file, creating the file when it is missing. To rotate, add
a key with a new --kid, mint new tokens with it, and remove the old key from
the file and the store once the tokens it signed have expired (at most a day).`,
		Example: `  signpost token key --tenant acme --keys keys.json
  signpost token key --tenant acme --kid k2 --keys keys.json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.io = cmdutil.StreamsOf(cmd)
			return runF(o)
		},
	}
	cmd.Flags().StringVar(&o.file, "keys", "", "the keys file (created when missing)")
	cmd.Flags().StringVar(&o.tenant, "tenant", "", "the tenant the key opens")
	cmd.Flags().StringVar(&o.kid, "kid", "", "the key's id (default k1, for a tenant's first key)")
	_ = cmd.MarkFlagRequired("keys")
	_ = cmd.MarkFlagRequired("tenant")
	return cmd
}

// tokenMintOptions are the IO and flags of signpost token mint.
type tokenMintOptions struct {
	io                cmdutil.Streams
	file, tenant, kid string
	ttl               time.Duration
}

// newTokenMintCmd is signpost token mint; runF, runTokenMint when nil,
// runs it with the options the command line gives.
func newTokenMintCmd(runF func(*tokenMintOptions) error) *cobra.Command {
	if runF == nil {
		runF = runTokenMint
	}
	o := &tokenMintOptions{}
	cmd := &cobra.Command{
		Use:   "mint --tenant ID --keys FILE",
		Short: "Print a token for a tenant's gated site, for testing",
		Long: `Mint prints a token for the tenant, signed with its key --kid (by default the
one whose id sorts last), valid for --ttl (at most 24h). Send it as
Authorization: Bearer TOKEN, or give it to signpost check --token.

Clients in production get their tokens from your own token service, which
signs them with the same keys.`,
		Example: `  signpost token mint --tenant acme --keys keys.json --ttl 15m
  signpost check https://acme.tools.example.com --token "$(signpost token mint --tenant acme --keys keys.json)"`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.io = cmdutil.StreamsOf(cmd)
			return runF(o)
		},
	}
	cmd.Flags().StringVar(&o.file, "keys", "", "the keys file")
	cmd.Flags().StringVar(&o.tenant, "tenant", "", "the tenant the token opens")
	cmd.Flags().StringVar(&o.kid, "kid", "", "the key to sign with (default: the tenant's key whose id sorts last)")
	cmd.Flags().DurationVar(&o.ttl, "ttl", time.Hour, "how long the token is valid (at most 24h)")
	_ = cmd.MarkFlagRequired("keys")
	_ = cmd.MarkFlagRequired("tenant")
	return cmd
}

// runTokenKey adds a new key for o.tenant to o.file.
func runTokenKey(o *tokenKeyOptions) error {
	kid := o.kid
	keys := gate.Keys{}
	data, err := os.ReadFile(o.file)
	switch {
	case err == nil:
		if keys, err = gate.ReadKeys(data); err != nil {
			return fmt.Errorf("%s: %w", o.file, err)
		}
	case !errors.Is(err, fs.ErrNotExist):
		return err
	}
	if kid == "" {
		kid = "k1"
		if last, ok := keys.Latest(o.tenant); ok {
			return cmdutil.UsageError{Err: fmt.Errorf("%s already has the key %s in %s: name the new key with --kid", o.tenant, gate.StoreKey(o.tenant, last), o.file)}
		}
	}
	name := gate.StoreKey(o.tenant, kid)
	if _, ok := keys[name]; ok {
		return cmdutil.UsageError{Err: fmt.Errorf("%s already holds the key %s: choose another --kid", o.file, name)}
	}
	keys[name] = gate.NewSecret()
	if _, err := gate.ReadKeys(keys.Marshal()); err != nil {
		return cmdutil.UsageError{Err: fmt.Errorf("--tenant %s --kid %s: %w", o.tenant, kid, err)}
	}
	if err := atomicfile.WritePrivate(o.io.Ctx, o.file, keys.Marshal()); err != nil {
		return err
	}
	fmt.Fprintf(o.io.ErrOut, "added the key %s to %s; put the file in the site's KeyValueStore and keep it out of Git\n", name, o.file)
	return nil
}

// runTokenMint prints a token for o.tenant, signed with a key of o.file.
func runTokenMint(o *tokenMintOptions) error {
	kid := o.kid
	data, err := os.ReadFile(o.file)
	if err != nil {
		return err
	}
	keys, err := gate.ReadKeys(data)
	if err != nil {
		return fmt.Errorf("%s: %w", o.file, err)
	}
	if kid == "" {
		var ok bool
		if kid, ok = keys.Latest(o.tenant); !ok {
			return cmdutil.UsageError{Err: fmt.Errorf("%s has no key for %s: add one with signpost token key --tenant %s --keys %s", o.file, o.tenant, o.tenant, o.file)}
		}
	}
	if o.ttl <= 0 || o.ttl > gate.MaxLifetime {
		return cmdutil.UsageError{Err: fmt.Errorf("--ttl %v: a token lives more than no time and at most %v", o.ttl, gate.MaxLifetime)}
	}
	tok, err := gate.Mint(keys, o.tenant, kid, time.Now(), o.ttl)
	if err != nil {
		return cmdutil.UsageError{Err: fmt.Errorf("--tenant %s --kid %s: %w", o.tenant, kid, err)}
	}
	_, err = fmt.Fprintln(o.io.Out, strings.TrimSpace(tok))
	return err
}

// readTokenKeys reads the keys file of --token-keys; its errors are usage
// errors that name the flag.
func readTokenKeys(file string) (gate.Keys, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, cmdutil.UsageError{Err: fmt.Errorf("--token-keys: %w", err)}
	}
	keys, err := gate.ReadKeys(data)
	if err != nil {
		return nil, cmdutil.UsageError{Err: fmt.Errorf("--token-keys %s: %w", file, err)}
	}
	return keys, nil
}
