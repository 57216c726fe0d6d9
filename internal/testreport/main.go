// Command testreport runs go test with the arguments it is given and prints
// what go test prints without -v (each package's ok or FAIL line, the
// output of each test that failed, build errors), then, at the end, every
// test that was skipped and why: a skip is never silent. It exits as go
// test does. make test and make test-fast run it:
//
//	go run ./internal/testreport -count=1 ./...
//
// It reads go test -json (cmd/test2json's events); $GO names the go
// command, go by default.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code, err := run(ctx, "", os.Args[1:], os.Stdout, os.Stderr)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "testreport:", err)
	}
	os.Exit(code)
}

// run runs go test -json with args in dir ("" for the current folder),
// reports its events to stdout and returns go test's exit code.
func run(ctx context.Context, dir string, args []string, stdout, stderr io.Writer) (int, error) {
	goCmd := os.Getenv("GO")
	if goCmd == "" {
		goCmd = "go"
	}
	cmd := exec.CommandContext(ctx, goCmd, append([]string{"test", "-json"}, args...)...)
	cmd.Dir = dir
	cmd.Stderr = stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return 2, err
	}
	if err := cmd.Start(); err != nil {
		return 2, fmt.Errorf("start go test: %w", err)
	}
	rerr := report(out, stdout)
	if rerr != nil {
		// Let go test finish writing, whatever is left.
		_, _ = io.Copy(io.Discard, out)
	}
	werr := cmd.Wait()
	var exit *exec.ExitError
	switch {
	case errors.As(werr, &exit):
		return exit.ExitCode(), rerr
	case werr != nil:
		return 2, errors.Join(rerr, werr)
	case rerr != nil:
		return 2, rerr
	}
	return 0, nil
}
