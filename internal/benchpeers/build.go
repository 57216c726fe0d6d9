package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

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
		if err := gencatalog.Write(c.dir, gencatalog.Options{Tools: 10_000, Servers: 1_000, OneFile: i == 0}); err != nil {
			return nil, err
		}
		f, err := os.OpenFile(filepath.Join(c.dir, "signpost.yaml"), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			return nil, err
		}
		_, err = fmt.Fprintf(f, "targets:\n  bench:\n    s3: {bucket: %s, region: us-east-1}\n", bucket)
		if err := join(err, f.Close()); err != nil {
			return nil, err
		}
		c.site = filepath.Join(work, "site-"+filepath.Base(c.dir))
	}
	return cats, nil
}

func join(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// benchBuild builds each catalog and copies its output with cp -r, the
// programs alternating, each run into a folder the run before removed.
func benchBuild(ctx context.Context, c config, cats []*catalog) ([]row, error) {
	var rows []row
	for _, cat := range cats {
		copyDir := cat.site + "-copy"
		var builds, copies []result
		var ratios []float64
		for range c.runs {
			os.RemoveAll(cat.site)
			syncDisk()
			b, err := timed(ctx, "", nil, c.signpost, "build", cat.dir, "--out", cat.site)
			if err != nil {
				return rows, err
			}
			builds = append(builds, b)
			os.RemoveAll(copyDir)
			syncDisk()
			cp, err := timed(ctx, "", nil, "cp", "-r", cat.site, copyDir)
			if err != nil {
				return rows, err
			}
			copies = append(copies, cp)
			ratios = append(ratios, b.wall.Seconds()/cp.wall.Seconds())
			fmt.Printf("build %-9s  signpost %s %s   cp -r %s   %.2fx\n", cat.name, seconds(b.wall), megabytes(b.maxRSS), seconds(cp.wall), ratios[len(ratios)-1])
		}
		os.RemoveAll(copyDir)
		b, cp := median(builds), median(copies)
		goalRatio, goalRSS := 1.2, int64(200_000_000)
		if cat.name == "one file" {
			goalRatio, goalRSS = 1.5, 250_000_000
		}
		// The median of each run's ratio: a run's build and copy follow
		// each other, and a shared disk's speed moves less within a pair
		// than across the runs.
		ratio := medianFloat(ratios)
		files, _ := countFiles(cat.site)
		rows = append(rows, row{
			measure:  fmt.Sprintf("build, %s (%d files written)", cat.name, files),
			signpost: fmt.Sprintf("%s, %s peak RSS", seconds(b.wall), megabytes(b.maxRSS)),
			peer:     "cp -r of the output",
			figure:   seconds(cp.wall),
			ratio:    ratio, ratioOf: "the cost of cp",
			goal: fmt.Sprintf("<= %.1fx, <= %s", goalRatio, megabytes(goalRSS)),
			met:  ratio <= goalRatio && b.maxRSS <= goalRSS,
		})
	}
	return rows, nil
}

func countFiles(dir string) (int, error) {
	n := 0
	err := filepath.WalkDir(dir, func(_ string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			n++
		}
		return err
	})
	return n, err
}
