package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/signpost-dev/signpost/build/output"
	"github.com/signpost-dev/signpost/cmd/signpost/internal/cmdutil"
	"github.com/signpost-dev/signpost/internal/s3test"
	"github.com/signpost-dev/signpost/publish"
)

var updateScripts = flag.Bool("update", false, "rewrite the expected output in testdata/script from the actual output")

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"signpost": func() {
			code := runWithSignals(os.Args[1:], os.Stdout, os.Stderr)
			if code == cmdutil.ExitOK && os.Getenv("SIGNPOST_TEST_SKEW") != "" && os.Getenv("TZ") == verifyVariants[1].tz {
				if err := skewBuild(os.Args[1:]); err != nil {
					fmt.Fprintln(os.Stderr, "skew:", err)
					code = cmdutil.ExitInvalid
				}
			}
			os.Exit(code)
		},
	})
}

// skewBuild stands for a build that depends on its environment: after the
// second verification build of build --verify (the one under TZ
// Pacific/Kiritimati, only when a test sets SIGNPOST_TEST_SKEW), it changes
// one byte of the first site's tool list, and records the new size and
// SHA-256 in the route table, as a consistent but different build would.
func skewBuild(args []string) error {
	out := ""
	for i, a := range args {
		if a == "--out" && i+1 < len(args) {
			out = args[i+1]
		}
	}
	if len(args) == 0 || args[0] != "build" || out == "" {
		return nil
	}
	ctx := context.Background()
	rt, err := output.ReadRouteTable(ctx, out)
	if err != nil {
		return err
	}
	s := &rt.Sites[0]
	for i, r := range s.Routes {
		if r.Route != "/tools" || r.View != "standard" {
			continue
		}
		p := filepath.Join(out, s.Dir, filepath.FromSlash(r.Key))
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		off := bytes.Index(data, []byte(`"description":"`)) + len(`"description":"`)
		data[off] ^= 0x20
		sum := sha256.Sum256(data)
		s.Routes[i].SHA256, s.Routes[i].ETag = hex.EncodeToString(sum[:]), `"`+hex.EncodeToString(sum[:16])+`"`
		if err := os.WriteFile(p, data, 0o644); err != nil {
			return err
		}
	}
	table, err := json.MarshalIndent(rt, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(out, output.RouteTableFile), append(table, '\n'), 0o644)
}

// TestScripts runs the end-to-end command tests in testdata/script. Each
// script works in its own temporary folder; $EXAMPLE is the bundled example
// catalog. (The scripts over the real-world corpus beside the repository
// are in testdata/corpus-script, run by the corpus suite.)
func TestScripts(t *testing.T) {
	testscript.Run(t, scriptParams(t, filepath.Join("testdata", "script"), nil))
}

// scriptParams are the parameters of the scripts in dir, with env set in
// each script's environment besides $EXAMPLE.
func scriptParams(t *testing.T, dir string, env map[string]string) testscript.Params {
	t.Helper()
	example, err := filepath.Abs(filepath.Join("..", "..", "catalogs", "example"))
	if err != nil {
		t.Fatal(err)
	}
	return testscript.Params{
		Dir:                 dir,
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		UpdateScripts:       *updateScripts,
		Condition: func(cond string) (bool, error) {
			switch cond {
			case "s3":
				// Not in -short mode, which installs nothing; in CI a
				// missing server fails the s3server command.
				return !testing.Short() && (s3test.Available() == nil || os.Getenv("CI") != ""), nil
			case "everything":
				return everythingCondition(), nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
		Cmds: scriptCmds(),
		Setup: func(e *testscript.Env) error {
			// The diff and flow scripts skip without git; CI must have it.
			if _, err := exec.LookPath("git"); err != nil && os.Getenv("CI") != "" {
				return fmt.Errorf("git is required in CI: %w", err)
			}
			e.Setenv("EXAMPLE", example)
			// Whether the servers of mcpgo serve the changed tools.
			e.Values["mcpgo"] = &atomic.Bool{}
			for k, v := range env {
				e.Setenv(k, v)
			}
			return nil
		},
	}
}

// scriptCmds are the commands the scripts may use beside testscript's.
func scriptCmds() map[string]func(ts *testscript.TestScript, neg bool, args []string) {
	cmds := map[string]func(ts *testscript.TestScript, neg bool, args []string){"s3server": s3Server, "s3put": s3Put, "serve": serveBackground}
	for k, v := range liveCmds {
		cmds[k] = v
	}
	return cmds
}

// s3Server is the script command "s3server BUCKET": it starts an S3 server
// on 127.0.0.1 for the rest of the script, with BUCKET created, and sets
// $S3_ENDPOINT and the AWS credentials signpost's commands then use.
func s3Server(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: s3server BUCKET")
	}
	srv, err := s3test.Start()
	if err != nil {
		ts.Fatalf("no S3 server (make tools installs versitygw): %v", err)
	}
	ts.Defer(srv.Close)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	client, err := publish.NewS3Client(ctx, s3test.Region, srv.Endpoint, publish.Limits{})
	ts.Check(err)
	_, err = client.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(args[0])})
	ts.Check(err)
	ts.Setenv("S3_ENDPOINT", srv.Endpoint)
	for _, k := range []string{"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_REGION", "AWS_CONFIG_FILE", "AWS_SHARED_CREDENTIALS_FILE"} {
		ts.Setenv(k, os.Getenv(k))
	}
}

// s3Put is the script command "s3put BUCKET KEY BODY": it puts an object
// on the server s3server started, as someone changing the bucket by hand.
func s3Put(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: s3put BUCKET KEY BODY")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	client, err := publish.NewS3Client(ctx, s3test.Region, ts.Getenv("S3_ENDPOINT"), publish.Limits{})
	ts.Check(err)
	_, err = client.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(args[0]), Key: aws.String(args[1]), Body: strings.NewReader(args[2])})
	ts.Check(err)
}

// serveBackground is the script command "serve DIR TENANT": it runs
// signpost serve on DIR's site of TENANT on a free port of 127.0.0.1 for the
// rest of the script, as the README's quick start does in a second
// terminal, and sets $ORIGIN to its URL, and $PORT to its port, once it
// answers.
func serveBackground(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: serve DIR TENANT")
	}
	port, err := s3test.FreePort()
	ts.Check(err)
	addr := "127.0.0.1:" + port
	bin, err := exec.LookPath("signpost")
	ts.Check(err)
	cmd := exec.Command(bin, "serve", ts.MkAbs(args[0]), "--tenant", args[1], "--addr", addr)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	ts.Check(cmd.Start())
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	ts.Defer(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
	})
	client := &http.Client{Timeout: time.Second}
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		select {
		case <-exited:
			ts.Fatalf("signpost serve exited:\n%s", out.String())
		default:
		}
		if resp, err := client.Get("http://" + addr + "/tools"); err == nil {
			resp.Body.Close()
			ts.Setenv("ORIGIN", "http://"+addr)
			ts.Setenv("PORT", port)
			return
		}
	}
	ts.Fatalf("signpost serve did not answer on %s within 30 s:\n%s", addr, out.String())
}
