// Package s3test runs a real S3 server, versitygw, on 127.0.0.1 for the
// tests of the packages that publish to S3. The Makefile installs the
// server into bin/; $SIGNPOST_VERSITYGW names another binary.
package s3test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Credentials and region of the test server.
const (
	AccessKey = "signpost-test-access"
	SecretKey = "signpost-test-secret-key"
	Region    = "us-east-1"
)

// startTimeout bounds the wait for the server to answer.
const startTimeout = 30 * time.Second

// Server is a running versitygw with the posix backend in a temporary
// folder.
type Server struct {
	Endpoint string // http://127.0.0.1:PORT
	dir      string
	log      string // the access log, when StartLogged started it
	bin      string
	cmd      *exec.Cmd
	exited   chan struct{}
}

// Start finds the server binary and starts it on a free loopback port. It
// also points the AWS SDK's default credential chain at the server's
// credentials, and away from any AWS configuration of the machine, for the
// rest of the process.
func Start() (*Server, error) { return start(false) }

// StartLogged is Start with the server's access log on, so that
// Operations can count the requests it answers, without a proxy in front
// of it taking the CPU the programs measured share with the server.
func StartLogged() (*Server, error) { return start(true) }

func start(logged bool) (*Server, error) {
	bin, err := binary()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "signpost-s3-")
	if err != nil {
		return nil, err
	}
	port, err := FreePort()
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	addr := "127.0.0.1:" + port
	s := &Server{Endpoint: "http://" + addr, dir: dir, bin: bin, exited: make(chan struct{})}
	// Keep-alive as S3 does: versitygw closes every connection after one
	// answer by default, and a publish of thousands of objects would
	// measure TCP handshakes. Quiet: it logs every request otherwise.
	args := []string{"--port", addr, "--keep-alive", "--quiet"}
	if logged {
		s.log = filepath.Join(dir, "access.log")
		args = append(args, "--access-log", s.log)
	}
	s.cmd = exec.Command(bin, append(args, "posix", filepath.Join(dir, "data"))...)
	if err := os.Mkdir(filepath.Join(dir, "data"), 0o755); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	s.cmd.Env = append(os.Environ(), "ROOT_ACCESS_KEY="+AccessKey, "ROOT_SECRET_KEY="+SecretKey)
	var logs bytes.Buffer
	s.cmd.Stdout, s.cmd.Stderr = &logs, &logs
	if err := s.cmd.Start(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("start %s: %w", bin, err)
	}
	go func() { _ = s.cmd.Wait(); close(s.exited) }()
	if err := waitReady(s.Endpoint+"/", s.exited, startTimeout); err != nil {
		s.Close()
		return nil, fmt.Errorf("versitygw: %w\n%s", err, logs.String())
	}
	for k, v := range map[string]string{
		"AWS_ACCESS_KEY_ID":           AccessKey,
		"AWS_SECRET_ACCESS_KEY":       SecretKey,
		"AWS_REGION":                  Region,
		"AWS_CONFIG_FILE":             filepath.Join(dir, "no-config"),
		"AWS_SHARED_CREDENTIALS_FILE": filepath.Join(dir, "no-credentials"),
	} {
		os.Setenv(k, v)
	}
	os.Unsetenv("AWS_PROFILE")
	os.Unsetenv("AWS_SESSION_TOKEN")
	return s, nil
}

// operationRE finds the operation in a line of the access log.
var operationRE = regexp.MustCompile(` s3_([A-Za-z0-9]+) `)

