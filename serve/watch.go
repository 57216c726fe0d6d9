package serve

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"time"
)

// Watch calls rebuild whenever a file under dir changes (folders whose
// names start with "." aside), checking every interval until ctx is done.
// It compares a fingerprint of names, sizes and modification times, which
// needs no platform file notification and costs one directory walk.
func Watch(ctx context.Context, dir string, interval time.Duration, rebuild func(context.Context)) error {
	last, err := fingerprint(ctx, dir)
	if err != nil {
		return err
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
		fp, err := fingerprint(ctx, dir)
		if err != nil || fp == last {
			continue
		}
		last = fp
		rebuild(ctx)
	}
}

// fingerprint sums the names, sizes and modification times of the files
// under dir, folders whose names start with "." aside.
func fingerprint(ctx context.Context, dir string) (string, error) {
	h := sha256.New()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if d.IsDir() {
			if p != dir && strings.HasPrefix(d.Name(), ".") {
				return fs.SkipDir
			}
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%s\x00%d\x00%d\n", p, fi.Size(), fi.ModTime().UnixNano())
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("watch %s: %w", dir, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
