package fakecred

import (
	"encoding/base64"
	"strings"
)

// More alphabets.
const (
	Hex       = "0123456789abcdef"
	Base64URL = Alnum + "_-"
	// Bech32 is the alphabet of bech32, in upper case as age writes it.
	Bech32 = "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L"
)

// Kind is one kind of credential and a fake of it, written as its issuer
// writes it (with the words around it when only those words tell it from
// other text).
type Kind struct {
	Name  string
	Value string
	// Secret is the part of Value that nothing may repeat: all of it, or
	// less when Value has more (a URL's host, the public members of a
	// JSON Web Key).
	Secret string
}

// Kinds returns one fake of each kind of credential the secret scanner
// must recognize, in a fixed order. Each value is assembled at run time:
// no source file holds it.
func Kinds() []Kind {
	b64 := base64.RawStdEncoding.EncodeToString
	b64url := base64.RawURLEncoding.EncodeToString
	p := func(parts ...string) string { return strings.Join(parts, "") }
	kind := func(name, value string, secret ...string) Kind {
		k := Kind{Name: name, Value: value, Secret: value}
		if len(secret) > 0 {
			k.Secret = secret[0]
		}
		return k
	}
	return []Kind{
		// Vendor prefixes.
		kind("Shopify access token", p("shp", "at_", Chars("shpat", 32, Hex))),
		kind("Shopify shared secret", p("shp", "ss_", Chars("shpss", 32, Hex))),
		kind("Shopify custom app token", p("shp", "ca_", Chars("shpca", 32, Hex))),
		kind("Shopify private app token", p("shp", "pa_", Chars("shppa", 32, Hex))),
		kind("Databricks token", p("da", "pi", Chars("dapi", 32, Hex))),
		kind("Vault service token", p("hv", "s.", "CAESI", Chars("hvs", 86, Base64URL))),
		kind("Vault batch token", p("hv", "b.", "AAAAAQ", Chars("hvb", 132, Base64URL))),
		kind("Vault legacy token", p("Vault token ", "s.", Chars("vault-s", 24, Alnum)), Chars("vault-s", 24, Alnum)),
		kind("Doppler service token", p("dp", ".st.", "prd.", Chars("dpst", 40, Alnum))),
		kind("Doppler personal token", p("dp", ".pt.", Chars("dppt", 43, Alnum))),
		kind("Postman API key", p("PM", "AK-", Chars("pmak1", 24, Hex), "-", Chars("pmak2", 34, Hex))),
		kind("New Relic user key", p("NR", "AK-", Chars("nrak", 27, Upper+Digits))),
		kind("New Relic browser key", p("NR", "JS-", Chars("nrjs", 19, Hex))),
		kind("Atlassian API token", p("ATA", "TT3", Chars("atatt", 180, Base64URL), "=", Chars("atatt-sum", 8, "0123456789ABCDEF"))),
		kind("Linear API key", p("lin", "_api_", Chars("linear", 40, Alnum))),
		kind("Sentry organization token", p("sntr", "ys_", b64([]byte(`{"iat":1700000000.0,"url":"https://sentry.io","region_url":"https://us.sentry.io","org":"acme"}`)), "_", Chars("sntrys", 43, Alnum+"+/"))),
		kind("Sentry user token", p("sntr", "yu_", Chars("sntryu", 64, Hex))),
		kind("Grafana service account token", p("gl", "sa_", Chars("glsa", 32, Alnum), "_", Chars("glsa-sum", 8, Hex))),
		kind("Grafana Cloud token", p("gl", "c_", b64([]byte(`{"o":"1234567","n":"stack-987654-hm-read-deploy","k":"`+Chars("glc-k", 24, Alnum)+`","m":{"r":"prod-us-east-0"}}`)))),
		kind("Square access token", p("sq0", "atp-", Chars("sq0atp", 22, Base64URL))),
		kind("Square OAuth secret", p("sq0", "csp-", Chars("sq0csp", 43, Base64URL))),
		kind("Square production token", p("EA", "AA", Chars("eaaa", 60, Base64URL))),
		kind("Mailgun API key", p("Mailgun ", "key", "-", Chars("mailgun", 32, Hex)), Chars("mailgun", 32, Hex)),
		kind("Mailchimp API key", p(Chars("mailchimp", 32, Hex), "-us", "12")),
		kind("Discord bot token", p(b64url([]byte("1098765432101234567")), ".", Chars("discord-ts", 6, Base64URL), ".", Chars("discord-hmac", 38, Base64URL))),
		kind("Discord webhook", p("https://", "discord.com/api/webhooks/", "1098765432101234567", "/", Chars("discord-hook", 68, Base64URL)), Chars("discord-hook", 68, Base64URL)),
		kind("Stripe test secret key", p("sk", "_test_", "51", Chars("sk-test", 97, Alnum))),
		kind("Stripe test restricted key", p("rk", "_test_", "51", Chars("rk-test", 97, Alnum))),
		kind("Stripe webhook secret", p("wh", "sec_", Chars("whsec", 32, Alnum))),
		kind("age secret key", p("AGE-", "SECRET-KEY-1", Chars("age", 58, Bech32))),
		kind("Google OAuth refresh token", p("1/", "/0", "g", Chars("google-refresh", 99, Base64URL))),
		kind("Azure AD client secret", p(Chars("azure-ad1", 3, Alnum), "8", "Q", "~", Chars("azure-ad2", 34, Alnum+"_~.-"))),
		kind("JWK private key", p(`{"kty":"EC","crv":"P-256","x":"`, b64url(Bytes("jwk-x", 32)), `","y":"`, b64url(Bytes("jwk-y", 32)), `","d":"`, b64url(Bytes("jwk-d", 32)), `"}`), b64url(Bytes("jwk-d", 32))),
		kind("JWK symmetric key", p(`{"kty":"oct","alg":"HS256","k":"`, b64url(Bytes("jwk-k", 32)), `"}`), b64url(Bytes("jwk-k", 32))),
		kind("Docker config auth", p(`{"auths":{"registry.example.com":{"auth":"`, base64.StdEncoding.EncodeToString([]byte("deploy:"+Chars("docker-pw", 20, Alnum))), `"}}}`), base64.StdEncoding.EncodeToString([]byte("deploy:"+Chars("docker-pw", 20, Alnum)))),
		kind("token in URL user-info", p("https://", Chars("url-token", 40, Hex), "@github.com/acme/infra.git"), Chars("url-token", 40, Hex)),
		kind("password in URL user-info", p("https://", "deploy:", Chars("url-pw", 18, Alnum), "@git.example.org/acme/infra.git"), Chars("url-pw", 18, Alnum)),
		// More vendors, by prefix.
		kind("Slack app token", p("xa", "pp-1-A", Chars("xapp1", 10, Upper+Digits), "-", Chars("xapp2", 13, Digits), "-", Chars("xapp3", 64, Hex))),
		kind("GitLab runner token", p("gl", "rt-", Chars("glrt", 20, Base64URL))),
		kind("GitLab deploy token", p("gl", "dt-", Chars("gldt", 20, Base64URL))),
		kind("Docker Hub token", p("dckr", "_pat_", Chars("dckr", 27, Base64URL))),
		kind("RubyGems key", p("ruby", "gems_", Chars("rubygems", 48, Hex))),
		kind("PlanetScale token", p("pscale", "_tkn_", Chars("pscale", 43, Base64URL))),
		kind("Supabase token", p("sb", "p_", Chars("sbp", 40, Hex))),
		kind("Notion token", p("nt", "n_", Chars("notion", 46, Alnum))),
		kind("Figma token", p("fig", "d_", Chars("figma", 40, Base64URL))),
		kind("Pulumi token", p("pu", "l-", Chars("pulumi", 40, Hex))),
		kind("Tailscale key", p("ts", "key-auth-", Chars("ts1", 12, Alnum), "-", Chars("ts2", 33, Alnum))),
		kind("Brevo key", p("xkey", "sib-", Chars("brevo1", 64, Hex), "-", Chars("brevo2", 16, Alnum))),
		kind("Shippo token", p("shippo", "_live_", Chars("shippo", 40, Hex))),
		kind("Contentful token", p("CF", "PAT-", Chars("cfpat", 43, Base64URL))),
		kind("Dynatrace token", p("dt0", "c01.", Chars("dt1", 24, Upper+Digits), ".", Chars("dt2", 64, Upper+Digits))),
		kind("Pinecone key", p("pc", "sk_", Chars("pcsk1", 5, Alnum), "_", Chars("pcsk2", 64, Alnum))),
		kind("Prefect key", p("pn", "u_", Chars("prefect", 36, Alnum))),
		kind("Sourcegraph token", p("sg", "p_", Chars("sgp1", 16, Hex), "_", Chars("sgp2", 40, Hex))),
		kind("Groq key", p("gs", "k_", Chars("groq", 52, Alnum))),
		kind("Perplexity key", p("pp", "lx-", Chars("pplx", 48, Alnum))),
		kind("xAI key", p("xa", "i-", Chars("xai", 80, Alnum))),
		kind("Replicate token", p("r", "8_", Chars("replicate", 37, Alnum))),
		kind("Fly.io token", p("fo", "1_", Chars("fly", 43, Base64URL))),
		kind("Netlify token", p("nf", "p_", Chars("netlify", 36, Alnum))),
		kind("Render key", p("rn", "d_", Chars("render", 32, Alnum))),
		kind("LangSmith key", p("lsv2", "_pt_", Chars("ls1", 32, Hex), "_", Chars("ls2", 10, Hex))),
		kind("OpenRouter key", p("sk", "-or-v1-", Chars("openrouter", 64, Hex))),
		kind("Heroku key", p("HR", "KU-", "AA", Chars("heroku", 58, Base64URL))),
		kind("Alibaba Cloud key id", p("LT", "AI", Chars("alibaba", 20, Alnum))),
		kind("Google OAuth access token", p("ya", "29.", Chars("ya29", 150, Base64URL))),
		kind("Fireworks key", p("f", "w_", Chars("fireworks", 24, Alnum))),
		// Known kinds, for the table to cover every kind.
		kind("GitHub token", p("gh", "p_", Chars("ghp", 36, Alnum))),
		kind("GitHub fine-grained token", p("github", "_pat_", "11", Chars("pat1", 20, Upper+Digits), "_", Chars("pat2", 59, Alnum))),
		kind("GitLab token", p("gl", "pat-", Chars("glpat", 20, Alnum+"_-"))),
		kind("Slack token", p("xo", "xb-", Chars("s1", 12, Digits), "-", Chars("s2", 13, Digits), "-", Chars("s3", 24, Alnum))),
		kind("Slack webhook", p("https://hooks.", "slack.com/services/T", Chars("wt", 10, Upper+Digits), "/B", Chars("wb", 10, Upper+Digits), "/", Chars("ws", 24, Alnum)), Chars("ws", 24, Alnum)),
		kind("AWS access key id", p("AK", "IA", Chars("aws-id", 16, Upper+Digits))),
		kind("Stripe live secret key", p("sk", "_live_", Chars("stripe", 24, Alnum))),
		kind("OpenAI key", p("sk", "-proj-", Chars("openai-proj", 120, Base64URL))),
		kind("Anthropic key", p("sk", "-ant-api03-", Chars("anthropic", 93, Base64URL), "AA")),
		kind("Google API key", p("AI", "za", Chars("google", 35, Base64URL))),
		kind("npm token", p("np", "m_", Chars("npm", 36, Alnum))),
		kind("Hugging Face token", p("hf", "_", Chars("hf", 34, Alnum))),
		kind("SendGrid key", p("S", "G.", Chars("sg1", 22, Base64URL), ".", Chars("sg2", 43, Base64URL))),
		kind("Telegram bot token", p(Chars("tg-id", 9, "123456789"), ":", "AA", Chars("tg", 33, Base64URL))),
	}
}

// PercentEncode writes every byte of s as %XX, as a client may send a
// credential in a URL.
func PercentEncode(s string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		b.WriteByte('%')
		b.WriteByte(hex[s[i]>>4])
		b.WriteByte(hex[s[i]&15])
	}
	return b.String()
}

// RegexLiteral writes s as a regular expression that matches it alone:
// every character other than a letter, a digit, "_" or a space escaped
// with a backslash, as a schema's pattern may hold it.
func RegexLiteral(s string) string {
	var b strings.Builder
	b.WriteByte('^')
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == ' ') {
			b.WriteByte('\\')
		}
		b.WriteByte(c)
	}
	b.WriteByte('$')
	return b.String()
}
