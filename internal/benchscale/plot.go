package main

import (
	"fmt"
	"io"
	"math"
	"strings"
)

// The plot's geometry, in SVG user units: one panel per series side by
// side, the legend below them.
const (
	panelWidth  = 470
	plotLeft    = 70 // from a panel's left edge to its plot
	plotWidth   = 370
	plotTop     = 50
	plotHeight  = 270
	legendTop   = plotTop + plotHeight + 55
	plotBottom  = legendTop + 3*22 + 10
	linearColor = "#888888"
)

// colors of the measures' lines, in the order of measureNames.
var colors = [numMeasures]string{"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e"}

// writeSVG draws each series' measures, each divided by its value at the
// series' first step, against the size divided by the first size, both
// axes in powers of ten, with the line of linear growth (y = x) dashed.
// A measure that grows linearly lies on that line; below it, slower. The
// same series always give the same bytes.
func writeSVG(w io.Writer, title string, all []series) error {
	width := panelWidth * max(len(all), 1)
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n", width, plotBottom, width, plotBottom)
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="#ffffff"/>`+"\n", width, plotBottom)
	fmt.Fprintf(&b, `<text x="%d" y="20" font-size="14" text-anchor="middle">%s</text>`+"\n", width/2, escape(title))
	for i, s := range all {
		drawPanel(&b, i*panelWidth, s)
	}
	drawLegend(&b)
	b.WriteString("</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// point is a step of a series in the plot's logarithms: log10 of the size
// and of the value, each relative to the first step.
type point struct{ x, y float64 }

// curves are the points of each measure of s; a measure whose first value
// is not above zero has none, and a later value not above zero is left out.
func curves(s series) [numMeasures][]point {
	var out [numMeasures][]point
	if len(s.steps) == 0 || s.steps[0].size <= 0 {
		return out
	}
	first := s.steps[0]
	for m := range numMeasures {
		if first.values[m] <= 0 {
			continue
		}
		for _, st := range s.steps {
			if st.values[m] <= 0 || st.size <= 0 {
				continue
			}
			out[m] = append(out[m], point{math.Log10(float64(st.size) / float64(first.size)), math.Log10(st.values[m] / first.values[m])})
		}
	}
	return out
}

func drawPanel(b *strings.Builder, left int, s series) {
	cs := curves(s)
	// The axes span whole powers of ten: the sizes', and the values' with
	// the linear line's.
	xmax := 1.0
	if n := len(s.steps); n > 1 && s.steps[0].size > 0 {
		xmax = math.Max(1, math.Ceil(math.Log10(float64(s.steps[n-1].size)/float64(s.steps[0].size))-1e-9))
	}
	ymin, ymax := 0.0, xmax
	for _, c := range cs {
		for _, p := range c {
			ymin, ymax = math.Min(ymin, math.Floor(p.y+1e-9)), math.Max(ymax, math.Ceil(p.y-1e-9))
		}
	}
	px := func(x float64) float64 { return float64(left+plotLeft) + x/xmax*plotWidth }
	py := func(y float64) float64 { return plotTop + plotHeight - (y-ymin)/(ymax-ymin)*plotHeight }

	first := 0
	if len(s.steps) > 0 {
		first = s.steps[0].size
	}
	fmt.Fprintf(b, `<g><text x="%.1f" y="40" text-anchor="middle">%s</text>`+"\n", px(xmax/2), escape(fmt.Sprintf("%s from %s (%s)", s.unit, thousands(first), s.fixed)))
	fmt.Fprintf(b, `<rect x="%.1f" y="%d" width="%d" height="%d" fill="none" stroke="#000000"/>`+"\n", px(0), plotTop, plotWidth, plotHeight)
	for x := 0.0; x <= xmax+1e-9; x++ {
		if x > 0 && x < xmax {
			fmt.Fprintf(b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#dddddd"/>`+"\n", px(x), plotTop, px(x), plotTop+plotHeight)
		}
		fmt.Fprintf(b, `<text x="%.1f" y="%d" text-anchor="middle">%s</text>`+"\n", px(x), plotTop+plotHeight+16, power(x))
	}
	for y := ymin; y <= ymax+1e-9; y++ {
		if y > ymin && y < ymax {
			fmt.Fprintf(b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#dddddd"/>`+"\n", px(0), py(y), px(xmax), py(y))
		}
		fmt.Fprintf(b, `<text x="%.1f" y="%.1f" text-anchor="end">%s</text>`+"\n", px(0)-6, py(y)+4, power(y))
	}
	fmt.Fprintf(b, `<text x="%.1f" y="%d" text-anchor="middle">%s</text>`+"\n", px(xmax/2), plotTop+plotHeight+34, escape(s.unit+", times the first step"))
	fmt.Fprintf(b, `<text transform="translate(%d %.1f) rotate(-90)" text-anchor="middle">measure, times the first step</text>`+"\n", left+18, py((ymin+ymax)/2))
	// Linear growth: the measure times the size's growth.
	fmt.Fprintf(b, `<polyline points="%.1f,%.1f %.1f,%.1f" fill="none" stroke="%s" stroke-width="1.5" stroke-dasharray="6 4"/>`+"\n", px(0), py(0), px(xmax), py(xmax), linearColor)
	for m, c := range cs {
		if len(c) == 0 {
			continue
		}
		var pts []string
		for _, p := range c {
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", px(p.x), py(p.y)))
		}
		fmt.Fprintf(b, `<polyline points="%s" fill="none" stroke="%s" stroke-width="%.1f"/>`+"\n", strings.Join(pts, " "), colors[m], lineWidth(measure(m)))
		for _, p := range c {
			fmt.Fprintf(b, `<circle cx="%.1f" cy="%.1f" r="3" fill="%s"/>`+"\n", px(p.x), py(p.y), colors[m])
		}
	}
	b.WriteString("</g>\n")
}

func drawLegend(b *strings.Builder) {
	items := make([]string, 0, numMeasures+1)
	for m := range numMeasures {
		items = append(items, fmt.Sprintf(`<line x1="0" y1="0" x2="24" y2="0" stroke="%s" stroke-width="%.1f"/><text x="30" y="4">%s</text>`, colors[m], lineWidth(m), escape(measureNames[m])))
	}
	items = append(items, fmt.Sprintf(`<line x1="0" y1="0" x2="24" y2="0" stroke="%s" stroke-width="1.5" stroke-dasharray="6 4"/><text x="30" y="4">linear growth (factor 1.00)</text>`, linearColor))
	for i, it := range items {
		fmt.Fprintf(b, `<g transform="translate(%d %d)">%s</g>`+"\n", plotLeft+(i%2)*300, legendTop+(i/2)*22, it)
	}
}

// lineWidth is the width of a measure's line: each is drawn over the one
// before, narrower, so that measures that grow alike (files and PUTs) stay
// visible side by side.
func lineWidth(m measure) float64 { return 1.5 + float64(numMeasures-1-m)*1.1 }

// power prints 10^e for a whole e: 0.01, 0.1, 1, 10, 1,000.
func power(e float64) string {
	n := int(math.Round(e))
	if n >= 0 {
		return thousands(int(math.Round(math.Pow(10, float64(n)))))
	}
	return "0." + strings.Repeat("0", -n-1) + "1"
}

// escape makes text safe in an SVG element's content.
func escape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;").Replace(s)
}
