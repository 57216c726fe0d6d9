package cmdutil

import (
	"bufio"
	"bytes"
	"fmt"
	"net/http"
	"os"
	"strings"
)

// maxHeaderFile bounds a header file.
const maxHeaderFile = 64 << 10

// ReadHeaders reads the headers of --header-file and --header-env. No
// message quotes a value: a line of a header file is named by its number,
// an environment variable by its name.
func ReadHeaders(file string, env []string) (http.Header, error) {
	h := http.Header{}
	add := func(where, name, value string) error {
		name, value = strings.TrimSpace(name), strings.TrimSpace(value)
		if !validHeaderName(name) {
			return UsageError{Err: fmt.Errorf("%s: %q is not a header name", where, name)}
		}
		if value == "" || !validHeaderValue(value) {
			return UsageError{Err: fmt.Errorf("%s: the value of header %s is empty or holds a character a header cannot", where, name)}
		}
		h.Add(name, value)
		return nil
	}
	if file != "" {
		data, err := os.ReadFile(file)
		switch {
		case err != nil:
			return nil, fmt.Errorf("--header-file: %w", err)
		case len(data) > maxHeaderFile:
			return nil, UsageError{Err: fmt.Errorf("--header-file %s: over %d bytes", file, maxHeaderFile)}
		}
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(nil, maxHeaderFile+1)
		for n := 1; sc.Scan(); n++ {
			l := strings.TrimSpace(sc.Text())
			if l == "" || strings.HasPrefix(l, "#") {
				continue
			}
			name, value, ok := strings.Cut(l, ":")
			if !ok {
				return nil, UsageError{Err: fmt.Errorf("--header-file %s: line %d is not \"Name: value\"", file, n)}
			}
			if err := add(fmt.Sprintf("--header-file %s, line %d", file, n), name, value); err != nil {
				return nil, err
			}
		}
	}
	for _, e := range env {
		name, variable, ok := strings.Cut(e, "=")
		if !ok || name == "" || variable == "" {
			return nil, UsageError{Err: fmt.Errorf("--header-env %q: want NAME=VAR, the header's name and the environment variable that holds its value", e)}
		}
		value, set := os.LookupEnv(variable)
		if !set {
			return nil, UsageError{Err: fmt.Errorf("--header-env %s: the environment variable %s is not set", e, variable)}
		}
		if err := add("--header-env "+e, name, value); err != nil {
			return nil, err
		}
	}
	if len(h) == 0 {
		return nil, nil
	}
	return h, nil
}

// validHeaderName reports whether name is a token (RFC 9110, 5.1).
func validHeaderName(name string) bool {
	if name == "" {
		return false
	}
	for _, r := range name {
		if r > 0x7e || r <= ' ' || strings.ContainsRune(`"(),/:;<=>?@[\]{}`, r) {
			return false
		}
	}
	return true
}

// validHeaderValue reports whether value holds no control character but
// a tab (RFC 9110, 5.5).
func validHeaderValue(value string) bool {
	for _, r := range value {
		if (r < ' ' && r != '\t') || r == 0x7f {
			return false
		}
	}
	return true
}
