// Package tokens counts the tokens a model's tokenizer makes of a published
// document: o200k_base, the byte-pair encoding of current OpenAI models,
// whose vocabulary is embedded in the binary, so counting runs offline and
// gives the same figure on every machine. The tool catalogue records each
// tool's cost with it, and build reports each list's.
package tokens

import (
	"sync"

	"github.com/tiktoken-go/tokenizer"
)

// Encoding names the encoding Count measures with.
const Encoding = "o200k_base"

// codec is loaded once, on first use: reading the vocabulary takes a few
// hundred milliseconds that a command which never counts should not pay.
var codec = sync.OnceValues(func() (tokenizer.Codec, error) {
	return tokenizer.Get(tokenizer.O200kBase)
})

// Count returns the number of tokens of text. It is safe for concurrent
// use.
func Count(text []byte) (int, error) {
	c, err := codec()
	if err != nil {
		return 0, err
	}
	n, err := c.Count(string(text))
	if err != nil {
		return 0, err
	}
	return n, nil
}
