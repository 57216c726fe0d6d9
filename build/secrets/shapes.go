package secrets

import (
	"encoding/base64"
	"strings"
)

// Credentials known by their shape alone, without a vendor prefix or a
// label: a Telegram bot token, a bare AWS secret access key, and key
// material in the values of a schema. Each has a guard that tells random
// key material from words, paths, identifiers, digests and encoded text.

// secretAWSSecretLen is the length of an AWS secret access key.
const secretAWSSecretLen = 40

// secretRandom reports whether s changes character class (lower case,
// upper case, digit, other) between at least 40% of its neighbouring
// characters. Random base64 changes about 64% of the time (a run of
// 40 falls under 40% about once in a thousand), while words, camelCase
// identifiers and paths change between 10% and 30%.
func secretRandom(s string) bool {
	return secretChangesClass(s, 4)
}

// secretChangesClass reports whether s changes character class between
// at least tenths/10 of its neighbouring characters.
func secretChangesClass(s string, tenths int) bool {
	if len(s) < 2 {
		return false
	}
	changes := 0
	prev := secretClass(s[0])
	for i := 1; i < len(s); i++ {
		c := secretClass(s[i])
		if c != prev {
			changes++
		}
		prev = c
	}
	return changes*10 >= (len(s)-1)*tenths
}

func secretClass(c byte) int {
	switch {
	case c >= 'a' && c <= 'z':
		return 0
	case c >= 'A' && c <= 'Z':
		return 1
	case c >= '0' && c <= '9':
		return 2
	}
	return 3
}

// secretDecodesToText reports whether s, read as standard or URL-safe
// base64 (padded or not), decodes to bytes that are nearly all printable
// ASCII: encoded text, not a key. Random bytes are printable 37% of the
// time, so 30 random bytes pass this with a chance under one in 10^12.
func secretDecodesToText(s string) bool {
	t := strings.TrimRight(s, "=")
	if len(t) > secretMaxToken {
		return false
	}
	// On the stack: no allocation for a scan that finds nothing.
	var src [secretMaxToken]byte
	var buf [secretMaxToken * 3 / 4]byte
	n := copy(src[:], t)
	for _, enc := range [...]*base64.Encoding{base64.RawStdEncoding, base64.RawURLEncoding} {
		m, err := enc.Decode(buf[:], src[:n])
		if err != nil || m == 0 {
			continue
		}
		dec := buf[:m]
		printable := 0
		for _, b := range dec {
			if b >= ' ' && b < 0x7f || b == '\n' || b == '\t' {
				printable++
			}
		}
		if printable*10 >= len(dec)*9 {
			return true
		}
	}
	return false
}

// secretRandomKey is the guard of every bare key: all three of lower case,
// upper case and digits, many distinct characters, frequent changes of
// class (see secretRandom), and no encoded text.
func secretRandomKey(s string, minDistinct int) bool {
	return secretVariety(s, 3, minDistinct) && secretRandom(s) && !secretDecodesToText(s)
}

// matchBareAWSSecret finds a run of exactly 40 characters of [A-Za-z0-9/+]
// with neither a base64 character, "-", "_", "=" nor "." on either side, as
// an AWS secret access key is written, that passes secretRandomKey. A
// lower-case hex digest (a Git commit) has no upper case; a path, a word
// or an identifier changes class too rarely; base64 of text decodes to
// text.
func matchBareAWSSecret(s string) (secretMatch, bool) {
	// i is the start of a run (s[i-1] is not a base64 character). The
	// window of 40 bytes from i is read backwards: a byte outside the run
	// moves i past it, so that prose is skipped a word at a time.
	i := 0
	for i+secretAWSSecretLen <= len(s) {
		k := i + secretAWSSecretLen - 1
		for k >= i && secretBase64[s[k]] {
			k--
		}
		if k >= i {
			i = k + 1
			continue
		}
		e := secretBase64.span(s, i+secretAWSSecretLen, len(s))
		if e-i == secretAWSSecretLen && !secretKeyNeighbour(s, i-1) && !secretKeyNeighbour(s, e) {
			if key := s[i:e]; secretRandomKey(key, 20) && !secretDeclaredBefore(s, i) {
				return secretMatch{what: "an AWS secret access key (" + secretHint(key) + ")", whole: i == 0 && e == len(s), shape: true}, true
			}
		}
		i = e + 1 // s[e] is not a base64 character
	}
	return secretMatch{}, false
}

