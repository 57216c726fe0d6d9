package registry

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/signpost-dev/signpost/build/catalogfile"
	"github.com/signpost-dev/signpost/build/declarations"
	"github.com/signpost-dev/signpost/build/discovery"
	"github.com/signpost-dev/signpost/build/source"
	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/internal/git"
)

// The Git history of a catalog's servers, which the registry dates its
// versions by (see versions): the declarations of each server at each
// commit that changed the catalog folder, read from the repository's
// objects, never from the clock.

// Bounds of the history read: the commits of the catalog folder, newest
// first, and the bytes of their declaration files. Past either, the older
// commits are not read.
const (
	HistoryCommits = 200
	historyBytes   = 64 << 20
)

// History is what the Git history of a catalog folder says of its
// servers. The zero History, or nil, is a catalog without one.
type History struct {
	// Head is the commit time of the newest commit that changed the
	// catalog folder: the date of what it declares that no commit holds
	// yet. Commits elsewhere in the repository change nothing.
	Head time.Time
	// commits are the servers declared at each commit that changed the
	// catalog folder, oldest first.
	commits []historyCommit
	// digest identifies the commits read (see Digest).
	digest string
}

// Digest identifies what the history says: the commits read, by name and
// time. Two histories of one digest date the registry alike, given the
// same catalog folder. "" for no history.
func (h *History) Digest() string {
	if h == nil {
		return ""
	}
	return h.digest
}

// historyCommit is what one commit declares: each local server whose
// declaration holds to today's rules, by name.
type historyCommit struct {
	at      time.Time
	servers map[string]*discovery.Server
}

// ReadHistory reads the history of the catalog folder dir from HEAD of the
// repository that holds it (see ReadRevisionHistory). A folder in no
// repository, a repository without a commit or no git at all has none: nil
// and no error.
func ReadHistory(ctx context.Context, dir string) (*History, error) {
	prefix, err := git.Prefix(ctx, dir)
	if err != nil {
		if noHistory(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("read the Git history of %s: %w", dir, err)
	}
	return ReadRevisionHistory(ctx, dir, "HEAD", prefix)
}

// noHistory reports whether err says there is no history to read rather
// than that reading it failed.
func noHistory(err error) bool {
	var notRepo *git.NotRepoError
	var noRev *git.NoRevisionError
	return errors.Is(err, git.ErrNotInstalled) || errors.As(err, &notRepo) || errors.As(err, &noRev)
}

// ReadRevisionHistory reads the history of the catalog folder folder
// (relative to the top of the repository that holds repo) from the
// revision rev: its servers' declarations at each commit of rev's
// first-parent history that changed the folder, at most HistoryCommits of
// them, each dated by its committer time, and no more than historyBytes
// of declaration files, each read as Load reads it (package declarations).
// A declaration that breaks a rule of today (discovery.Declare) counts as
// none. A revision that is no commit, or a folder no commit changed, has
// none: nil and no error.
func ReadRevisionHistory(ctx context.Context, repo, rev, folder string) (*History, error) {
	gh, err := git.FolderHistory(ctx, repo, rev, folder, HistoryCommits)
	if err != nil {
		if noHistory(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("read the Git history of %s: %w", repo, err)
	}
	if len(gh.Commits) == 0 {
		return nil, nil
	}
	h := &History{Head: time.Unix(gh.Commits[0].Time, 0).UTC()}
	sum := sha256.New()
	// The declaration files at each commit, newest first: the files at
	// the newest, then each commit's changes undone.
	files := map[string]string{}
	for name, oid := range gh.Files {
		if declares(name) {
			files[name] = oid
		}
	}
	states := make([]map[string]string, len(gh.Commits))
	var oids []string // in the order they are first needed
	need := map[string]bool{}
	for i, c := range gh.Commits {
		states[i] = files
		for _, name := range slices.Sorted(maps.Keys(files)) {
			if oid := files[name]; !need[oid] {
				need[oid] = true
				oids = append(oids, oid)
			}
		}
		prev := maps.Clone(files)
		for _, ch := range c.Changes {
			if !declares(ch.Name) {
				continue
			}
			if ch.Old == "" {
				delete(prev, ch.Name)
			} else {
				prev[ch.Name] = ch.Old
			}
		}
		files = prev
	}
	blobs, err := git.Blobs(ctx, repo, oids, git.BlobOptions{MaxBlob: source.MaxFileSize, MaxTotal: historyBytes})
	var limit *git.LimitError
	if err != nil && !errors.As(err, &limit) {
		return nil, fmt.Errorf("read the Git history of %s: %w", repo, err)
	}
	parsed := map[string][]*discovery.Server{}
	for i, c := range gh.Commits {
		servers := map[string]*discovery.Server{}
		complete := true
		for _, name := range slices.Sorted(maps.Keys(states[i])) {
			oid := states[i][name]
			data, ok := blobs[oid]
			if !ok {
				complete = false // over a bound, or not in a shallow clone
				break
			}
			list, seen := parsed[oid]
			if !seen {
				list = historyServers(name, data)
				parsed[oid] = list
			}
			for _, s := range list {
				if _, dup := servers[s.Name]; !dup {
					servers[s.Name] = s
				}
			}
		}
		if !complete {
			break // this commit and the older ones are not known
		}
		h.commits = append(h.commits, historyCommit{at: time.Unix(c.Time, 0).UTC(), servers: servers})
		fmt.Fprintf(sum, "%s %d\n", c.Hash, c.Time)
	}
	slices.Reverse(h.commits)
	h.digest = hex.EncodeToString(sum.Sum(nil))
	return h, nil
}

// declares reports whether the file at name, relative to the catalog
// folder, is a declaration file (signpost.yaml is not).
func declares(name string) bool {
	return catalogfile.IsDeclaration(name) && name != spec.ConfigFile
}

// historyServers returns the local servers a declaration file of the
// history declares: those whose declaration holds to the rules of
// discovery.Declare.
func historyServers(name string, data []byte) []*discovery.Server {
	if !bytes.Contains(data, []byte("servers")) {
		return nil // not worth parsing: it declares none
	}
	src, _ := source.ParseYAML(name, name, data)
	if src == nil || src.Value == nil {
		return nil
	}
	var out []*discovery.Server
	for _, d := range declarations.Decode(src.Value).Servers {
		s, problems := discovery.Declare(&d)
		if len(problems) == 0 && !s.CrossHost() {
			out = append(out, s)
		}
	}
	return out
}
