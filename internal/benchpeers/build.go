package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/signpost-dev/signpost/internal/benchrun"
	"github.com/signpost-dev/signpost/internal/gencatalog"
)

// catalog is a generated catalog and the name the report gives it.
type catalog struct {
	name string
	dir  string
	// site is where benchBuild's last run left its build, for serve and
	// the peers of publish.
	site string
}

// bucket is the bucket of the publish target generate declares.
const bucket = "signpost-bench"

// generate writes the two catalogs of 10,000 tools and 1,000 servers, each
// with two tenants, and declares the S3 target the publish measures use.
func generate(work string) ([]*catalog, error) {
	cats := []*catalog{
		{name: "one file", dir: filepath.Join(work, "one-file")},
		{name: "100 files", dir: filepath.Join(work, "hundred-files")},
	}
	for i, c := range cats {
		if err := gencatalog.Write(c.dir, gencatalog.Options{Tools: 10_000, Servers: 1_000, OneFile: i == 0, Bucket: bucket}); err != nil {
			return nil, err
		}
		// A build left in a reused -work folder is of the catalog as an
		// earlier run changed it: the peers would be handed a site that
		// already has this run's change.
		c.site = filepath.Join(work, "site-"+filepath.Base(c.dir))
		if err := os.RemoveAll(c.site); err != nil {
			return nil, err
		}
	}
	return cats, nil
}

// benchBuild builds each catalog and copies its output with cp -r, the
// programs alternating, each run into a folder the run before removed.
func benchBuild(ctx context.Context, c config, cats []*catalog) ([]row, error) {
	var rows []row
	for _, cat := range cats {
		copyDir := cat.site + "-copy"
		var builds, copies []benchrun.Result
		var ratios []float64
		for range c.runs {
			os.RemoveAll(cat.site)
			benchrun.SyncDisk()
			b, err := benchrun.Timed(ctx, "", nil, c.signpost, "build", cat.dir, "--out", cat.site)
			if err != nil {
				return rows, err
			}
			builds = append(builds, b)
			os.RemoveAll(copyDir)
			benchrun.SyncDisk()
			cp, err := benchrun.Timed(ctx, "", nil, "cp", "-r", cat.site, copyDir)
			if err != nil {
				return rows, err
			}
			copies = append(copies, cp)
			ratios = append(ratios, b.Wall.Seconds()/cp.Wall.Seconds())
			fmt.Printf("build %-9s  signpost %s %s   cp -r %s   %.2fx\n", cat.name, benchrun.Seconds(b.Wall), benchrun.Megabytes(b.MaxRSS), benchrun.Seconds(cp.Wall), ratios[len(ratios)-1])
		}
		os.RemoveAll(copyDir)
		b, cp := benchrun.Median(builds), benchrun.Median(copies)
		goalRatio, goalRSS := 1.2, int64(200_000_000)
		if cat.name == "one file" {
			goalRatio, goalRSS = 1.5, 250_000_000
		}
		// The median of each run's ratio: a run's build and copy follow
		// each other, and a shared disk's speed moves less within a pair
		// than across the runs.
		ratio := benchrun.MedianOf(ratios)
		files, _, _ := benchrun.Tree(cat.site)
		rows = append(rows, row{
			measure:  fmt.Sprintf("build, %s (%d files written)", cat.name, files),
			signpost: fmt.Sprintf("%s, %s peak RSS", benchrun.Seconds(b.Wall), benchrun.Megabytes(b.MaxRSS)),
			peer:     "cp -r of the output",
			figure:   benchrun.Seconds(cp.Wall),
			ratio:    ratio, ratioOf: "the cost of cp",
			goal: fmt.Sprintf("<= %.1fx, <= %s", goalRatio, benchrun.Megabytes(goalRSS)),
			met:  ratio <= goalRatio && b.MaxRSS <= goalRSS,
		})
	}
	return rows, nil
}