// secretDeclaredBefore reports whether one of the two words before s[i]
// says that what follows is an identifier or a digest: "request id …",
// "x-request-id: …", "Correlation ID …", "commit …".
func secretDeclaredBefore(s string, i int) bool {
	before := strings.TrimRight(s[max(0, i-48):i], " \t:=\"'#(")
	words := 0
	k := len(before)
	for k > 0 && words < 2 {
		if before[k-1] == ' ' || before[k-1] == '\t' || before[k-1] == '\n' {
			words++
			for k > 0 && (before[k-1] == ' ' || before[k-1] == '\t' || before[k-1] == '\n') {
				k--
			}
			continue
		}
		k--
	}
	return secretHasDeclaredWord(before[k:])
}

// secretKeyNeighbour reports whether s[i] would continue a key: a base64 or
// base64url character, padding, or a dot (as between JWT segments).
func secretKeyNeighbour(s string, i int) bool {
	if i < 0 || i >= len(s) {
		return false
	}
	c := s[i]
	return secretBase64[c] || c == '-' || c == '_' || c == '=' || c == '.'
}

// matchTelegramAt matches a Telegram bot token around the ":" at s[i]: a
// bot id of 8 to 10 digits at the start of a word, then 35 characters of
// [A-Za-z0-9_-] starting with "A", with nothing of the kind after them.
func matchTelegramAt(s string, i int) (secretMatch, bool) {
	j := i
	for j > 0 && i-j <= 10 && s[j-1] >= '0' && s[j-1] <= '9' {
		j--
	}
	if n := i - j; n < 8 || n > 10 || j > 0 && (secretBase64URL[s[j-1]] || s[j-1] == ':') {
		return secretMatch{}, false
	}
	b := i + 1
	e := secretBase64URL.span(s, b, 36)
	if e-b != 35 || s[b] != 'A' || !secretVariety(s[b:e], 2, 12) {
		return secretMatch{}, false
	}
	return secretMatch{what: "a Telegram bot token (" + secretHint(s[j:e]) + ")", whole: j == 0 && e == len(s)}, true
}

// secretKeyMaterial says what kind of key material s is, or "": a hex
// string of 32 characters or more (one case, letters and digits, ten
// distinct characters at least), or base64 or base64url of 40 characters
// or more (see secretRandomKey). Both stop at secretMaxToken characters:
// a longer value is data. A UUID (with its dashes), a color (#1a2b3c), a
// digest with its algorithm ("sha256:…") and words have other characters
// and are never key material.
func secretKeyMaterial(s string) string {
	if len(s) < 32 || len(s) > secretMaxToken || secretPublicShape(s) {
		return ""
	}
	var lower, upper, other, b64 bool
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9':
		case c >= 'a' && c <= 'f':
			lower = true
		case c >= 'A' && c <= 'F':
			upper = true
		case secretBase64[c] || c == '-' || c == '_' || c == '=' && i >= len(s)-2:
			b64 = true
		default:
			other = true
		}
	}
	switch {
	case other:
		return ""
	case !b64 && lower != upper && secretVariety(s, 2, 10):
		return "a hex key"
	case len(s) >= 40 && secretRandomKey(strings.TrimRight(s, "="), 16):
		return "a base64 key"
	}
	return ""
}

