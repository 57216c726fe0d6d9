package main

import (
	"encoding/xml"
	"errors"
	"io"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

func svgOf(t *testing.T, all []series) string {
	t.Helper()
	var b strings.Builder
	if err := writeSVG(&b, "growth <&>", all); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// polylines are the points of every polyline of an SVG, in order.
func polylines(svg string) []string {
	var out []string
	for _, m := range regexp.MustCompile(`<polyline points="([^"]*)"`).FindAllStringSubmatch(svg, -1) {
		out = append(out, m[1])
	}
	return out
}

func TestSVGWellFormed(t *testing.T) {
	svg := svgOf(t, fixture())
	d := xml.NewDecoder(strings.NewReader(svg))
	root := ""
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("not well-formed XML: %v\n%s", err, svg)
		}
		if se, ok := tok.(xml.StartElement); ok && root == "" {
			root = se.Name.Space + " " + se.Name.Local
		}
	}
	if root != "http://www.w3.org/2000/svg svg" {
		t.Errorf("root element %q, want svg in the SVG namespace", root)
	}
	if !strings.Contains(svg, "growth &lt;&amp;&gt;") {
		t.Error("the title is not escaped")
	}
	if svgOf(t, fixture()) != svg {
		t.Error("the same series drew two different plots")
	}
	for _, name := range measureNames {
		if !strings.Contains(svg, ">"+name+"<") {
			t.Errorf("the legend does not name %s", name)
		}
	}
}

// TestSVGLinear draws a series whose every measure grows linearly: each
// line lies on the linear reference, point for point, and one that grows
// as the square lies above it.
func TestSVGLinear(t *testing.T) {
	linear := series{one: "tool", unit: "tools", fixed: "linear", steps: []step{
		{size: 1_000, values: [numMeasures]float64{1, 1e6, 1e6, 1e3, 1e3}},
		{size: 10_000, values: [numMeasures]float64{10, 1e7, 1e7, 1e4, 1e4}},
		{size: 100_000, values: [numMeasures]float64{100, 1e8, 1e8, 1e5, 1e5}},
	}}
	lines := polylines(svgOf(t, []series{linear}))
	if len(lines) != 1+int(numMeasures) {
		t.Fatalf("%d polylines, want the reference and one per measure: %q", len(lines), lines)
	}
	ref := strings.Fields(lines[0])
	for m, l := range lines[1:] {
		pts := strings.Fields(l)
		if len(pts) != 3 || pts[0] != ref[0] || pts[2] != ref[1] {
			t.Errorf("%s grows linearly but is drawn at %q, off the reference %q", measureNames[m], l, lines[0])
		}
	}

	// The square: 100 times at 10 times the size. The y axis then spans
	// four powers of ten, the reference half of it.
	square := linear
	square.steps = []step{linear.steps[0], {size: 10_000, values: [numMeasures]float64{100, 1e6, 1e6, 1e3, 1e3}}, {size: 100_000, values: [numMeasures]float64{1e4, 1e6, 1e6, 1e3, 1e3}}}
	lines = polylines(svgOf(t, []series{square}))
	ref = strings.Fields(lines[0])
	wall := strings.Fields(lines[1+int(wallTime)])
	if y(t, wall[2]) >= y(t, ref[1]) {
		t.Errorf("a time that grows as the square ends at %s, not above the reference's end %s", wall[2], ref[1])
	}
	flat := strings.Fields(lines[1+int(peakRSS)])
	if y(t, flat[0]) != y(t, flat[2]) || y(t, flat[0]) != y(t, ref[0]) {
		t.Errorf("a measure that does not grow is drawn at %q, not flat from the reference's start %s", flat, ref[0])
	}
}

// y is the y coordinate of a point "x,y" of a polyline: smaller is higher.
func y(t *testing.T, p string) float64 {
	t.Helper()
	_, v, _ := strings.Cut(p, ",")
	f, err := strconv.ParseFloat(v, 64)
	if err != nil {
		t.Fatalf("point %q: %v", p, err)
	}
	return f
}

func TestSVGSkipsNonPositive(t *testing.T) {
	s := series{one: "tenant", unit: "tenants", fixed: "none", steps: []step{
		{size: 1, values: [numMeasures]float64{1, 0, 1, 1, 1}},
		{size: 10, values: [numMeasures]float64{2, 5, 0, 2, 2}},
	}}
	cs := curves(s)
	if len(cs[peakRSS]) != 0 {
		t.Errorf("a measure that starts at zero has points %v", cs[peakRSS])
	}
	if len(cs[outputBytes]) != 1 {
		t.Errorf("a value of zero is drawn: %v", cs[outputBytes])
	}
	if len(cs[wallTime]) != 2 || cs[wallTime][1].x != 1 {
		t.Errorf("wall time points %v, want two, the second at x = 1", cs[wallTime])
	}
	svgOf(t, []series{s, {one: "tool", unit: "tools"}})
}

func TestPower(t *testing.T) {
	for e, want := range map[float64]string{-2: "0.01", -1: "0.1", 0: "1", 1: "10", 3: "1,000"} {
		if got := power(e); got != want {
			t.Errorf("power(%v) = %q, want %q", e, got, want)
		}
	}
}
