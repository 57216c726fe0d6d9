//go:build unix

package s3test

import "syscall"

// Pause stops the server process (SIGSTOP): connections stay open and
// nothing answers, as with an endpoint that stalls. Resume continues it.
func (s *Server) Pause() error { return s.cmd.Process.Signal(syscall.SIGSTOP) }

// Resume continues a paused server (SIGCONT).
func (s *Server) Resume() error { return s.cmd.Process.Signal(syscall.SIGCONT) }
