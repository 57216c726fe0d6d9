package secrets

import (
	"encoding/base64"
	"strings"
	"unicode/utf8"
)

// Credentials of vendors whose tokens need more than a prefix and a body:
// words around them, a structure of several parts, or a suffix.

// vaultContext: a legacy Vault token ("s." and 24 characters) is told from
// a dotted name only by the word "vault" shortly before it (VAULT_TOKEN,
// X-Vault-Token, "Vault token").
func vaultContext(s string, start int) bool {
	return secretWordBefore(s, start, 64, "vault")
}

// mailgunContext: "key-" and 32 hex digits is a Mailgun key when the text
// names Mailgun, or sends it as the password of the user "api".
func mailgunContext(s string, start int) bool {
	return strings.HasSuffix(s[:start], "api:") || secretWordBefore(s, start, 128, "mailgun") ||
		containsFold(s[start:min(len(s), start+160)], "mailgun")
}

// secretWordBefore reports whether word (lower case) is in the within
// bytes of s before start, in any case.
func secretWordBefore(s string, start, within int, word string) bool {
	return containsFold(s[max(0, start-within):start], word)
}

// containsFold reports whether s holds word (lower case), in any case.
func containsFold(s, word string) bool {
	for i := 0; i+len(word) <= len(s); i++ {
		if strings.EqualFold(s[i:i+len(word)], word) {
			return true
		}
	}
	return false
}

// dopplerShape: an optional environment ("prd."), then 40 or more letters
// and digits.
func dopplerShape(body string) bool {
	last := body[strings.LastIndexByte(body, '.')+1:]
	return len(last) >= 40 && secretAlnum.span(last, 0, len(last)) == len(last)
}

// postmanShape: 24 hex digits, a dash, 34 hex digits.
func postmanShape(body string) bool {
	a, b, ok := strings.Cut(body, "-")
	return ok && len(a) == 24 && len(b) == 34 && !strings.Contains(b, "-")
}

// discordWebhookShape: a webhook id of 17 to 20 digits, a slash, and a
// token of 60 or more base64url characters, and maybe more of a path.
func discordWebhookShape(body string) bool {
	id, tok, ok := strings.Cut(body, "/")
	tok, _, _ = strings.Cut(tok, "/") // a path may follow
	if !ok || len(id) < 17 || len(id) > 20 || strings.Trim(id, "0123456789") != "" {
		return false
	}
	return len(tok) >= 60 && secretBase64URL.span(tok, 0, len(tok)) == len(tok)
}

// matchMailchimpAt matches a Mailchimp API key around the "-us" at s[i]:
// 32 lower-case hex digits, "-us" and the one or two digits of a data
// center.
func matchMailchimpAt(s string, i int) (secretMatch, bool) {
	start := i - 32
	if start < 0 || start > 0 && (isSecretAlnum(s[start-1]) || s[start-1] == '-' || s[start-1] == '_') {
		return secretMatch{}, false
	}
	if secretHexLower.span(s, start, 32) != i || !secretVariety(s[start:i], 2, 10) {
		return secretMatch{}, false
	}
	e := i + 3
	d := e
	for d < len(s) && d-e < 3 && s[d] >= '0' && s[d] <= '9' {
		d++
	}
	if d == e || d-e > 2 || d < len(s) && (isSecretAlnum(s[d]) || s[d] == '_') {
		return secretMatch{}, false
	}
	return secretMatch{what: "a Mailchimp API key (" + secretHint(s[start:d]) + ")", whole: start == 0 && d == len(s)}, true
}

