// Package benchrun is what the benchmark commands (internal/benchpeers,
// internal/benchscale) measure a program with: its wall time, CPU time and
// peak resident memory, the files it wrote, the requests it made of the S3
// server of internal/s3test, and the median of several runs.
package benchrun

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"
)

// Result is one run of a command: its wall time and peak resident memory.
type Result struct {
	Wall time.Duration
	// CPU is the command's user and system time.
	CPU    time.Duration
	MaxRSS int64 // bytes
	// SelfRSS is the peak resident memory of this process when it started
	// the command. On Linux a command's MaxRSS is never below it: the
	// child starts in this process's memory (Go starts commands with
	// vfork) and keeps its peak when it executes the command. A MaxRSS at
	// or below SelfRSS measures this process, not the command.
	SelfRSS int64
	Out     []byte
}

// Timed runs name with args in dir, env added to this process's
// environment, and measures it. The command's output is kept for the
// caller; a failure returns it in the error.
func Timed(ctx context.Context, dir string, env []string, name string, args ...string) (Result, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.WaitDelay = 5 * time.Second
	self := selfRSS()
	start := time.Now()
	err := cmd.Run()
	r := Result{Wall: time.Since(start), SelfRSS: self, Out: out.Bytes()}
	if err != nil {
		return r, fmt.Errorf("%s %s: %w\n%s", name, strings.Join(args, " "), err, tail(out.String(), 2000))
	}
	r.CPU = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		r.MaxRSS = int64(ru.Maxrss) * 1024 // kilobytes on Linux
	}
	return r, nil
}

// selfRSS is this process's peak resident memory so far, in bytes.
func selfRSS() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return int64(ru.Maxrss) * 1024 // kilobytes on Linux
}

// SyncDisk flushes dirty pages, so that a run does not pay for the writes
// of the one before.
func SyncDisk() { syscall.Sync() }

func tail(s string, n int) string {
	if len(s) > n {
		return "..." + s[len(s)-n:]
	}
	return s
}

// Median is the median of the wall times, of the CPU times and of the
// peaks of rs, each on its own, which must not be empty.
func Median(rs []Result) Result {
	walls := make([]time.Duration, len(rs))
	cpus := make([]time.Duration, len(rs))
	rss := make([]int64, len(rs))
	var self int64
	for i, r := range rs {
		walls[i], cpus[i], rss[i] = r.Wall, r.CPU, r.MaxRSS
		self = max(self, r.SelfRSS)
	}
	return Result{Wall: MedianOf(walls), CPU: MedianOf(cpus), MaxRSS: MedianOf(rss), SelfRSS: self}
}

// MedianOf is the median of v, which must not be empty; v is left as it
// is.
func MedianOf[T cmp.Ordered](v []T) T {
	v = slices.Clone(v)
	slices.Sort(v)
	return v[len(v)/2]
}

// Tree counts the regular files below dir and their bytes: what a build
// wrote.
func Tree(dir string) (files int, bytes int64, err error) {
	err = filepath.WalkDir(dir, func(_ string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		files++
		info, err := d.Info()
		if err != nil {
			return err
		}
		bytes += info.Size()
		return nil
	})
	return files, bytes, err
}

// Puts counts, of the requests an S3 server answered by operation (as
// s3test.Server.Operations counts them), those that upload an object's
// bytes: a PutObject, or a part of a multipart upload (aws s3 sync sends
// a large object in parts). Others counts every other request.
func Puts(ops map[string]int) (puts, others int64) {
	for op, n := range ops {
		if op == "PutObject" || op == "UploadPart" {
			puts += int64(n)
		} else {
			others += int64(n)
		}
	}
	return puts, others
}

// Seconds prints d as seconds with two decimals.
func Seconds(d time.Duration) string { return fmt.Sprintf("%.2f s", d.Seconds()) }

// Megabytes prints n bytes in whole megabytes (10^6).
func Megabytes(n int64) string { return fmt.Sprintf("%d MB", n/1_000_000) }

// VersionOf is the first line a program prints of its version.
func VersionOf(ctx context.Context, name string, args ...string) string {
	out, err := exec.CommandContext(ctx, name, args...).CombinedOutput()
	if err != nil {
		return "unknown (" + err.Error() + ")"
	}
	line, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	return line
}

// LoadAverage is the machine's load average over the last minute, from
// /proc/loadavg, or "unknown" where there is none.
func LoadAverage() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	first, _, _ := strings.Cut(string(data), " ")
	return first
}
