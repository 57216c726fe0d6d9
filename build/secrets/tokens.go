package secrets

import (
	"encoding/base64"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// secretCharset is a set of bytes.
type secretCharset [256]bool

func newSecretCharset(chars string) *secretCharset {
	var cs secretCharset
	for i := 0; i < len(chars); i++ {
		cs[chars[i]] = true
	}
	return &cs
}

// span returns the end of the run of cs bytes that starts at i, looking at
// no more than limit bytes, so that no pattern rescans a long run from each
// of its triggers.
func (cs *secretCharset) span(s string, i, limit int) int {
	end := min(len(s), i+limit)
	for i < end && cs[s[i]] {
		i++
	}
	return i
}

// secretMaxToken bounds the random part of a key: real ones are at most a
// few hundred characters, and a longer run is data, not a key.
const secretMaxToken = 1024

const secretAlnumChars = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

// Character sets and patterns: built once, only read.
var (
	secretAlnum       = newSecretCharset(secretAlnumChars)
	secretUpperDigit  = newSecretCharset("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
	secretAlnumUnder  = newSecretCharset(secretAlnumChars + "_")
	secretBase64URL   = newSecretCharset(secretAlnumChars + "_-")
	secretSlackChars  = newSecretCharset(secretAlnumChars + "-")
	secretBase64      = newSecretCharset(secretAlnumChars + "+/")
	secretTokenChars  = newSecretCharset(secretAlnumChars + "-._~+/") // RFC 6750 b64token
	secretScheme      = newSecretCharset(secretAlnumChars + "+.-")
	secretBlank       = newSecretCharset(" \t\n\r\f")
	secretHexLower    = newSecretCharset("0123456789abcdef")
	secretSendGrid    = newSecretCharset(secretAlnumChars + "_-.")
	secretWebhook     = newSecretCharset(secretAlnumChars + "/")
	secretLabelChars  = newSecretCharset(secretAlnumChars + "_-.")
	secretQueryValue  = newSecretCharset(secretAlnumChars + "-._~+/%")
	secretHexDash     = newSecretCharset("0123456789abcdef-")
	secretAtlassian   = newSecretCharset(secretAlnumChars + "_-=")
	secretSentry      = newSecretCharset(secretAlnumChars + "_+/=")
	secretBase64Pad   = newSecretCharset(secretAlnumChars + "+/=")
	secretDiscordHook = newSecretCharset(secretAlnumChars + "_-/")

	secretPEMRe = regexp.MustCompile(`^-----BEGIN ((?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?)-----`)
	// scheme://userinfo@host[:port], without the path: the host part stops
	// at the next "/", so no URL is rescanned from a later "://".
	secretURLRe = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*://[^\s/?#@"]*@[^\s/?#"'<>\x60]*`)
)

// secretTokenRule finds a credential by its vendor prefix followed by a
// random part, which must be long enough and show enough variety to be a
// real key rather than a placeholder ("ghp_xxxx…") or an identifier. Before
// the prefix there must be neither a letter or digit nor a body character:
// the start of a word, not the middle of a longer run.
type secretTokenRule struct {
	what        string // noun phrase; the hint follows in parentheses
	prefixes    []string
	body        *secretCharset
	minLen      int  // length of the random part, at least
	exactLen    bool // exactly minLen, and no letter or digit after it
	classes     int  // how many of lower case, upper case and digits it mixes, at least
	minDistinct int  // distinct bytes in it, at least
	shape       func(body string) bool
	// random demands that the body change character class between 30%
	// of its characters at least, as random text does about twice as
	// often and identifiers rarely do: a short prefix ("fw_", "r8_") may
	// start one ("fw_UpdateFirmware2024Version").
	random bool
	// context, when set, must hold of the text around the token: a prefix
	// too short or too common to tell a key by itself ("s.", "key-")
	// needs the words that name its vendor.
	context func(s string, start int) bool
}

var secretTokenRules = []secretTokenRule{
	{what: "an AWS access key id", prefixes: []string{"AKIA", "ASIA"}, body: secretUpperDigit, minLen: 16, exactLen: true, classes: 1, minDistinct: 8},
	{what: "a GitHub token", prefixes: []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_"}, body: secretAlnum, minLen: 36, classes: 2, minDistinct: 12},
	{what: "a GitHub fine-grained token", prefixes: []string{"github_pat_"}, body: secretAlnumUnder, minLen: 40, classes: 2, minDistinct: 12},
	{what: "a GitLab personal access token", prefixes: []string{"glpat-"}, body: secretBase64URL, minLen: 20, classes: 2, minDistinct: 10},
	{what: "a Slack token", prefixes: []string{"xoxa-", "xoxb-", "xoxp-", "xoxr-", "xoxs-"}, body: secretSlackChars, minLen: 20, classes: 2, minDistinct: 10, shape: slackTokenShape},
	{what: "a Google API key", prefixes: []string{"AIza"}, body: secretBase64URL, minLen: 35, exactLen: true, classes: 2, minDistinct: 12},
	{what: "a Stripe live secret key", prefixes: []string{"sk_live_", "rk_live_"}, body: secretAlnum, minLen: 20, classes: 2, minDistinct: 10},
	{what: "an Anthropic API key", prefixes: []string{"sk-ant-"}, body: secretBase64URL, minLen: 32, classes: 3, minDistinct: 12},
	{what: "an OpenAI-style secret key", prefixes: []string{"sk-"}, body: secretBase64URL, minLen: 32, classes: 3, minDistinct: 12},
	{what: "an npm access token", prefixes: []string{"npm_"}, body: secretAlnum, minLen: 36, exactLen: true, classes: 2, minDistinct: 12},
	// A PyPI token is a macaroon whose base64 starts with the encoding of
	// its location, pypi.org.
	{what: "a PyPI API token", prefixes: []string{"pypi-AgEIcHlwaS5vcmc"}, body: secretBase64URL, minLen: 50, classes: 2, minDistinct: 12},
	{what: "a Hugging Face token", prefixes: []string{"hf_"}, body: secretAlnum, minLen: 34, classes: 2, minDistinct: 12},
	{what: "a DigitalOcean token", prefixes: []string{"dop_v1_", "doo_v1_", "dor_v1_"}, body: secretHexLower, minLen: 64, exactLen: true, classes: 2, minDistinct: 10},
	{what: "a Google OAuth client secret", prefixes: []string{"GOCSPX-"}, body: secretBase64URL, minLen: 28, exactLen: true, classes: 2, minDistinct: 12},
	{what: "a Twilio API key", prefixes: []string{"SK"}, body: secretHexLower, minLen: 32, exactLen: true, classes: 2, minDistinct: 10},
	{what: "a SendGrid API key", prefixes: []string{"SG."}, body: secretSendGrid, minLen: 66, exactLen: true, classes: 2, minDistinct: 12, shape: sendGridShape},
	{what: "a Slack webhook URL", prefixes: []string{"https://hooks.slack.com/services/"}, body: secretWebhook, minLen: 40, classes: 2, minDistinct: 12, shape: slackWebhookShape},
	{what: "a Shopify access token", prefixes: []string{"shpat_", "shpss_", "shpca_", "shppa_"}, body: secretHexLower, minLen: 32, exactLen: true, classes: 2, minDistinct: 10},
	{what: "a Databricks token", prefixes: []string{"dapi"}, body: secretHexLower, minLen: 32, exactLen: true, classes: 2, minDistinct: 10},
	{what: "a HashiCorp Vault token", prefixes: []string{"hvs.", "hvb."}, body: secretBase64URL, minLen: 24, classes: 2, minDistinct: 12},
	{what: "a HashiCorp Vault token", prefixes: []string{"s."}, body: secretAlnum, minLen: 24, exactLen: true, classes: 3, minDistinct: 12, context: vaultContext},
	{what: "a Doppler token", prefixes: []string{"dp.st.", "dp.pt.", "dp.ct.", "dp.sa.", "dp.scim.", "dp.audit."}, body: secretLabelChars, minLen: 40, classes: 2, minDistinct: 12, shape: dopplerShape},
	{what: "a Postman API key", prefixes: []string{"PMAK-"}, body: secretHexDash, minLen: 59, exactLen: true, classes: 2, minDistinct: 10, shape: postmanShape},
	{what: "a New Relic key", prefixes: []string{"NRAK-", "NRAA-", "NRII-"}, body: secretUpperDigit, minLen: 27, exactLen: true, classes: 2, minDistinct: 12},
	{what: "a New Relic key", prefixes: []string{"NRJS-"}, body: secretHexLower, minLen: 19, exactLen: true, classes: 2, minDistinct: 8},
	{what: "an Atlassian API token", prefixes: []string{"ATATT3", "ATCTT3", "ATBB"}, body: secretAtlassian, minLen: 32, classes: 3, minDistinct: 16},
	{what: "a Linear API key", prefixes: []string{"lin_api_", "lin_oauth_"}, body: secretAlnum, minLen: 40, classes: 2, minDistinct: 12},
	{what: "a Sentry token", prefixes: []string{"sntrys_"}, body: secretSentry, minLen: 40, classes: 3, minDistinct: 16},
	{what: "a Sentry token", prefixes: []string{"sntryu_"}, body: secretHexLower, minLen: 64, exactLen: true, classes: 2, minDistinct: 10},
	{what: "a Grafana service account token", prefixes: []string{"glsa_"}, body: secretAlnumUnder, minLen: 32, classes: 2, minDistinct: 12},
	{what: "a Grafana Cloud token", prefixes: []string{"glc_"}, body: secretBase64Pad, minLen: 32, classes: 3, minDistinct: 12},
	{what: "a Square token", prefixes: []string{"sq0atp-", "sq0csp-", "sq0idp-"}, body: secretBase64URL, minLen: 22, classes: 2, minDistinct: 12},
	{what: "a Square token", prefixes: []string{"EAAA"}, body: secretBase64URL, minLen: 60, classes: 3, minDistinct: 16},
	{what: "a Mailgun API key", prefixes: []string{"key-"}, body: secretHexLower, minLen: 32, exactLen: true, classes: 2, minDistinct: 10, context: mailgunContext},
	{what: "a Stripe test secret key", prefixes: []string{"sk_test_", "rk_test_"}, body: secretAlnum, minLen: 20, classes: 2, minDistinct: 10},
	{what: "a Stripe webhook secret", prefixes: []string{"whsec_"}, body: secretBase64, minLen: 24, classes: 2, minDistinct: 12},
	{what: "an age secret key", prefixes: []string{"AGE-SECRET-KEY-1"}, body: secretUpperDigit, minLen: 58, exactLen: true, classes: 2, minDistinct: 12},
	{what: "a Google OAuth refresh token", prefixes: []string{"1//0"}, body: secretBase64URL, minLen: 40, classes: 3, minDistinct: 16},
	{what: "a Slack app token", prefixes: []string{"xapp-"}, body: secretSlackChars, minLen: 40, classes: 2, minDistinct: 12},
	{what: "a GitLab token", prefixes: []string{"glptt-", "glrt-", "gldt-", "glcbt-", "glsoat-", "gloas-", "glft-", "glimt-", "glagent-", "glwt-"}, body: secretBase64URL, minLen: 20, classes: 2, minDistinct: 10},
	{what: "a Docker Hub access token", prefixes: []string{"dckr_pat_", "dckr_oat_"}, body: secretBase64URL, minLen: 27, classes: 2, minDistinct: 12},
	{what: "a RubyGems API key", prefixes: []string{"rubygems_"}, body: secretHexLower, minLen: 48, exactLen: true, classes: 2, minDistinct: 10},
	{what: "a PlanetScale token", prefixes: []string{"pscale_tkn_", "pscale_pw_", "pscale_oauth_"}, body: secretBase64URL, minLen: 32, classes: 2, minDistinct: 12},
	{what: "a Supabase token", prefixes: []string{"sbp_"}, body: secretHexLower, minLen: 40, exactLen: true, classes: 2, minDistinct: 10},
	{what: "a Supabase secret key", prefixes: []string{"sb_secret_"}, body: secretBase64URL, minLen: 30, classes: 2, minDistinct: 12},
	{what: "a Notion token", prefixes: []string{"ntn_"}, body: secretAlnum, minLen: 40, classes: 3, minDistinct: 16},
	{what: "a Figma token", prefixes: []string{"figd_"}, body: secretBase64URL, minLen: 40, classes: 2, minDistinct: 12},
	{what: "a Pulumi access token", prefixes: []string{"pul-"}, body: secretHexLower, minLen: 40, exactLen: true, classes: 2, minDistinct: 10},
	{what: "a Tailscale key", prefixes: []string{"tskey-"}, body: secretSlackChars, minLen: 30, classes: 3, minDistinct: 16},
	{what: "a Brevo API key", prefixes: []string{"xkeysib-", "xsmtpsib-"}, body: secretSlackChars, minLen: 64, classes: 2, minDistinct: 12},
	{what: "a Shippo token", prefixes: []string{"shippo_live_", "shippo_test_"}, body: secretHexLower, minLen: 40, exactLen: true, classes: 2, minDistinct: 10},
	{what: "a Contentful token", prefixes: []string{"CFPAT-"}, body: secretBase64URL, minLen: 43, classes: 2, minDistinct: 12},
	{what: "a Dynatrace token", prefixes: []string{"dt0c01."}, body: secretLabelChars, minLen: 80, classes: 2, minDistinct: 12},
	{what: "a Pinecone API key", prefixes: []string{"pcsk_"}, body: secretAlnumUnder, minLen: 50, classes: 3, minDistinct: 16},
	{what: "a Prefect API key", prefixes: []string{"pnu_"}, body: secretAlnum, minLen: 36, exactLen: true, classes: 3, minDistinct: 16, random: true},
	{what: "a Sourcegraph token", prefixes: []string{"sgp_"}, body: secretAlnumUnder, minLen: 40, classes: 2, minDistinct: 10},
	{what: "a Groq API key", prefixes: []string{"gsk_"}, body: secretAlnum, minLen: 52, exactLen: true, classes: 3, minDistinct: 16, random: true},
	{what: "a Perplexity API key", prefixes: []string{"pplx-"}, body: secretAlnum, minLen: 48, classes: 3, minDistinct: 16, random: true},
	{what: "an xAI API key", prefixes: []string{"xai-"}, body: secretAlnum, minLen: 64, classes: 3, minDistinct: 16, random: true},
	{what: "a Replicate API token", prefixes: []string{"r8_"}, body: secretAlnum, minLen: 37, exactLen: true, classes: 3, minDistinct: 16, random: true},
	{what: "a Fly.io token", prefixes: []string{"fo1_"}, body: secretBase64URL, minLen: 40, classes: 3, minDistinct: 16, random: true},
	{what: "a Netlify token", prefixes: []string{"nfp_"}, body: secretAlnum, minLen: 36, classes: 3, minDistinct: 16, random: true},
	{what: "a Render API key", prefixes: []string{"rnd_"}, body: secretAlnum, minLen: 32, classes: 3, minDistinct: 16, random: true},
	{what: "a LangSmith API key", prefixes: []string{"lsv2_pt_", "lsv2_sk_"}, body: secretAlnumUnder, minLen: 40, classes: 2, minDistinct: 10},
	{what: "an OpenRouter API key", prefixes: []string{"sk-or-v1-"}, body: secretHexLower, minLen: 64, exactLen: true, classes: 2, minDistinct: 10},
	{what: "a Heroku API key", prefixes: []string{"HRKU-"}, body: secretBase64URL, minLen: 40, classes: 3, minDistinct: 16},
	{what: "an Alibaba Cloud access key id", prefixes: []string{"LTAI"}, body: secretAlnum, minLen: 20, exactLen: true, classes: 3, minDistinct: 12},
	{what: "a Google OAuth access token", prefixes: []string{"ya29."}, body: secretBase64URL, minLen: 60, classes: 3, minDistinct: 16},
	{what: "a Fireworks API key", prefixes: []string{"fw_"}, body: secretAlnum, minLen: 24, classes: 3, minDistinct: 16, random: true},
	{what: "a Discord webhook URL", prefixes: []string{"https://discord.com/api/webhooks/", "https://discordapp.com/api/webhooks/", "https://ptb.discord.com/api/webhooks/", "https://canary.discord.com/api/webhooks/"}, body: secretDiscordHook, minLen: 60, classes: 2, minDistinct: 12, shape: discordWebhookShape},
}

// sendGridShape: 22 characters, a dot, 43 characters.
func sendGridShape(body string) bool {
	id, key, ok := strings.Cut(body, ".")
	return ok && len(id) == 22 && len(key) == 43 && !strings.Contains(key, ".")
}

// slackWebhookShape: a team (T…), a bot or channel (B…) and a secret of
// at least 20 characters, separated by slashes (and maybe more of a path).
func slackWebhookShape(body string) bool {
	parts := strings.SplitN(body, "/", 4) // a path may follow
	return len(parts) >= 3 && len(parts[0]) > 1 && parts[0][0] == 'T' && len(parts[1]) > 1 && parts[1][0] == 'B' && len(parts[2]) >= 20
}

// slackTokenShape: a team or user number, a dash, then more.
func slackTokenShape(body string) bool {
	n := 0
	for n < len(body) && body[n] >= '0' && body[n] <= '9' {
		n++
	}
	return n >= 6 && n < len(body) && body[n] == '-' && len(body)-n-1 >= 10
}

// What a trigger starts, and the priority of each finding when a string
// matches several patterns: the most specific wins.
const (
	secretKindToken = iota
	secretKindPEM
	secretKindJWT
	secretKindURL
	secretKindAzure
	secretKindBearer
	secretKindBasic
	secretKindMailchimp
	secretKindDiscord
	secretKindAzureAD
	secretKindJWK

	secretPrioPEMField  = 0
	secretPrioPEM       = 1
	secretPrioAWS       = 2
	secretPrioAzure     = 3
	secretPrioJWK       = 4
	secretPrioAzureAD   = 5
	secretPrioDiscord   = 6
	secretPrioMailchimp = 7
	secretPrioToken     = 10 // + rule index
	secretPrioTelegram  = 100
	secretPrioJWT       = 101
	secretPrioURL       = 102
	secretPrioBearer    = 103
	secretPrioBasic     = 104
	secretPrioLabel     = 105
	secretPrioBareAWS   = 106
	secretPrioNone      = 1 << 30
)

// secretTrigger is a literal that starts a pattern, found by one of its
// bytes: prose has few "_", "-", "=", ":", "J" or capital letters, so a string
// is only searched for those bytes (strings.IndexByte), and work is done only
// where one sits and the literal around it matches.
type secretTrigger struct {
	prefix string
	at     int // offset in prefix of the byte that triggers it
	kind   uint8
	rule   int // for secretKindToken
}

// secretLiterals are the patterns whose prefix has no byte rare in prose
// ("dapi", `"kty"`): each is looked for as a whole (strings.Index), not
// at every "d" or quote.
var secretTriggers, secretLiterals = newSecretTriggers()

func newSecretTriggers() (*[256][]secretTrigger, []secretTrigger) {
	var t [256][]secretTrigger
	literals := []secretTrigger{{prefix: `"kty"`, kind: secretKindJWK}}
	add := func(prefix string, at int, kind uint8, rule int) {
		if c := prefix[at]; c >= 'a' && c <= 'z' || c >= '0' && c <= '9' {
			literals = append(literals, secretTrigger{prefix: prefix, at: at, kind: kind, rule: rule})
			return
		}
		t[prefix[at]] = append(t[prefix[at]], secretTrigger{prefix: prefix, at: at, kind: kind, rule: rule})
	}
	for i, r := range secretTokenRules {
		for _, p := range r.prefixes {
			add(p, triggerAt(p), secretKindToken, i)
		}
	}
	add("-----BEGIN ", 0, secretKindPEM, 0)
	add("eyJ", 2, secretKindJWT, 0)
	add("://", 0, secretKindURL, 0)
	add("AccountKey=", len("AccountKey"), secretKindAzure, 0)
	add("SharedAccessKey=", len("SharedAccessKey"), secretKindAzure, 0)
	for _, w := range []string{"Bearer", "bearer", "BEARER"} {
		t[w[0]] = append(t[w[0]], secretTrigger{prefix: w, kind: secretKindBearer})
	}
	for _, w := range []string{"Basic", "basic", "BASIC"} {
		t[w[0]] = append(t[w[0]], secretTrigger{prefix: w, kind: secretKindBasic})
	}
	add("-us", 0, secretKindMailchimp, 0)
	add(".", 0, secretKindDiscord, 0)
	add("Q~", 1, secretKindAzureAD, 0)
	return &t, literals
}

// triggerAt chooses the byte of a token prefix that triggers it: its first
// separator ("_", "-", ".", ":", "/"), else its last capital letter other than I,
// the bytes rarest in prose ("SK" is found by its K, not by every S).
func triggerAt(prefix string) int {
	if i := strings.IndexAny(prefix, "_-.:/"); i >= 0 {
		return i
	}
	for i := len(prefix) - 1; i >= 0; i-- {
		if c := prefix[i]; c >= 'A' && c <= 'Z' && c != 'I' {
			return i
		}
	}
	return 0
}

// secretMinLen is the length of the shortest string any pattern can match
// ("a://b:c@d").
const secretMinLen = 9

// secretTriggerBytes lists the bytes that have triggers, and ':' and '='
// that end the label of an AWS secret access key or of another credential
// (and ':' that ends the bot id of a Telegram token).
var secretTriggerBytes = func() string {
	b := []byte{':', '='}
	for c := range 256 {
		if len(secretTriggers[c]) > 0 && c != ':' && c != '=' {
			b = append(b, byte(c))
		}
	}
	return string(b)
}()

// scanSecretString reports the most specific credential pattern s
// matches, as it is written or as a client decodes it (see
// secretDecoded): a credential percent-encoded in a URL, or written as a
// regular expression in a schema's pattern, is still one.
func scanSecretString(s string) (secretMatch, bool) {
	if m, ok := scanSecretText(s); ok {
		return m, true
	}
	if d, ok := secretDecoded(s); ok {
		return scanSecretText(d)
	}
	return secretMatch{}, false
}

// scanSecretText reports the most specific credential pattern s matches,
// as it is written.
func scanSecretText(s string) (secretMatch, bool) {
	if len(s) < secretMinLen {
		return secretMatch{}, false
	}
	sc := secretScan{s: s, prio: secretPrioNone, hasAt: -1}
	for k := 0; k < len(secretTriggerBytes); k++ {
		c := secretTriggerBytes[k]
		for i := strings.IndexByte(s, c); i >= 0; {
			sc.at(i, c)
			if sc.prio == 0 {
				return sc.best, true
			}
			j := strings.IndexByte(s[i+1:], c)
			if j < 0 {
				break
			}
			i += j + 1
		}
	}
	for _, tr := range secretLiterals {
		for i := strings.Index(s, tr.prefix); i >= 0; {
			sc.try(tr, i, i+tr.at)
			if sc.prio == 0 {
				return sc.best, true
			}
			j := strings.Index(s[i+1:], tr.prefix)
			if j < 0 {
				break
			}
			i += j + 1
		}
	}
	// A bare AWS secret access key has no trigger: it is the one pattern
	// that looks at every byte, and only when nothing else matched.
	if sc.prio > secretPrioBareAWS && len(s) >= secretAWSSecretLen {
		if m, ok := matchBareAWSSecret(s); ok {
			sc.best, sc.prio = m, secretPrioBareAWS
		}
	}
	return sc.best, sc.prio != secretPrioNone
}

// secretScan is the state of scanSecretString: the best match so far.
type secretScan struct {
	s     string
	best  secretMatch
	prio  int
	hasAt int // whether s has an "@": -1 until asked
}

// at tries the patterns that the byte c at s[i] may start.
func (sc *secretScan) at(i int, c byte) {
	s := sc.s
	if (c == ':' || c == '=') && sc.prio > secretPrioAWS {
		if m, ok := matchAWSSecretAt(s, i); ok {
			sc.best, sc.prio = m, secretPrioAWS
		}
	}
	if c == ':' && sc.prio > secretPrioTelegram {
		if m, ok := matchTelegramAt(s, i); ok {
			sc.best, sc.prio = m, secretPrioTelegram
		}
	}
	if (c == '=' || c == ':') && sc.prio > secretPrioLabel {
		if m, ok := matchLabelledAt(s, i); ok {
			sc.best, sc.prio = m, secretPrioLabel
		}
	}
	if c == '.' && (i+1 >= len(s) || !secretBase64URL[s[i+1]] && s[i+1] != '.') {
		return // the end of a sentence: no prefix has its dot there
	}
	for _, tr := range secretTriggers[c] {
		start := i - tr.at
		if start < 0 || s[start] != tr.prefix[0] || !strings.HasPrefix(s[start:], tr.prefix) {
			continue
		}
		sc.try(tr, start, i)
	}
}

// try tries the pattern tr starts at s[start:], whose trigger byte is
// s[i].
func (sc *secretScan) try(tr secretTrigger, start, i int) {
	s := sc.s
	{
		var m secretMatch
		ok, prio := false, secretPrioNone
		switch tr.kind {
		case secretKindToken:
			prio = secretPrioToken + tr.rule
			if prio < sc.prio {
				m, ok = secretTokenRules[tr.rule].matchAt(s, start, len(tr.prefix))
			}
		case secretKindPEM:
			m, prio, ok = matchPEMAt(s, start)
		case secretKindJWT:
			prio = secretPrioJWT
			if prio < sc.prio {
				m, ok = matchJWTAt(s, start)
			}
		case secretKindURL:
			if sc.hasAt < 0 {
				sc.hasAt = 0
				if strings.IndexByte(s, '@') >= 0 {
					sc.hasAt = 1
				}
			}
			prio = secretPrioURL
			if sc.hasAt == 1 && prio < sc.prio {
				m, ok = matchURLPasswordAt(s, start)
			}
		case secretKindAzure:
			prio = secretPrioAzure
			if prio < sc.prio {
				m, ok = matchAzureAt(s, start, tr.prefix)
			}
		case secretKindBearer:
			prio = secretPrioBearer
			if prio < sc.prio {
				m, ok = matchBearerAt(s, start)
			}
		case secretKindBasic:
			prio = secretPrioBasic
			if prio < sc.prio {
				m, ok = matchBasicAt(s, start)
			}
		case secretKindMailchimp:
			prio = secretPrioMailchimp
			if prio < sc.prio {
				m, ok = matchMailchimpAt(s, start)
			}
		case secretKindDiscord:
			prio = secretPrioDiscord
			if prio < sc.prio {
				m, ok = matchDiscordAt(s, start)
			}
		case secretKindAzureAD:
			prio = secretPrioAzureAD
			if prio < sc.prio {
				m, ok = matchAzureADAt(s, i)
			}
		case secretKindJWK:
			prio = secretPrioJWK
			if prio < sc.prio {
				m, ok = matchJWKAt(s, start)
			}
		}
		if ok && prio < sc.prio {
			sc.best, sc.prio = m, prio
		}
	}
}

// matchAt matches r at s[start:], whose first n bytes are one of its prefixes.
func (r *secretTokenRule) matchAt(s string, start, n int) (secretMatch, bool) {
	if start > 0 && (isSecretAlnum(s[start-1]) || r.body[s[start-1]] && s[start-1] != '/') {
		return secretMatch{}, false // inside a longer word: "task-…" is not "sk-…"; a path's "/" ends a word
	}
	b := start + n
	e := r.body.span(s, b, secretMaxToken+1)
	if e-b < r.minLen || e-b > secretMaxToken {
		return secretMatch{}, false
	}
	if r.exactLen {
		e = b + r.minLen
		if e < len(s) && isSecretAlnum(s[e]) {
			return secretMatch{}, false
		}
	}
	body := s[b:e]
	if !secretVariety(body, r.classes, r.minDistinct) || r.shape != nil && !r.shape(body) || r.random && !secretChangesClass(body, 3) ||
		r.context != nil && !r.context(s, start) {
		return secretMatch{}, false
	}
	return secretMatch{what: r.what + " (" + secretHint(s[start:e]) + ")", whole: start == 0 && e == len(s)}, true
}

func isSecretAlnum(c byte) bool {
	return secretAlnum[c]
}

// secretVariety reports whether s mixes at least classes of lower case
// letters, upper case letters and digits, and has at least minDistinct
// distinct bytes: real keys are random, placeholders ("xxxx…", "AAAA…") and
// identifiers are not.
func secretVariety(s string, classes, minDistinct int) bool {
	var seen [4]uint64
	var lower, upper, digit bool
	distinct := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if seen[c>>6]&(1<<(c&63)) == 0 {
			seen[c>>6] |= 1 << (c & 63)
			distinct++
		}
		switch {
		case c >= 'a' && c <= 'z':
			lower = true
		case c >= 'A' && c <= 'Z':
			upper = true
		case c >= '0' && c <= '9':
			digit = true
		}
	}
	n := 0
	for _, b := range [...]bool{lower, upper, digit} {
		if b {
			n++
		}
	}
	return n >= classes && distinct >= minDistinct
}

// pemBodyOK reports whether the text after a PEM header holds key material:
// a run of at least minRun base64 characters (a line of a real key; escaped
// "\n"s do not break it) with real variety, not "..." or "AAAA…".
func pemBodyOK(rest string, minRun int) bool {
	if i := strings.Index(rest, "-----"); i >= 0 {
		rest = rest[:i] // up to -----END, or the next header
	}
	longest := 0
	for i := 0; i < len(rest); {
		e := secretBase64.span(rest, i, len(rest))
		for e < len(rest) && rest[e] == '=' {
			e++
		}
		longest = max(longest, e-i)
		i = e + 1
	}
	return longest >= minRun && secretVariety(rest, 2, 16)
}

// matchPEMAt matches a PEM private key block at s[start:]. Inside a JSON
// text, as the value of "private_key" (a cloud service account key), a
// shorter body is enough.
func matchPEMAt(s string, start int) (secretMatch, int, bool) {
	loc := secretPEMRe.FindStringSubmatchIndex(s[start:])
	if loc == nil {
		return secretMatch{}, 0, false
	}
	rest := s[start+loc[1]:]
	if secretJSONFieldBefore(s[:start], "private_key") && pemBodyOK(rest, 16) {
		return secretMatch{what: `a JSON "private_key" field holding a PEM private key`}, secretPrioPEMField, true
	}
	if !pemBodyOK(rest, 40) {
		return secretMatch{}, 0, false
	}
	// The whole string is the block when only blanks (or escaped
	// newlines) surround it.
	whole := start == len(s)-len(strings.TrimLeft(s, " \t\r\n")) &&
		strings.HasSuffix(strings.TrimRight(s, " \t\r\n\\nr"), "-----")
	label := s[start+loc[2] : start+loc[3]]
	return secretMatch{what: "a PEM private key (-----BEGIN " + label + "-----)", whole: whole}, secretPrioPEM, true
}

// secretJSONFieldBefore reports whether before ends with the start of the
// JSON string value of member name: `"name": "`, also escaped (`\"name\":\"`).
func secretJSONFieldBefore(before, name string) bool {
	t := strings.TrimSuffix(strings.TrimSuffix(before, `"`), `\`)
	t = strings.TrimRight(t, " \t")
	t, ok := strings.CutSuffix(t, ":")
	if !ok {
		return false
	}
	t = strings.TrimRight(t, " \t")
	t = strings.TrimSuffix(strings.TrimSuffix(t, `"`), `\`)
	return strings.HasSuffix(t, `"`+name)
}

// matchAWSSecretAt matches a labelled AWS secret access key around the ":"
// or "=" at s[i]: aws_secret_access_key = KEY, "SecretAccessKey": "KEY",
// AWS_SECRET_ACCESS_KEY=KEY.
func matchAWSSecretAt(s string, i int) (secretMatch, bool) {
	j := i
	for j > 0 && (s[j-1] == ' ' || s[j-1] == '\t') {
		j--
	}
	if j > 0 && (s[j-1] == '"' || s[j-1] == '\'') {
		j--
	}
	label := s[:j]
	for _, w := range [...]string{"key", "access", "secret"} {
		if w != "key" && label != "" && strings.IndexByte("_-. ", label[len(label)-1]) >= 0 {
			label = label[:len(label)-1]
		}
		if len(label) < len(w) || !strings.EqualFold(label[len(label)-len(w):], w) {
			return secretMatch{}, false
		}
		label = label[:len(label)-len(w)]
	}
	k := i + 1
	for k < len(s) && (s[k] == ' ' || s[k] == '\t') {
		k++
	}
	if k < len(s) && (s[k] == '"' || s[k] == '\'') {
		k++
	}
	e := secretBase64.span(s, k, 41)
	if e-k != 40 || e < len(s) && s[e] == '=' {
		return secretMatch{}, false
	}
	key := s[k:e]
	if !secretVariety(key, 2, 12) {
		return secretMatch{}, false
	}
	return secretMatch{what: "a labelled AWS secret access key (" + secretHint(key) + ")"}, true
}

// matchLabelledAt matches NAME=VALUE or NAME: VALUE whose '=' or ':' is at
// s[i], as in a query string (?access_token=…), a line of configuration
// (api_key=…, password: …) or JSON in prose ("secret": "…"): NAME says it
// holds a secret (see Named) and VALUE looks like one (see
// LooksLikeCredential), so that "page=2", "token=<your token>" and
// "Password: the account's password" are not reported. A parameter of a
// query string (after "?", "&" or ";") may also be named as only a query
// names a credential (see queryNamed: sig, signature, key,
// X-Amz-Signature, ...); its value must then be 16 characters at least.
func matchLabelledAt(s string, i int) (secretMatch, bool) {
	j := i
	if j > 0 && (s[j-1] == '"' || s[j-1] == '\'') {
		j--
	}
	end := j
	for j > 0 && end-j < 64 && secretLabelChars[s[j-1]] {
		j--
	}
	name := s[j:end]
	if name == "" {
		return secretMatch{}, false
	}
	if isAuthName(name) {
		return matchAuthValueAt(s, i)
	}
	minLen := 0
	if !Named(name) {
		if s[i] != '=' || j == 0 || strings.IndexByte("?&;", s[j-1]) < 0 || end != i || !queryNamed(name) {
			return secretMatch{}, false
		}
		minLen = 16
	}
	k := i + 1
	if s[i] == ':' {
		for k < len(s) && (s[k] == ' ' || s[k] == '\t') {
			k++
		}
	}
	if k < len(s) && (s[k] == '"' || s[k] == '\'') {
		k++
	}
	e := secretQueryValue.span(s, k, 4096)
	value := s[k:e]
	if len(value) < minLen || !LooksLikeCredential(value) {
		return secretMatch{}, false
	}
	return secretMatch{what: "a credential labelled " + quoteSecretName(name) + " (" + secretHint(value) + ")"}, true
}

// matchAuthValueAt matches the value after the ":" or "=" at s[i] of a
// member named auth, as a Docker config holds a registry's credentials:
// base64 of "user:password".
func matchAuthValueAt(s string, i int) (secretMatch, bool) {
	k := secretBlank.span(s, i+1, len(s))
	if k < len(s) && (s[k] == '"' || s[k] == '\'') {
		k++
	}
	e := secretBase64Pad.span(s, k, secretMaxToken+1)
	if !basicUserPass(s[k:e]) {
		return secretMatch{}, false
	}
	return secretMatch{what: `a registry "auth" holding a user name and password`, member: true}, true
}

// matchAzureAt matches AccountKey=KEY or SharedAccessKey=KEY at s[start:].
func matchAzureAt(s string, start int, prefix string) (secretMatch, bool) {
	b := start + len(prefix)
	e := secretBase64.span(s, b, secretMaxToken+1)
	if e-b < 40 || e-b > secretMaxToken || !secretVariety(s[b:e], 2, 12) {
		return secretMatch{}, false
	}
	if prefix == "AccountKey=" {
		return secretMatch{what: "an Azure connection string with an AccountKey"}, true
	}
	return secretMatch{what: "an Azure connection string with a SharedAccessKey"}, true
}

// matchJWTAt matches three base64url segments at s[start:] whose first
// decodes to a JSON object with an "alg" or "typ": a JOSE header, not text
// that happens to start "eyJ".
func matchJWTAt(s string, start int) (secretMatch, bool) {
	if start > 0 && secretBase64URL[s[start-1]] {
		return secretMatch{}, false
	}
	e1 := secretBase64URL.span(s, start, len(s))
	if e1-start < 11 || e1 >= len(s) || s[e1] != '.' {
		return secretMatch{}, false
	}
	e2 := secretBase64URL.span(s, e1+1, len(s))
	if e2-e1-1 < 4 || e2 >= len(s) || s[e2] != '.' {
		return secretMatch{}, false
	}
	e3 := secretBase64URL.span(s, e2+1, len(s))
	if e3-e2-1 < 16 {
		return secretMatch{}, false
	}
	head, err := base64.RawURLEncoding.DecodeString(s[start:e1])
	if err != nil || head[0] != '{' {
		return secretMatch{}, false
	}
	if !strings.Contains(string(head), `"alg"`) && !strings.Contains(string(head), `"typ"`) {
		return secretMatch{}, false
	}
	return secretMatch{what: "a JSON Web Token (" + secretHint(s[start:e3]) + ")", whole: start == 0 && e3 == len(s)}, true
}

// matchURLPasswordAt matches, around the "://" at s[i], a URL whose
// userinfo carries a password that is not a placeholder such as {password},
// ${DB_PASSWORD}, <pass> or "password".
func matchURLPasswordAt(s string, i int) (secretMatch, bool) {
	start := i
	for start > 0 && secretScheme[s[start-1]] {
		start--
	}
	for start < i && !(s[start] >= 'a' && s[start] <= 'z' || s[start] >= 'A' && s[start] <= 'Z') {
		start++
	}
	if start == i {
		return secretMatch{}, false
	}
	loc := secretURLRe.FindStringIndex(s[start:])
	if loc == nil {
		return secretMatch{}, false
	}
	raw := strings.TrimRight(s[start:start+loc[1]], ".,;:!?)]}'")
	var password, host string
	if u, err := url.Parse(raw); err == nil && u.User != nil {
		p, ok := u.User.Password()
		if !ok {
			if !secretURLUserToken(u.User.Username()) {
				return secretMatch{}, false
			}
			p = u.User.Username()
		}
		password, host = p, u.Hostname()
	} else {
		// net/url rejects "{" and other characters in userinfo, which
		// placeholders use; split by hand to tell them apart.
		auth := raw[i-start+3:]
		if k := strings.IndexAny(auth, "/?#"); k >= 0 {
			auth = auth[:k]
		}
		at := strings.LastIndexByte(auth, '@')
		if at < 0 {
			return secretMatch{}, false
		}
		user, p, ok := strings.Cut(auth[:at], ":")
		if !ok {
			if !secretURLUserToken(user) {
				return secretMatch{}, false
			}
			p = user
		}
		password, host = p, auth[at+1:]
		if !strings.HasPrefix(host, "[") {
			host, _, _ = strings.Cut(host, ":")
		}
		if p, err := url.PathUnescape(password); err == nil {
			password = p
		}
	}
	if isSecretPlaceholder(password) {
		return secretMatch{}, false
	}
	if host == "" {
		host = "?"
	}
	return secretMatch{what: "a URL with a password (host " + truncateSecretText(host, 64) + ")", whole: start == 0 && !strings.ContainsAny(s, " \t\r\n")}, true
}

// secretURLUserToken reports whether the user name of a URL without a
// password is a token (https://TOKEN@github.com/…), as Git and many APIs
// take one: 20 characters or more of a token's alphabet, random (see
// secretRandom), not a name ("git", "someone", "first.last").
func secretURLUserToken(user string) bool {
	if len(user) < 20 || secretTokenChars.span(user, 0, len(user)) != len(user) {
		return false
	}
	return LooksLikeCredential(user) && hasLetterAndDigit(user) && secretRandom(user) && secretVariety(user, 2, 12)
}

// matchBearerAt matches "Bearer TOKEN" at s[start:]: a token of 20 or more
// characters with letters and digits that is not a placeholder.
func matchBearerAt(s string, start int) (secretMatch, bool) {
	if start > 0 && (isSecretAlnum(s[start-1]) || s[start-1] == '_') {
		return secretMatch{}, false
	}
	k := secretBlank.span(s, start+len("bearer"), len(s))
	if k == start+len("bearer") {
		return secretMatch{}, false
	}
	e := secretTokenChars.span(s, k, 4*secretMaxToken+1)
	tok := s[k:e]
	if len(tok) < 20 || len(tok) > 4*secretMaxToken || !hasLetterAndDigit(tok) || !secretVariety(tok, 0, 8) || isSecretPlaceholder(tok) {
		return secretMatch{}, false
	}
	return secretMatch{what: "an HTTP Bearer credential (" + secretHint(tok) + ")"}, true
}

// matchBasicAt matches "Basic X" at s[start:] only when X is base64 of
// "user:password" with a password that is not a placeholder.
func matchBasicAt(s string, start int) (secretMatch, bool) {
	if start > 0 && (isSecretAlnum(s[start-1]) || s[start-1] == '_') {
		return secretMatch{}, false
	}
	k := secretBlank.span(s, start+len("basic"), len(s))
	if k == start+len("basic") {
		return secretMatch{}, false
	}
	e := secretBase64.span(s, k, secretMaxToken+1)
	for n := 0; n < 2 && e < len(s) && s[e] == '='; n++ {
		e++
	}
	if e-k < 4 || e-k > secretMaxToken || e < len(s) && (secretBase64[s[e]] || s[e] == '=') {
		return secretMatch{}, false
	}
	dec, err := base64.StdEncoding.DecodeString(s[k:e])
	if err != nil || !utf8.Valid(dec) {
		return secretMatch{}, false
	}
	text := string(dec)
	if strings.IndexFunc(text, func(r rune) bool { return r < ' ' || r == 0x7f }) >= 0 {
		return secretMatch{}, false
	}
	user, password, ok := strings.Cut(text, ":")
	if !ok {
		return secretMatch{}, false
	}
	if password == "" {
		password = user // an API key sent as the user name
	}
	if len(password) < 3 || isSecretPlaceholder(password) {
		return secretMatch{}, false
	}
	return secretMatch{what: "HTTP Basic credentials"}, true
}

func hasLetterAndDigit(s string) bool {
	letter, digit := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		letter = letter || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		digit = digit || c >= '0' && c <= '9'
	}
	return letter && digit
}

// isSecretPlaceholder reports whether a password or token is obviously not a
// real one: a template variable, an elided or masked value, a word that
// names the thing instead of being it, or a stock word.
func isSecretPlaceholder(s string) bool {
	if s == "" || strings.Count(s, s[:1]) == len(s) {
		return true
	}
	lower := strings.ToLower(s)
	for _, mark := range []string{
		"{", "}", "<", ">", "$(", "${", "%(", "...", "…", "***", "xxxx",
		"example", "placeholder", "redacted", "your", "changeme", "change_me", "dummy",
		"password", "passwd", "secret", "token", "apikey", "api_key", "insert", "replace",
	} {
		if strings.Contains(lower, mark) {
			return true
		}
	}
	if lower[0] == '$' || lower[0] == '%' {
		return true // $PASS, %PASS%
	}
	switch lower {
	case "pass", "pwd", "pw", "test", "admin", "root", "guest", "user", "username", "none", "null", "nil",
		"empty", "hidden", "masked", "string", "value", "foo", "bar", "baz", "qux", "abc", "abc123",
		"123", "1234", "12345", "123456", "12345678", "letmein", "anonymous":
		return true
	}
	return false
}

// LooksLikeCredential reports whether the value of a secret-named member is
// plausibly the secret itself rather than prose, a path, a URL or a
// placeholder: 8 to 4096 characters without blanks, with letters and
// digits (or, without digits, at least 12 letters whose case changes as
// often as in random text, see secretRandom), some variety, and no
// placeholder.
func LooksLikeCredential(s string) bool {
	if len(s) < 8 || len(s) > 4096 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' {
			return false
		}
	}
	if strings.HasPrefix(s, "/") || strings.HasPrefix(s, "./") || strings.HasPrefix(s, "~/") || strings.Contains(s, "://") {
		return false
	}
	if !hasLetterAndDigit(s) && (len(s) < 12 || !secretRandom(s)) {
		return false // a word, unless its case changes as only random text does
	}
	return secretVariety(s, 0, 6) && !isSecretPlaceholder(s)
}

func truncateSecretText(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "…"
}

// quoteSecretName quotes a member name for a reason, unless the name itself
// is credential material.
func quoteSecretName(name string) string {
	if _, ok := scanSecretString(name); ok {
		return "(redacted name)"
	}
	return strconv.Quote(truncateSecretText(name, 64))
}