// Operations counts the requests the server answered, by operation
// (PutObject, ListObjectsV2, ...), since the offset mark of its access
// log, and returns the offset to count from next. The server writes a
// line after its answer: Operations reads once the log has not grown for
// a tenth of a second, at most ten seconds.
func (s *Server) Operations(mark int64) (map[string]int, int64, error) {
	if s.log == "" {
		return nil, 0, errors.New("the server has no access log: start it with StartLogged")
	}
	size := int64(-1)
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		fi, err := os.Stat(s.log)
		if err != nil {
			return nil, 0, err
		}
		if fi.Size() == size {
			break
		}
		size = fi.Size()
	}
	f, err := os.Open(s.log)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.NewSectionReader(f, mark, size-mark))
	if err != nil {
		return nil, 0, err
	}
	ops := map[string]int{}
	for line := range bytes.Lines(data) {
		if m := operationRE.FindSubmatch(line); m != nil {
			ops[string(m[1])]++
		}
	}
	return ops, size, nil
}

// CreateBucket makes a bucket owned by the server's credentials, with the
// server's own admin command: for programs that have no S3 client of
// their own, such as the benchmark commands (only publish uses the AWS
// SDK).
func (s *Server) CreateBucket(ctx context.Context, name string) error {
	ctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, s.bin, "admin", "--access", AccessKey, "--secret", SecretKey,
		"--region", Region, "--endpoint-url", s.Endpoint, "create-bucket", "--owner", AccessKey, "--bucket", name)
	cmd.WaitDelay = time.Second
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("create the bucket %s: %w\n%s", name, err, out)
	}
	return nil
}

// CPU is the CPU time, user and system, the server has spent since it
// started, as Linux reports it in /proc; an error elsewhere.
func (s *Server) CPU() (time.Duration, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", s.cmd.Process.Pid))
	if err != nil {
		return 0, fmt.Errorf("the server's CPU time: %w", err)
	}
	return procCPU(data)
}

// procCPU reads the user and system time of a /proc/PID/stat line: its
// 14th and 15th fields, in the clock ticks Linux counts for user space
// (100 a second), after the command's name, which is in parentheses and
// may hold spaces.
func procCPU(stat []byte) (time.Duration, error) {
	i := bytes.LastIndexByte(stat, ')')
	fields := strings.Fields(string(stat[i+1:]))
	if i < 0 || len(fields) < 13 {
		return 0, fmt.Errorf("the server's CPU time: %q is not a /proc/PID/stat line", stat)
	}
	var ticks int64
	for _, f := range fields[11:13] { // the 14th and 15th fields: the name and the state are the 2nd and 3rd
		n, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("the server's CPU time: %q is not a /proc/PID/stat line", stat)
		}
		ticks += n
	}
	return time.Duration(ticks) * (time.Second / 100), nil
}

// Close stops the server and removes its data.
func (s *Server) Close() {
	_ = s.cmd.Process.Kill()
	<-s.exited
	os.RemoveAll(s.dir)
}

// Available explains why no server can be started, or returns nil.
func Available() error {
	_, err := binary()
	return err
}

// binary finds the server: $SIGNPOST_VERSITYGW, else bin/versitygw at the
// module root.
func binary() (string, error) {
	if p := os.Getenv("SIGNPOST_VERSITYGW"); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("SIGNPOST_VERSITYGW: %w", err)
		}
		return p, nil
	}
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			p := filepath.Join(dir, "bin", "versitygw")
			if _, err := os.Stat(p); err != nil {
				return "", fmt.Errorf("no versitygw at %s (make test installs it; or set SIGNPOST_VERSITYGW)", p)
			}
			return p, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the test folder")
		}
		dir = parent
	}
}

// FreePort is a TCP port of 127.0.0.1 that nothing listened on a moment
// ago, for a server started next.
func FreePort() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	_, port, err := net.SplitHostPort(l.Addr().String())
	return port, err
}

// waitReady polls url until the server answers anything, it exits, or the
// timeout passes.
func waitReady(url string, exited <-chan struct{}, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	client := &http.Client{Timeout: time.Second}
	for time.Now().Before(deadline) {
		select {
		case <-exited:
			return errors.New("exited before answering")
		default:
		}
		if resp, err := client.Get(url); err == nil {
			resp.Body.Close()
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("no answer within %v", timeout)
}
