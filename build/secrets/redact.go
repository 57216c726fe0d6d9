package secrets

import (
	"strings"
)

// Redact returns text, a message about a catalog, with any credential it
// repeats cut to its first four characters and "…", so that a diagnostic
// about a value (a pattern the value fails, a name it cannot have) never
// prints the secret that value holds. Text without credential material is
// returned as it is.
func Redact(text string) string {
	m, found := scanSecretString(text)
	if !found {
		return text
	}
	if m.member {
		// A member's value among others (a JSON Web Key): every long
		// run of key characters goes, whatever quotes it.
		if out := redactRuns(text); !secretFound(out) {
			return out
		}
		return redactWithheld
	}
	// Word by word first: most credentials are one word of a message.
	var b strings.Builder
	start := -1
	flush := func(end int) {
		if start < 0 {
			return
		}
		word := text[start:end]
		if _, found := scanSecretString(word); found {
			word = secretHint(word)
		}
		b.WriteString(word)
		start = -1
	}
	for i := 0; i < len(text); i++ {
		if strings.IndexByte(" \t\n\"'`,;()[]{}<>", text[i]) >= 0 {
			flush(i)
			b.WriteByte(text[i])
		} else if start < 0 {
			start = i
		}
	}
	flush(len(text))
	out := b.String()
	if _, found := scanSecretString(out); !found {
		return out
	}
	// A credential of several words (a private key, "password: …"): every
	// quoted value goes.
	out = redactQuoted(out)
	if _, found := scanSecretString(out); !found {
		return out
	}
	return redactWithheld
}

const redactWithheld = "(message withheld: it would repeat credential material)"

func secretFound(s string) bool {
	_, found := scanSecretString(s)
	return found
}

// redactKeyRun are the characters of key material, encoded as base64,
// base64url or hex.
var redactKeyRun = newSecretCharset(secretAlnumChars + "_-+/=")

// redactRuns cuts every run of 16 or more key characters of s to its hint.
func redactRuns(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		e := redactKeyRun.span(s, i, len(s))
		switch {
		case e-i >= 16:
			b.WriteString(secretHint(s[i:e]))
			i = e
		case e > i:
			b.WriteString(s[i:e])
			i = e
		default:
			b.WriteByte(s[i])
			i++
		}
	}
	return b.String()
}

// redactQuoted cuts every double-quoted part of s to its hint.
func redactQuoted(s string) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(s, '"')
		if i < 0 {
			break
		}
		j := strings.IndexByte(s[i+1:], '"')
		if j < 0 {
			break
		}
		b.WriteString(s[:i+1])
		b.WriteString(secretHint(s[i+1 : i+1+j]))
		b.WriteByte('"')
		s = s[i+2+j:]
	}
	b.WriteString(s)
	return b.String()
}

// RedactURL returns u, a URL, with every credential it holds cut to its
// first four characters and "…", and the rest as it is, so that a report
// still names the place: the password of its userinfo (or a user name that
// is a token), each query parameter's value that is credential material
// or that its name says is one, each path segment that is, and its
// fragment. A URL without credential material is returned as it is; text
// that is not a URL, or that holds one still once these are cut, is
// redacted as Redact does.
func RedactURL(u string) string {
	if !secretFound(u) {
		return u
	}
	rest, fragment, hasFragment := strings.Cut(u, "#")
	rest, query, hasQuery := strings.Cut(rest, "?")
	scheme, after, ok := strings.Cut(rest, "://")
	if !ok {
		return Redact(u)
	}
	authority, path := after, ""
	if i := strings.IndexByte(after, '/'); i >= 0 {
		authority, path = after[:i], after[i:]
	}
	var b strings.Builder
	b.WriteString(scheme + "://")
	if at := strings.LastIndexByte(authority, '@'); at >= 0 {
		user, password, hasPassword := strings.Cut(authority[:at], ":")
		switch {
		case hasPassword:
			user += ":" + secretHint(password)
		case secretURLUserToken(user) || secretFound(user):
			user = secretHint(user)
		}
		b.WriteString(user + authority[at:])
	} else {
		b.WriteString(authority)
	}
	for i, seg := range strings.Split(path, "/") {
		if i > 0 {
			b.WriteByte('/')
		}
		b.WriteString(Redact(seg))
	}
	if hasQuery {
		b.WriteByte('?')
		for i, param := range strings.Split(query, "&") {
			if i > 0 {
				b.WriteByte('&')
			}
			name, value, hasValue := strings.Cut(param, "=")
			if hasValue && (secretFound("?"+param) || secretFound(value)) {
				param = name + "=" + secretHint(value)
			}
			b.WriteString(param)
		}
	}
	if hasFragment {
		b.WriteString("#" + Redact(fragment))
	}
	if out := b.String(); !secretFound(out) {
		return out
	}
	return Redact(u)
}
