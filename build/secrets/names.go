package secrets

import "strings"

// Name matching. A name is normalized to its lower-case letters and digits,
// so "apiKey", "API_KEY", "x-api-key" and "apikey" are all "apikey"; then
// trailing digits and one trailing qualifier ("value", "confirmation", ...)
// are dropped, and what remains must end in a word that names a secret. The
// last word decides: "token_count", "token_type", "tokenizer", "max_tokens",
// "secret_name", "password_policy" and "access_key_id" name facts about a
// secret, not the secret.
var (
	secretNameQualifiers = []string{"value", "confirmation", "confirm", "base64", "b64"}
	secretNameEndings    = []string{
		"password", "passwd", "passphrase", "passcode", "secret", "token", "apikey", "credential", "credentials",
		"privatekey", "accesskey", "secretkey", "sessionkey", "signingkey", "encryptionkey", "masterkey",
		"accountkey", "clientkey", "authkey", "sharedkey",
	}
	// A token that is a position in a list or a unit of text, not a credential.
	secretNameNotTokens = []string{
		"page", "next", "prev", "previous", "continuation", "pagination", "cursor", "sync", "resume",
		"start", "end", "stop", "max", "min", "num", "total", "bos", "eos", "pad", "unk", "sep", "mask",
		"cls", "special", "cancellation",
	}
)

// Named reports whether a property or member name says that its
// value is a secret: password, passphrase, secret, client_secret, token,
// access_token, api_key, private_key, secret_access_key, credentials,
// auth_token, session_key and the like, in any case and with any separators.
func Named(name string) bool {
	var buf [64]byte
	n := trimSecretDigits(foldSecretName(buf[:0], name))
	for _, q := range secretNameQualifiers {
		if len(n) > len(q) && string(n[len(n)-len(q):]) == q {
			n = trimSecretDigits(n[:len(n)-len(q)])
			break
		}
	}
	if len(n) == 0 {
		return false
	}
	switch n[len(n)-1] {
	case 'd', 'e', 't', 'n', 'y', 'l', 's': // the last letters of secretNameEndings
	default:
		return false
	}
	s := string(n)
	for _, e := range secretNameEndings {
		if !strings.HasSuffix(s, e) {
			continue
		}
		if e == "token" {
			for _, p := range secretNameNotTokens {
				if strings.HasSuffix(s, p+"token") {
					return false
				}
			}
		}
		return true
	}
	return false
}

// foldSecretName appends to dst the letters and digits of name, in lower
// case: the form names are compared in, whatever their separators.
func foldSecretName(dst []byte, name string) []byte {
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c >= 'A' && c <= 'Z':
			dst = append(dst, c+('a'-'A'))
		case c >= 'a' && c <= 'z' || c >= '0' && c <= '9':
			dst = append(dst, c)
		}
	}
	return dst
}

func trimSecretDigits(b []byte) []byte {
	for len(b) > 0 && b[len(b)-1] >= '0' && b[len(b)-1] <= '9' {
		b = b[:len(b)-1]
	}
	return b
}

// queryNamed reports whether a query parameter's name says that its value
// is a credential, beyond what Named says of any name: sig and signature
// (an Azure SAS, a signed URL), key and auth (an API key, as Google's),
// pass, pwd and pw, and any name ending in signature (X-Amz-Signature,
// X-Goog-Signature). Outside a query string these names are too common to
// mean a secret ("key" of a map, a function's "signature").
func queryNamed(name string) bool {
	var buf [64]byte
	n := foldSecretName(buf[:0], name)
	if len(n) > len(buf) {
		n = n[:len(buf)]
	}
	switch string(n) {
	case "sig", "key", "auth", "pass", "pwd", "pw":
		return true
	}
	return strings.HasSuffix(string(n), "signature")
}
