// Package scaffold writes the starter catalog repository of signpost init:
// the declarations, README, .gitignore and GitHub Actions workflow filled in
// from templates/init, put in place all at once or not at all.
package scaffold
