// Package scaffold writes the starter catalog repository of signpost init:
// the declarations, README, .gitignore and GitHub Actions workflow filled in
// from templates/init, put in place all at once or not at all, and the report
// init prints of what it wrote, what is in the way and what to do next.
package scaffold
