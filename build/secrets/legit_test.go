package secrets

import (
	"fmt"
	"strings"
	"testing"

	"github.com/signpost-dev/signpost/internal/fakecred"
)

// legitimate are strings a tool publishes that are not credentials: each
// either prose (a description) or an input schema (JSON).
func legitimate() []struct{ name, prose, schema string } {
	sha1 := fakecred.Chars("git-commit", 40, fakecred.Hex)
	md5 := fakecred.Chars("md5", 32, fakecred.Hex)
	sha256 := fakecred.Chars("sha256", 64, fakecred.Hex)
	reqID := fakecred.Chars("request-id", 40, fakecred.Alnum)
	cidV0 := "Qm" + fakecred.Chars("cid-v0", 44, "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz")
	cidV1 := "bafybei" + fakecred.Chars("cid-v1", 52, "abcdefghijklmnopqrstuvwxyz234567")
	uuid := "3f2b8c1e-9d4a-4e7b-8c21-6a5f0d9e7b43"
	eth := "0x" + fakecred.Chars("eth-address", 40, "0123456789abcdefABCDEF")
	sol := fakecred.Chars("solana", 44, "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz")
	sri := "sha512-" + fakecred.Chars("sri", 86, fakecred.Alnum+"+/") + "=="
	driveID := "1" + fakecred.Chars("drive-id", 43, fakecred.Base64URL)
	prop := func(name, kw, v string) string {
		return `{"type":"object","properties":{"` + name + `":{"type":"string","` + kw + `":` + v + `}}}`
	}
	q := func(s string) string { return `"` + s + `"` }
	return []struct{ name, prose, schema string }{
		{"git sha in prose", "Pinned to commit " + sha1 + " upstream.", ""},
		{"git sha as example version", "", prop("version", "examples", `[`+q(sha1)+`]`)},
		{"git sha as default ref", "", prop("ref", "default", q(sha1))},
		{"git sha upper case in prose", "Build " + strings.ToUpper(sha1) + " passed.", ""},
		{"md5 in prose", "MD5 " + md5 + " of the archive.", ""},
		{"md5 as default md5sum", "", prop("md5sum", "default", q(md5))},
		{"md5 as example content_md5", "", prop("content_md5", "examples", `[`+q(md5)+`]`)},
		{"md5 as example, said in the description", "", `{"type":"object","properties":{"expected":{"type":"string","description":"The file's MD5.","examples":[` + q(md5) + `]}}}`},
		{"sha256 as default sha256sum", "", prop("sha256sum", "default", q(sha256))},
		{"sha256 in prose", "SHA-256: " + sha256, ""},
		{"transaction id as example", "", prop("transaction", "examples", `[`+q(sha256)+`]`)},
		{"txid as default", "", prop("txid", "default", q(sha256))},
		{"transaction hash in prose", "Transaction 0x" + sha256 + " confirmed.", ""},
		{"ipfs cid v0 in prose", "Pinned as " + cidV0 + " on IPFS.", ""},
		{"ipfs cid v0 as example", "", prop("content", "examples", `[`+q(cidV0)+`]`)},
		{"ipfs cid v0 as default cid", "", prop("cid", "default", q(cidV0))},
		{"ipfs cid v1 in prose", "ipfs://" + cidV1, ""},
		{"ipfs cid v1 as example", "", prop("content", "examples", `[`+q(cidV1)+`]`)},
		{"uuid in prose", "Workspace " + uuid + " is the default.", ""},
		{"uuid as default", "", prop("workspace", "default", q(uuid))},
		{"uuid without dashes as request id", "", prop("requestId", "default", q(strings.ReplaceAll(uuid, "-", "")))},
		{"40-character request id in prose", "Quote request id " + reqID + " when you write to support.", ""},
		{"request id header in prose", "x-request-id: " + reqID, ""},
		{"correlation id in prose", "Correlation ID " + reqID + ".", ""},
		{"trace id in prose", "The trace id is " + reqID + ".", ""},
		{"request id as example", "", prop("x-request-id", "examples", `[`+q(reqID)+`]`)},
		{"token enum of words", "", prop("token", "enum", `["bearer"]`)},
		{"token enum with default", "", `{"type":"object","properties":{"token":{"type":"string","enum":["bearer","basic"],"default":"bearer"}}}`},
		{"auth_token enum of kinds", "", prop("auth_token", "enum", `["none","jwt","oauth"]`)},
		{"home path in prose", "Writes reports to /home/user/work and reads /home/user/work/input.csv.", ""},
		{"mac home path in prose", "Defaults to /Users/alice/Documents/exports.", ""},
		{"windows profile path in prose", `Saves to C:\Users\me\work\out.txt.`, ""},
		{"dot files in prose", "Reads ~/.aws/credentials and ~/.netrc for the profile.", ""},
		{"ssh and user-only URLs", "Clone ssh://git@github.com/acme/repo.git or https://someone@example.com/docs.", ""},
		{"percent-encoded path", "See https://docs.example.com/guides/%E2%9C%93/caf%C3%A9%20menu?q=a%2Bb.", ""},
		{"regex of a token format", "", prop("token_format", "pattern", q(`^ghp_[A-Za-z0-9]{36}$`))},
		{"regex of Stripe keys", "", prop("key", "pattern", q(`^sk_(live|test)_[0-9a-zA-Z]{24,}$`))},
		{"regex with escapes", "", prop("host", "pattern", q(`^[a-z0-9\\-]+\\.example\\.com$`))},
		{"token prefixes in prose", "Stripe keys start with sk_test_ or sk_live_; Vault tokens with hvs. or hvb.; age keys with AGE-SECRET-KEY-1.", ""},
		{"mailchimp data center", "The data center is the part after the dash, such as us12.", ""},
		{"key-value words", "A key-value store; use a monkey-patched client and the key-" + "rotation policy.", ""},
		{"public JWK", `{"kty":"RSA","n":"` + fakecred.Chars("jwk-n", 342, fakecred.Base64URL) + `","e":"AQAB","kid":"2024-01"}`, ""},
		{"public JWK as default", "", prop("jwk", "default", `{"kty":"EC","crv":"P-256","x":"`+fakecred.Chars("jwk-x", 43, fakecred.Base64URL)+`","y":"`+fakecred.Chars("jwk-y", 43, fakecred.Base64URL)+`"}`)},
		{"docker config without auth", `{"credsStore":"desktop","auths":{"ghcr.io":{}}}`, ""},
		{"auth of a word", "", prop("settings", "default", `{"auth":"bearer","mode":"basic"}`)},
		{"versions and dotted names", "Requires v1.2.3.4, 2.0.1-rc.1 and config.prod.yaml; see s.th and e.g. i.e.", ""},
		{"tilde in prose", "Press Q~ then ~/bin and 1~2 to continue.", ""},
		{"ratios", "A ratio 1//0 is undefined; see https://example.com//0/path.", ""},
		{"ethereum address as example", "", prop("wallet", "examples", `[`+q(eth)+`]`)},
		{"ethereum address in prose", "Send to " + eth + ".", ""},
		{"solana address as example", "", prop("address", "examples", `[`+q(sol)+`]`)},
		{"subresource integrity as example", "", prop("integrity", "examples", `[`+q(sri)+`]`)},
		{"drive file id as example", "", prop("fileId", "examples", `[`+q(driveID)+`]`)},
		{"image digest", "Runs ghcr.io/acme/tool@sha256:" + sha256 + ".", ""},
		{"arn", "Assumes arn:aws:iam::123456789012:role/Deploy.", ""},
		{"signed URL template", "https://b.s3.amazonaws.com/f?X-Amz-Signature={signature}&X-Amz-Credential={credential}", ""},
		{"bearer placeholder", "Authorization: Bearer <token>", ""},
		{"pod name", "Restarts web-7d9f8c6b5-x2k4p in the default namespace.", ""},
		{"identifiers after short prefixes", "Calls fw_UpdateFirmware2024VersionX, rnd_SeedGeneratorVersion42Values and nfp_NetworkFilterPolicyVersion2Rules.", ""},
		{"model names", "Models: xai-grok-beta-2024, pplx-70b-online, r8_models and gsk_ prefixes; Google tokens begin with ya29. and OpenRouter keys with sk-or-v1-.", ""},
		{"date and numbers", "Since 2024-05-01T12:00:00Z, ids such as 1790012345678901234 are 64-bit.", ""},
	}
}

// TestFindLegitimate: strings tools publish that only look like
// credentials pass, as prose or in a schema.
func TestFindLegitimate(t *testing.T) {
	cases := legitimate()
	refused := 0
	for _, c := range cases {
		var found []Finding
		if c.prose != "" {
			found = published(c.prose, "", nil)
			if got := Redact(c.prose); got != c.prose {
				found = append(found, Finding{Reason: fmt.Sprintf("Redact changed it to %q", got)})
			}
		} else {
			found = published("", "", schemaJSON(t, c.schema))
		}
		if len(found) > 0 {
			refused++
			t.Errorf("%s: %v, want none", c.name, found)
		}
	}
	t.Logf("%d of %d legitimate strings refused", refused, len(cases))
}
