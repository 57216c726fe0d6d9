// Package release holds no code: its tests hold signpost's release to
// what it promises. GoReleaser's configuration (.goreleaser.yaml) is
// valid, a snapshot release of it builds every platform's archive and its
// SHA-256 checksums, the snapshot's binary says its version, commit and
// date, and scripts/install.sh, which the GitHub Action in action.yml
// runs, installs such a release from a local server, and refuses an archive
// whose checksum does not match; signpost's own workflows pin every action
// they use by the SHA of a commit; and every JSON Schema's $id is a file
// that the schemas workflow publishes to the repository's GitHub Pages
// site.
package release
