package main

import (
	"bytes"
	"context"
	"crypto/md5"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"

	"github.com/signpost-dev/signpost/internal/benchrun"
	"github.com/signpost-dev/signpost/internal/s3test"
)

// The floor of a publish: the simplest parallel client there is, a fixed
// pool of goroutines sending signed PUTs over one plain http.Client, every
// body, its MD5 and its SHA-256 computed before the clock starts. Nothing
// is compared, listed or ordered: no publisher can upload the same objects
// in less time on the same machine, so a publish's distance from it is what
// its planning, ordering and SDK cost.
//
// It runs as a sub-command of this program (`benchpeers floor ...`), in a
// process of its own as every peer does, and prints the time its PUTs took
// on its last line ("floor: N PUT in D").

// floorObject is one PUT, ready to send.
type floorObject struct {
	key                string
	body               []byte
	md5, sha256        string // Content-MD5 (base64) and the payload hash (hex)
	contentType, cache string
}

// floorMain is the sub-command: it reads dir, then PUTs every file below
// it to bucket under prefix at endpoint with workers requests in flight.
func floorMain(args []string) error {
	fl := flag.NewFlagSet("floor", flag.ContinueOnError)
	endpoint := fl.String("endpoint", "", "the S3 endpoint (http://127.0.0.1:PORT)")
	bucket := fl.String("bucket", "", "the bucket")
	prefix := fl.String("prefix", "site/", "the prefix of every key")
	dir := fl.String("dir", "", "the folder whose files are uploaded")
	workers := fl.Int("workers", 16, "requests in flight")
	timeout := fl.Duration("timeout", 10*time.Minute, "the longest the uploads may take")
	if err := fl.Parse(args); err != nil {
		return err
	}
	if *endpoint == "" || *bucket == "" || *dir == "" || *workers < 1 {
		return errors.New("floor needs -endpoint, -bucket, -dir and -workers of at least 1")
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	objs, err := readFloorObjects(*dir, *prefix)
	if err != nil {
		return err
	}
	start := time.Now()
	if err := floorPut(ctx, *endpoint, *bucket, objs, *workers); err != nil {
		return err
	}
	fmt.Printf("floor: %d PUT in %s\n", len(objs), time.Since(start))
	return nil
}

// readFloorObjects reads every file below dir into memory with its hashes,
// keyed by prefix and its slash path below dir.
func readFloorObjects(dir, prefix string) ([]floorObject, error) {
	var objs []floorObject
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		body, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		m := md5.Sum(body)
		s := sha256.Sum256(body)
		ct := "application/json"
		if !strings.HasSuffix(rel, ".json") {
			ct = "application/octet-stream"
		}
		objs = append(objs, floorObject{
			key: prefix + filepath.ToSlash(rel), body: body,
			md5: base64.StdEncoding.EncodeToString(m[:]), sha256: hex.EncodeToString(s[:]),
			contentType: ct, cache: "public, max-age=300",
		})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", dir, err)
	}
	return objs, nil
}

// floorPut sends objs, workers at a time, each on a kept-alive connection
// of one transport, and returns the first failure.
func floorPut(ctx context.Context, endpoint, bucket string, objs []floorObject, workers int) error {
	client := &http.Client{
		Timeout: time.Minute,
		Transport: &http.Transport{
			MaxIdleConns:        workers,
			MaxIdleConnsPerHost: workers,
			IdleConnTimeout:     time.Minute,
		},
	}
	defer client.CloseIdleConnections()
	// S3 signs the path as it is sent, not escaped a second time.
	signer := v4.NewSigner(func(o *v4.SignerOptions) { o.DisableURIPathEscaping = true })
	creds := aws.Credentials{AccessKeyID: s3test.AccessKey, SecretAccessKey: s3test.SecretKey}
	base := strings.TrimSuffix(endpoint, "/") + "/" + bucket + "/"
	var next atomic.Int64
	var once sync.Once
	var first error
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	for range min(workers, len(objs)) {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= len(objs) || ctx.Err() != nil {
					return
				}
				if err := floorPutOne(ctx, client, signer, creds, base, objs[i]); err != nil {
					once.Do(func() { first = err; cancel() })
					return
				}
			}
		})
	}
	wg.Wait()
	return first
}

func floorPutOne(ctx context.Context, client *http.Client, signer *v4.Signer, creds aws.Credentials, base string, o floorObject) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPut, base+s3Escape(o.key), bytes.NewReader(o.body))
	if err != nil {
		return err
	}
	req.ContentLength = int64(len(o.body))
	req.Header.Set("Content-Type", o.contentType)
	req.Header.Set("Cache-Control", o.cache)
	req.Header.Set("Content-MD5", o.md5)
	req.Header.Set("X-Amz-Content-Sha256", o.sha256)
	if err := signer.SignHTTP(ctx, creds, req, o.sha256, "s3", s3test.Region, time.Now()); err != nil {
		return fmt.Errorf("sign %s: %w", o.key, err)
	}
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("put %s: %w", o.key, err)
	}
	defer resp.Body.Close()
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("put %s: %s: %s", o.key, resp.Status, msg)
	}
	return nil
}

// s3Escape percent-encodes key as S3 signs it: every byte but the
// unreserved characters of RFC 3986 and the slash.
func s3Escape(key string) string {
	var b strings.Builder
	for i := 0; i < len(key); i++ {
		c := key[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("-._~/", c) >= 0 {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// floorTime runs the floor sub-command of this program and returns the
// time its PUTs took, which it measures itself, after reading the files.
func floorTime(ctx context.Context, endpoint, bucket, dir string, workers int) (benchrun.Result, error) {
	self, err := os.Executable()
	if err != nil {
		return benchrun.Result{}, err
	}
	r, err := benchrun.Timed(ctx, "", nil, self, "floor", "-endpoint", endpoint, "-bucket", bucket, "-dir", dir, "-workers", fmt.Sprint(workers))
	if err != nil {
		return r, err
	}
	out := strings.TrimSpace(string(r.Out))
	last := out[strings.LastIndexByte(out, '\n')+1:]
	_, d, ok := strings.Cut(last, " in ")
	if !ok || !strings.HasPrefix(last, "floor: ") {
		return r, fmt.Errorf("floor printed no time: %q", last)
	}
	if r.Wall, err = time.ParseDuration(d); err != nil {
		return r, fmt.Errorf("floor printed no time: %q", last)
	}
	return r, nil
}
