// Package fakecred assembles fake credentials for tests at run time, from
// pieces and hashed filler, so that no test file holds anything a secret
// scanner would flag. Nothing it makes is real.
package fakecred

import (
	"crypto/sha256"
	"strconv"
	"strings"
)

// Alphabets credentials are drawn from.
const (
	Lower  = "abcdefghijklmnopqrstuvwxyz"
	Upper  = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	Digits = "0123456789"
	Alnum  = Lower + Upper + Digits
)

// Chars returns n characters of alphabet, derived from seed.
func Chars(seed string, n int, alphabet string) string {
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		sum := sha256.Sum256([]byte(seed + "/" + strconv.Itoa(i)))
		for _, c := range sum {
			if b.Len() == n {
				break
			}
			b.WriteByte(alphabet[int(c)%len(alphabet)])
		}
	}
	return b.String()
}

// Bytes returns n bytes derived from seed.
func Bytes(seed string, n int) []byte {
	var out []byte
	for i := 0; len(out) < n; i++ {
		sum := sha256.Sum256([]byte(seed + "#" + strconv.Itoa(i)))
		out = append(out, sum[:]...)
	}
	return out[:n]
}
