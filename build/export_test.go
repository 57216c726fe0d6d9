package build

// EstimatedSize is what Load expects a build of c to write (see
// estimateBuild), for the tests outside the package.
func EstimatedSize(c *Catalog) BuildSize { return c.size }
