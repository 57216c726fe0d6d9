package source

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	yaml4 "go.yaml.in/yaml/v4"
)

// yamlSyntaxProblem turns a syntax error of the YAML parser into a Problem at
// the mistake itself, with a hint of its likely cause. The parser names the
// line where the construct around the mistake began (often a comment or the
// key above it), so the file is scanned again by a parser that keeps the
// position of the problem and of its context; this happens only for a file
// that does not parse.
func yamlSyntaxProblem(data []byte, err error) Problem {
	var le *yaml4.LoadError
	var n yaml4.Node
	if e := yaml4.Unmarshal(data, &n); errors.As(e, &le) && le.Mark.Line > 0 {
		if strings.HasPrefix(le.Message, "exceeded max depth of ") {
			// The parser's own bound (10,000 levels), far past MaxDepth.
			return tooDeep(le.Mark.Line, le.Mark.Column)
		}
		return syntaxHint(data, le)
	}
	msg := err.Error()
	if strings.Contains(msg, "exceeded max depth of ") {
		line := 1
		if m := yamlLineRE.FindStringSubmatch(msg); m != nil {
			line, _ = strconv.Atoi(m[1])
		}
		return tooDeep(line, 1)
	}
	if m := yamlLineRE.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		return Problem{Line: line, Col: 1, Rule: "yaml-syntax", Msg: "invalid YAML: " + m[2]}
	}
	return Problem{Line: 1, Col: 1, Rule: "yaml-syntax", Msg: "invalid YAML: " + strings.TrimPrefix(msg, "yaml: ")}
}

// tooDeep is the problem of a value nested past the YAML parser's own
// bound, said as the converter says it of one nested past MaxDepth.
func tooDeep(line, col int) Problem {
	return Problem{Line: line, Col: max(col, 1), Rule: "too-deep", Msg: fmt.Sprintf("nested more than %d levels deep", MaxDepth)}
}

var yamlLineRE = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// missingSpaceRE matches a line whose key is followed by a colon and no
// space: "key:value", or "- key:value" in a list.
var missingSpaceRE = regexp.MustCompile(`^(\s*(?:-\s+)?)([A-Za-z0-9_$.-]+):[^\s:/]`)

func syntaxHint(data []byte, le *yaml4.LoadError) Problem {
	lines := bytes.Split(data, []byte("\n"))
	line := func(n int) string {
		if n < 1 || n > len(lines) {
			return ""
		}
		return strings.TrimSuffix(string(lines[n-1]), "\r")
	}
	at := func(l, c int, format string, args ...any) Problem {
		return Problem{Line: l, Col: max(c, 1), Rule: "yaml-syntax", Msg: "invalid YAML: " + fmt.Sprintf(format, args...)}
	}
	mark, ctx := le.Mark, le.ContextMark
	// missingSpace reports the line n when its key has no space after
	// its colon.
	missingSpace := func(n int) (Problem, bool) {
		m := missingSpaceRE.FindStringSubmatch(line(n))
		if m == nil {
			return Problem{}, false
		}
		col := len(m[1]) + len(m[2]) + 1
		return at(n, col, "no space after the colon of %q: write a key and its value as %q", m[2]+":", m[2]+": VALUE"), true
	}
	// The line above, skipping blank lines and comments.
	above := func(n int) int {
		for n--; n >= 1; n-- {
			if t := strings.TrimSpace(line(n)); t != "" && !strings.HasPrefix(t, "#") {
				return n
			}
		}
		return 0
	}
	text := line(mark.Line)
	indent := len(text) - len(strings.TrimLeft(text, " \t"))
	if strings.Contains(text[:indent], "\t") {
		return at(mark.Line, strings.IndexByte(text, '\t')+1, "a tab indents this line: YAML indents with spaces only")
	}
	switch {
	case le.ContextMsg == "while scanning a quoted scalar" && ctx.Line > 0:
		q := "\""
		if c := line(ctx.Line); ctx.Column-1 < len(c) && c[ctx.Column-1] == '\'' {
			q = "'"
		}
		return at(ctx.Line, ctx.Column, "the string that starts with %s here is never closed: end it with %s on the same line", q, q)
	case (le.ContextMsg == "while parsing a flow sequence" || le.ContextMsg == "while parsing a flow mapping") && ctx.Line > 0 && ctx.Line != mark.Line:
		open, end := "[", "]"
		if le.ContextMsg == "while parsing a flow mapping" {
			open, end = "{", "}"
		}
		return at(ctx.Line, ctx.Column, "the %s here is never closed: end it with %s (or separate its items with commas)", open, end)
	case le.ContextMsg == "while parsing a flow node" && mark.Index >= len(bytes.TrimRight(data, " \t\r\n")):
		if l, c, open := lastUnclosed(data); open != 0 {
			end := map[byte]string{'[': "]", '{': "}"}[open]
			return at(l, c, "the %c here is never closed: end it with %s (or separate its items with commas)", open, end)
		}
	case le.ContextMsg == "while scanning a simple key" && ctx.Line > 0:
		if p, ok := missingSpace(ctx.Line); ok {
			return p
		}
		return at(ctx.Line, ctx.Column, "%s: a line of a mapping is a key, a colon and a space, then its value", le.Message)
	case le.Message == "mapping values are not allowed in this context":
		if p, ok := missingSpace(above(mark.Line)); ok {
			return p
		}
		if p, ok := missingSpace(mark.Line); ok {
			return p
		}
		return at(mark.Line, indent+1, "%s: the line above has a value, so this line cannot start a mapping inside it; is it indented too far, or is a value with \": \" not quoted?", le.Message)
	case le.Message == "did not find expected '-' indicator":
		return at(mark.Line, indent+1, "%s: a line in a list either starts a new item with \"- \" or is indented like the fields of the item above it", le.Message)
	case le.Message == "did not find expected key":
		return at(mark.Line, indent+1, "%s: this line is not indented like the keys of the mapping above it", le.Message)
	}
	return at(mark.Line, mark.Column, "%s", le.Message)
}

// lastUnclosed finds the last [ or { of data that no bracket closes, outside
// quoted strings and comments: where a flow collection cut short by the end
// of the file began.
func lastUnclosed(data []byte) (line, col int, open byte) {
	var stack []int
	var quote byte
	for i := 0; i < len(data); i++ {
		c := data[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			} else if c == '\\' && quote == '"' {
				i++
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '#' && (i == 0 || data[i-1] == ' ' || data[i-1] == '\t' || data[i-1] == '\n'):
			for i < len(data) && data[i] != '\n' {
				i++
			}
		case c == '[' || c == '{':
			stack = append(stack, i)
		case (c == ']' || c == '}') && len(stack) > 0:
			stack = stack[:len(stack)-1]
		}
	}
	if len(stack) == 0 {
		return 0, 0, 0
	}
	off := stack[len(stack)-1]
	line, col = lineCol(data, off)
	return line, col, data[off]
}