// matchDiscordAt matches a Discord bot token around the "." at s[i]: the
// bot's id (17 to 20 digits) in base64, 23 to 28 characters starting with
// M, N or O, then a timestamp of 6 or 7 and an HMAC of 27 to 40 base64url
// characters, separated by dots.
func matchDiscordAt(s string, i int) (secretMatch, bool) {
	if i+1 >= len(s) || !secretBase64URL[s[i+1]] || i == 0 || !secretBase64URL[s[i-1]] {
		return secretMatch{}, false // most dots end a sentence
	}
	j := i
	for j > 0 && i-j <= 28 && secretBase64URL[s[j-1]] {
		j--
	}
	if n := i - j; n < 23 || n > 28 || j > 0 && (secretBase64URL[s[j-1]] || s[j-1] == '.') {
		return secretMatch{}, false
	}
	if c := s[j]; c != 'M' && c != 'N' && c != 'O' {
		return secretMatch{}, false
	}
	var buf [24]byte
	n, err := base64.RawURLEncoding.Decode(buf[:], []byte(strings.TrimRight(s[j:i], "=")))
	if err != nil || n < 17 || n > 20 || strings.Trim(string(buf[:n]), "0123456789") != "" {
		return secretMatch{}, false
	}
	e1 := secretBase64URL.span(s, i+1, 8)
	if e1-i-1 < 6 || e1-i-1 > 7 || e1 >= len(s) || s[e1] != '.' {
		return secretMatch{}, false
	}
	e2 := secretBase64URL.span(s, e1+1, 41)
	if e2-e1-1 < 27 || e2-e1-1 > 40 || !secretVariety(s[e1+1:e2], 2, 12) {
		return secretMatch{}, false
	}
	return secretMatch{what: "a Discord bot token (" + secretHint(s[j:e2]) + ")", whole: j == 0 && e2 == len(s)}, true
}

// secretAzureChars are the characters of an Azure AD client secret.
var secretAzureChars = newSecretCharset(secretAlnumChars + "_~.-")

// matchAzureADAt matches an Azure AD (Entra ID) client secret around the
// "Q~" at s[i-1:i+1]: three characters, a digit, "Q~" and 31 to 34 more,
// 40 at most in all.
func matchAzureADAt(s string, i int) (secretMatch, bool) {
	q := i - 1
	start := q - 4
	if start < 0 || s[q-1] < '0' || s[q-1] > '9' || start > 0 && secretAzureChars[s[start-1]] {
		return secretMatch{}, false
	}
	for k := start; k < q-1; k++ {
		if !secretAzureChars[s[k]] || s[k] == '-' {
			return secretMatch{}, false
		}
	}
	e := secretAzureChars.span(s, i+1, 35)
	if n := e - i - 1; n < 31 || n > 34 || e < len(s) && secretAzureChars[s[e]] {
		return secretMatch{}, false
	}
	if !secretVariety(s[i+1:e], 3, 16) {
		return secretMatch{}, false
	}
	return secretMatch{what: "an Azure AD client secret (" + secretHint(s[start:e]) + ")", whole: start == 0 && e == len(s)}, true
}

// secretJWKWithin bounds how far around "kty" a JWK's members are looked
// for.
const secretJWKWithin = 4096

// matchJWKAt matches, around the `"kty"` at s[start:], a JSON Web Key
// that holds private material: its object has a "d" (the private exponent
// or scalar of an RSA, EC or OKP key), or is of kty "oct" with a "k" (a
// symmetric key), of 16 base64url characters at least.
func matchJWKAt(s string, start int) (secretMatch, bool) {
	open := strings.LastIndexByte(s[max(0, start-secretJWKWithin):start], '{')
	if open < 0 {
		return secretMatch{}, false
	}
	open += max(0, start-secretJWKWithin)
	end := strings.IndexByte(s[start:min(len(s), start+secretJWKWithin)], '}')
	closed := end >= 0
	if !closed {
		// A key cut short (a message quotes the start of a long value)
		// holds what it holds up to the cut.
		end = min(len(s), start+secretJWKWithin) - start
	}
	obj := s[open : start+end]
	member := "d"
	if v, ok := jsonMemberValue(obj, "kty"); ok && v == "oct" {
		member = "k"
	}
	v, ok := jsonMemberValue(obj, member)
	if !ok && !closed {
		v, ok = jsonMemberValue(obj+`"`, member) // the cut in the value itself
	}
	switch {
	case !ok:
		return secretMatch{}, false
	case !closed:
		// Up to the cut's mark: eight characters of a private member, or
		// more, of key material's variety (not a word such as REDACTED).
		if v = v[:secretBase64URL.span(v, 0, len(v))]; len(v) < 8 || !secretVariety(v, 2, 6) {
			return secretMatch{}, false
		}
	case !jwkKeyValue(v):
		return secretMatch{}, false
	}
	return secretMatch{what: `a JSON Web Key with its private "` + member + `"`, whole: closed && open == 0 && start+end == len(s)-1, member: true}, true
}