// secretDeclaredWords are the words with which a schema says that its hex
// or base64 values are digests or identifiers, not keys.
var secretDeclaredWords = map[string]bool{
	"sha": true, "sha1": true, "sha256": true, "sha384": true, "sha512": true, "md5": true, "digest": true,
	"hash": true, "checksum": true, "commit": true, "revision": true, "rev": true, "etag": true,
	"fingerprint": true, "oid": true, "uuid": true, "guid": true, "id": true, "ids": true, "nonce": true,
	// A version or a Git ref is often a commit.
	"version": true, "ref": true,
	// Ids by their use: a request, a trace, a transaction, a block.
	"request": true, "trace": true, "span": true, "correlation": true, "transaction": true, "txid": true,
	"tx": true, "txn": true, "block": true,
	// Content addresses and public keys.
	"cid": true, "ipfs": true, "integrity": true, "address": true, "wallet": true, "pubkey": true, "public": true,
}

// secretDeclaredWord looks w, a lower-case word, up in
// secretDeclaredWords, also in the plural and with the "sum" of a tool's
// name (md5sum, sha256sum, checksums).
func secretDeclaredWord(w string) bool {
	if secretDeclaredWords[w] {
		return true
	}
	if t, ok := strings.CutSuffix(w, "s"); ok && secretDeclaredWords[t] {
		return true
	}
	t, ok := strings.CutSuffix(w, "sum")
	return ok && secretDeclaredWords[t]
}

// secretDeclaredWithin bounds how much of a name, title or description
// secretHasDeclaredWord reads.
const secretDeclaredWithin = 512

// schemaDeclaresDigest reports whether a schema, or the name its parent
// gives it, says that its values are digests or identifiers: a word of
// secretDeclaredWords in the name (snake, kebab or camel case), its
// format, or the start of its title or description.
func schemaDeclaresDigest(m map[string]any, name string) bool {
	if secretHasDeclaredWord(name) {
		return true
	}
	for _, k := range [...]string{"title", "description", "format"} {
		if s, ok := m[k].(string); ok && secretHasDeclaredWord(s) {
			return true
		}
	}
	return false
}

// secretHasDeclaredWord splits s into words at every character that is not
// a letter or digit and before every upper-case letter that follows a
// lower-case one, and looks them up in secretDeclaredWords.
func secretHasDeclaredWord(s string) bool {
	if len(s) > secretDeclaredWithin {
		s = s[:secretDeclaredWithin] // what a value is, a text says first
	}
	start := 0
	for i := 0; i <= len(s); i++ {
		boundary := i == len(s)
		if !boundary {
			c := s[i]
			boundary = !isSecretAlnum(c) ||
				c >= 'A' && c <= 'Z' && i > 0 && s[i-1] >= 'a' && s[i-1] <= 'z'
		}
		if !boundary {
			continue
		}
		if i > start && i-start <= 16 && secretDeclaredWord(strings.ToLower(s[start:i])) {
			return true
		}
		start = i
		if i < len(s) && !isSecretAlnum(s[i]) {
			start = i + 1
		}
	}
	return false
}

// secretBase58 is the alphabet of base58: no 0, O, I or l.
var secretBase58 = newSecretCharset("123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz")

// secretPublicShape reports whether s has the shape of a public value
// that looks random: an IPFS content id of version 0 ("Qm" and 44 base58
// characters), an Ethereum address ("0x" and 40 hex digits in any case),
// or a digest named by its algorithm as subresource integrity writes it
// ("sha512-…").
func secretPublicShape(s string) bool {
	switch {
	case len(s) == 46 && strings.HasPrefix(s, "Qm") && secretBase58.span(s, 0, len(s)) == len(s):
		return true
	case len(s) == 42 && strings.HasPrefix(s, "0x") && strings.Trim(s[2:], "0123456789abcdefABCDEF") == "":
		return true
	}
	for _, alg := range [...]string{"sha1-", "sha256-", "sha384-", "sha512-", "md5-"} {
		if strings.HasPrefix(s, alg) {
			return true
		}
	}
	return false
}