// jwkKeyValue reports whether v is private key material of a JWK: 16
// base64url characters or more, with variety.
func jwkKeyValue(v string) bool {
	return len(v) >= 16 && secretBase64URL.span(v, 0, len(v)) == len(v) && secretVariety(v, 2, 10)
}

// jsonMemberValue returns the string value of member name in obj, JSON
// text: `"name": "value"`.
func jsonMemberValue(obj, name string) (string, bool) {
	key := `"` + name + `"`
	for i := 0; ; {
		k := strings.Index(obj[i:], key)
		if k < 0 {
			return "", false
		}
		i += k + len(key)
		j := secretBlank.span(obj, i, len(obj))
		if j >= len(obj) || obj[j] != ':' {
			continue
		}
		j = secretBlank.span(obj, j+1, len(obj))
		if j >= len(obj) || obj[j] != '"' {
			continue
		}
		e := strings.IndexByte(obj[j+1:], '"')
		if e < 0 {
			return "", false
		}
		return obj[j+1 : j+1+e], true
	}
}

// basicUserPass reports whether b64, standard base64 with or without
// padding, decodes to "user:password" (or "key:") with a password that is
// not a placeholder: HTTP Basic credentials, a Docker registry's auth.
func basicUserPass(b64 string) bool {
	t := strings.TrimRight(b64, "=")
	if len(t) < 4 || len(t) > secretMaxToken {
		return false
	}
	dec, err := base64.RawStdEncoding.DecodeString(t)
	if err != nil || !utf8.Valid(dec) {
		return false
	}
	text := string(dec)
	if strings.IndexFunc(text, func(r rune) bool { return r < ' ' || r == 0x7f }) >= 0 {
		return false
	}
	user, password, ok := strings.Cut(text, ":")
	if !ok {
		return false
	}
	if password == "" {
		password = user // an API key sent as the user name
	}
	return len(password) >= 3 && !isSecretPlaceholder(password)
}

// isAuthName reports whether a member's name is "auth", as a Docker
// config's registry entry names its base64 "user:password".
func isAuthName(name string) bool {
	return strings.EqualFold(name, "auth")
}

// findJWKObject reports whether m is a JSON Web Key holding private
// material, and the member that holds it.
func findJWKObject(m map[string]any) (string, bool) {
	kty, ok := m["kty"].(string)
	if !ok {
		return "", false
	}
	member := "d"
	if kty == "oct" {
		member = "k"
	}
	v, ok := m[member].(string)
	return member, ok && jwkKeyValue(v)
}

// secretDecoded returns s as a client reads it, when that differs: every
// %XX of a URL decoded, and every backslash before ASCII punctuation
// dropped, as a regular expression (a schema's pattern) escapes a
// literal "." or "-". It returns false when s has neither.
func secretDecoded(s string) (string, bool) {
	i := strings.IndexByte(s, '%')
	for i >= 0 && !(i+2 < len(s) && isHexDigit(s[i+1]) && isHexDigit(s[i+2])) {
		k := strings.IndexByte(s[i+1:], '%')
		if k < 0 {
			i = -1
			break
		}
		i += k + 1
	}
	j := strings.IndexByte(s, '\\')
	for j >= 0 && !(j+1 < len(s) && isRegexEscaped(s[j+1])) {
		k := strings.IndexByte(s[j+1:], '\\')
		if k < 0 {
			j = -1
			break
		}
		j += k + 1
	}
	if i < 0 && j < 0 {
		return s, false
	}
	b := make([]byte, 0, len(s))
	for k := 0; k < len(s); k++ {
		c := s[k]
		switch {
		case c == '%' && k+2 < len(s) && isHexDigit(s[k+1]) && isHexDigit(s[k+2]):
			b = append(b, unhex(s[k+1])<<4|unhex(s[k+2]))
			k += 2
		case c == '\\' && k+1 < len(s) && isRegexEscaped(s[k+1]):
			b = append(b, s[k+1])
			k++
		default:
			b = append(b, c)
		}
	}
	return string(b), true
}

// isRegexEscaped reports whether a backslash before c only makes c a
// literal: ASCII punctuation, not a class such as \d or \n.
func isRegexEscaped(c byte) bool {
	return c > ' ' && c < 0x7f && !isSecretAlnum(c) && c != '\\'
}

func isHexDigit(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c >= 'a':
		return c - 'a' + 10
	case c >= 'A':
		return c - 'A' + 10
	}
	return c - '0'
}
