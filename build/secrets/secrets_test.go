package secrets

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/signpost-dev/signpost/internal/fakecred"
)

// The fake credentials below are assembled at run time from pieces and
// hashed filler, so this file holds nothing a secret scanner would flag.

// fakePEM is a PEM block of the given label ("RSA PRIVATE", "PGP PRIVATE"
// ...) around random bytes, 64 characters a line.
func fakePEM(label, suffix string, headers string) string {
	body := base64.StdEncoding.EncodeToString(fakecred.Bytes(label, 400))
	var b strings.Builder
	b.WriteString("-----BEGIN " + label + " " + "KEY" + suffix + "-----\n")
	b.WriteString(headers)
	for len(body) > 64 {
		b.WriteString(body[:64] + "\n")
		body = body[64:]
	}
	b.WriteString(body + "\n-----END " + label + " " + "KEY" + suffix + "-----\n")
	return b.String()
}

func fakeJWT(seed string) string {
	enc := base64.RawURLEncoding
	return enc.EncodeToString([]byte(`{"alg":"HS256","typ":"JWT"}`)) + "." +
		enc.EncodeToString([]byte(`{"sub":"1234567890","name":"Ada","iat":1700000000}`)) + "." +
		enc.EncodeToString(fakecred.Bytes(seed, 32))
}

var (
	fakeAWSID       = "AK" + "IA" + fakecred.Chars("aws-id", 16, fakecred.Upper+fakecred.Digits)
	fakeAWSSTS      = "AS" + "IA" + fakecred.Chars("aws-sts", 16, fakecred.Upper+fakecred.Digits)
	fakeAWSSecret   = fakecred.Chars("aws-secret", 40, fakecred.Alnum+"/+")
	fakeGitHub      = "gh" + "p_" + fakecred.Chars("ghp", 36, fakecred.Alnum)
	fakeGitHubApp   = "gh" + "s_" + fakecred.Chars("ghs", 36, fakecred.Alnum)
	fakeGitHubPAT   = "github" + "_pat_" + "11" + fakecred.Chars("pat1", 20, fakecred.Upper+fakecred.Digits) + "_" + fakecred.Chars("pat2", 59, fakecred.Alnum)
	fakeGitLab      = "gl" + "pat-" + fakecred.Chars("glpat", 20, fakecred.Alnum+"_-")
	fakeSlack       = "xo" + "xb-" + fakecred.Chars("s1", 12, fakecred.Digits) + "-" + fakecred.Chars("s2", 13, fakecred.Digits) + "-" + fakecred.Chars("s3", 24, fakecred.Alnum)
	fakeGoogle      = "AI" + "za" + fakecred.Chars("google", 35, fakecred.Alnum+"_-")
	fakeStripe      = "sk" + "_live_" + fakecred.Chars("stripe", 24, fakecred.Alnum)
	fakeStripeRK    = "rk" + "_live_" + fakecred.Chars("stripe-rk", 24, fakecred.Alnum)
	fakeOpenAIProj  = "sk" + "-proj-" + fakecred.Chars("openai-proj", 120, fakecred.Alnum+"_-")
	fakeOpenAI      = "sk" + "-" + fakecred.Chars("openai", 48, fakecred.Alnum)
	fakeAnthropic   = "sk" + "-ant-api03-" + fakecred.Chars("anthropic", 93, fakecred.Alnum+"_-") + "AA"
	fakeNPM         = "np" + "m_" + fakecred.Chars("npm", 36, fakecred.Alnum)
	fakeHF          = "hf" + "_" + fakecred.Chars("hf", 34, fakecred.Alnum)
	fakeLabelled    = "q8Zt3Lp0" + "Wm7Xc2Vb9Nk4"
	fakeDO          = "dop" + "_v1_" + fakecred.Chars("do", 64, fakecred.Digits+"abcdef")
	fakeGoogleOAuth = "GOC" + "SPX-" + fakecred.Chars("gocspx", 28, fakecred.Alnum+"_-")
	fakeTwilio      = "S" + "K" + fakecred.Chars("twilio", 32, fakecred.Digits+"abcdef")
	fakeSendGrid    = "S" + "G." + fakecred.Chars("sg1", 22, fakecred.Alnum+"_-") + "." + fakecred.Chars("sg2", 43, fakecred.Alnum+"_-")
	fakeWebhook     = "https://hooks." + "slack.com/services/T" + fakecred.Chars("wt", 10, fakecred.Upper+fakecred.Digits) + "/B" + fakecred.Chars("wb", 10, fakecred.Upper+fakecred.Digits) + "/" + fakecred.Chars("ws", 24, fakecred.Alnum)
	fakeJWTValue    = fakeJWT("jwt")
	fakePassword    = fakecred.Chars("password", 16, fakecred.Alnum)
	fakeBearer      = fakecred.Chars("bearer", 40, fakecred.Alnum)
	fakeAzureKey    = base64.StdEncoding.EncodeToString(fakecred.Bytes("azure", 64))
	fakeRSAKey      = fakePEM("RSA PRIVATE", "", "")
	fakeGenericAPI  = fakecred.Chars("generic", 32, fakecred.Lower+fakecred.Digits)
	fakeBasicCreds  = base64.StdEncoding.EncodeToString([]byte("deploy:" + fakePassword))
	fakeServiceAcct = `{"type":"service_account","project_id":"acme","private_key_id":"` + fakecred.Chars("said", 40, "0123456789abcdef") +
		`","private_key":` + strconv.Quote(fakePEM("PRIVATE", "", "")) + `,"client_email":"bot@acme.iam.gserviceaccount.com"}`
)

// hint is what a reason may show of a secret.
func hint(s string) string { return s[:4] + "…" }

// leaksSecret reports whether reason repeats six or more consecutive
// characters of secret.
func leaksSecret(reason, secret string) bool {
	for i := 0; i+6 <= len(secret); i++ {
		if strings.Contains(reason, secret[i:i+6]) {
			return true
		}
	}
	return false
}

func TestFindSecretsPatterns(t *testing.T) {
	tests := []struct {
		name   string
		in     string
		reason string
		secret string // must not reappear in the reason
	}{
		{"pem rsa", fakeRSAKey, "looks like a PEM private key (-----BEGIN RSA PRIVATE KEY-----)", fakeRSAKey[40:200]},
		{"pem pkcs8", fakePEM("PRIVATE", "", ""), "looks like a PEM private key (-----BEGIN PRIVATE KEY-----)", ""},
		{"pem openssh", fakePEM("OPENSSH PRIVATE", "", ""), "looks like a PEM private key (-----BEGIN OPENSSH PRIVATE KEY-----)", ""},
		{"pem ec", fakePEM("EC PRIVATE", "", ""), "looks like a PEM private key (-----BEGIN EC PRIVATE KEY-----)", ""},
		{"pem encrypted", fakePEM("ENCRYPTED PRIVATE", "", ""), "looks like a PEM private key (-----BEGIN ENCRYPTED PRIVATE KEY-----)", ""},
		{"pem rsa encrypted headers", fakePEM("RSA PRIVATE", "", "Proc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,0123456789ABCDEF0123456789ABCDEF\n\n"),
			"looks like a PEM private key (-----BEGIN RSA PRIVATE KEY-----)", ""},
		{"pgp private key block", fakePEM("PGP PRIVATE", " BLOCK", "Version: GnuPG v2\n\n"), "looks like a PEM private key (-----BEGIN PGP PRIVATE KEY BLOCK-----)", ""},
		{"pem in prose", "Deploy with this key:\n" + fakeRSAKey + "and keep it safe.", "contains a PEM private key (-----BEGIN RSA PRIVATE KEY-----)", ""},
		{"pem with escaped newlines", strings.ReplaceAll(fakeRSAKey, "\n", `\n`), "looks like a PEM private key (-----BEGIN RSA PRIVATE KEY-----)", ""},
		{"service account json", fakeServiceAcct, `contains a JSON "private_key" field holding a PEM private key`, ""},
		{"aws access key id", fakeAWSID, "looks like an AWS access key id (AKIA…)", fakeAWSID[4:]},
		{"aws sts key id in prose", "Call S3 as " + fakeAWSSTS + ", then upload.", "contains an AWS access key id (ASIA…)", fakeAWSSTS[4:]},
		{"aws documentation key id", "Uses key " + "AK" + "IA" + "IOSFODNN7" + "EXAMPLE" + " to call S3.", "contains an AWS access key id (AKIA…)", "IOSFODNN7"},
		{"aws key id in env line", "AWS_ACCESS_KEY_ID=" + fakeAWSID, "contains an AWS access key id (AKIA…)", fakeAWSID[4:]},
		{"aws secret ini", "[default]\naws_secret_access_key = " + fakeAWSSecret + "\n", "contains a labelled AWS secret access key (" + hint(fakeAWSSecret) + ")", fakeAWSSecret},
		{"aws secret json", `{"SecretAccessKey": "` + fakeAWSSecret + `"}`, "contains a labelled AWS secret access key (" + hint(fakeAWSSecret) + ")", fakeAWSSecret},
		{"aws secret env", "export AWS_SECRET_ACCESS_KEY=" + fakeAWSSecret, "contains a labelled AWS secret access key (" + hint(fakeAWSSecret) + ")", fakeAWSSecret},
		{"github classic", fakeGitHub, "looks like a GitHub token (ghp_…)", fakeGitHub[4:]},
		{"github app in prose", "token: " + fakeGitHubApp, "contains a GitHub token (ghs_…)", fakeGitHubApp[4:]},
		{"github fine-grained", fakeGitHubPAT, "looks like a GitHub fine-grained token (gith…)", fakeGitHubPAT[11:]},
		{"gitlab", fakeGitLab, "looks like a GitLab personal access token (glpa…)", fakeGitLab[6:]},
		{"slack", fakeSlack, "looks like a Slack token (xoxb…)", fakeSlack[5:]},
		{"google", "key=" + fakeGoogle, "contains a Google API key (AIza…)", fakeGoogle[4:]},
		{"stripe", fakeStripe, "looks like a Stripe live secret key (sk_l…)", fakeStripe[8:]},
		{"stripe restricted", fakeStripeRK, "looks like a Stripe live secret key (rk_l…)", fakeStripeRK[8:]},
		{"openai project", "OPENAI_API_KEY=" + fakeOpenAIProj, "contains an OpenAI-style secret key (sk-p…)", fakeOpenAIProj[8:]},
		{"openai legacy", fakeOpenAI, "looks like an OpenAI-style secret key (" + hint(fakeOpenAI) + ")", fakeOpenAI[3:]},
		{"anthropic", fakeAnthropic, "looks like an Anthropic API key (sk-a…)", fakeAnthropic[13:]},
		{"npm", "//registry.npmjs.org/:_authToken=" + fakeNPM, "contains an npm access token (npm_…)", fakeNPM[4:]},
		{"hugging face", "HF_TOKEN=" + fakeHF, "contains a Hugging Face token (hf_" + fakeHF[3:4] + "…)", fakeHF[4:]},
		{"digitalocean", fakeDO, "looks like a DigitalOcean token (dop_…)", fakeDO[7:]},
		{"google oauth client secret", "client_secret: " + fakeGoogleOAuth, "contains a Google OAuth client secret (GOCS…)", fakeGoogleOAuth[7:]},
		{"twilio api key", "Twilio key " + fakeTwilio + " for SMS", "contains a Twilio API key (" + fakeTwilio[:4] + "…)", fakeTwilio[4:]},
		{"sendgrid", fakeSendGrid, "looks like a SendGrid API key (SG." + fakeSendGrid[3:4] + "…)", fakeSendGrid[4:]},
		{"query access token", "https://mcp.example.com/sse?region=eu&access_token=" + fakeLabelled + "&x=1", `contains a credential labelled "access_token" (` + hint(fakeLabelled) + ")", fakeLabelled},
		{"password in prose", "Log in as admin, password: " + fakeLabelled + ", then change it.", `contains a credential labelled "password" (` + hint(fakeLabelled) + ")", fakeLabelled},
		{"json secret in prose", `Send {"client_secret": "` + fakeLabelled + `"} to the API.`, `contains a credential labelled "client_secret" (` + hint(fakeLabelled) + ")", fakeLabelled},
		{"api_key in prose", "Call it with api_key=" + fakeLabelled + " in the URL.", `contains a credential labelled "api_key" (` + hint(fakeLabelled) + ")", fakeLabelled},
		{"slack webhook", "POST to " + fakeWebhook, "contains a Slack webhook URL (http…)", fakeWebhook[40:]},
		{"jwt", fakeJWTValue, "looks like a JSON Web Token (eyJh…)", fakeJWTValue[4:]},
		{"jwt bearer header", "Authorization: Bearer " + fakeJWTValue, "contains a JSON Web Token (eyJh…)", fakeJWTValue[4:]},
		{"url password", "postgres://app:" + fakePassword + "@db.internal:5432/orders", "looks like a URL with a password (host db.internal)", fakePassword},
		{"url password in prose", "Connect to redis://default:" + fakePassword + "@cache.internal:6379, then run.", "contains a URL with a password (host cache.internal)", fakePassword},
		{"url password encoded", "https://deploy:" + fakePassword[:8] + "%40" + fakePassword[8:] + "@git.example.org/x.git", "looks like a URL with a password (host git.example.org)", fakePassword},
		{"url password bad port", "amqp://svc:" + fakePassword + "@mq.internal:notaport/vhost", "looks like a URL with a password (host mq.internal)", fakePassword},
		{"bearer header", `curl -H "Authorization: Bearer ` + fakeBearer + `" https://api.example.com`, "contains an HTTP Bearer credential (" + hint(fakeBearer) + ")", fakeBearer},
		{"bearer header value", "Bearer " + fakeBearer, "contains an HTTP Bearer credential (" + hint(fakeBearer) + ")", fakeBearer},
		{"basic header", "Authorization: Basic " + fakeBasicCreds, "contains HTTP Basic credentials", fakeBasicCreds},
		{"azure storage", "DefaultEndpointsProtocol=https;AccountName=acmestore;Account" + "Key=" + fakeAzureKey + ";EndpointSuffix=core.windows.net",
			"contains an Azure connection string with an AccountKey", fakeAzureKey},
		{"azure service bus", "Endpoint=sb://acme.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccess" + "Key=" + fakeAzureKey[:44],
			"contains an Azure connection string with a SharedAccessKey", fakeAzureKey[:44]},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Find(tt.in)
			want := []Finding{{Pointer: "", Reason: tt.reason}}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Find(%.60q) mismatch (-want +got):\n%s", tt.in, diff)
			}
			for _, f := range got {
				if tt.secret != "" && leaksSecret(f.Reason, tt.secret) {
					t.Errorf("reason %q repeats the secret", f.Reason)
				}
			}
			// As an object key, the same string is reported at the member.
			got = Find(map[string]any{tt.in: true})
			want = []Finding{{Pointer: "/" + strings.ReplaceAll(strings.ReplaceAll(tt.in, "~", "~0"), "/", "~1"), Reason: "object key " + tt.reason}}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Find(key) mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// Real tool descriptions talk about credentials without containing any.
func TestFindSecretsProse(t *testing.T) {
	for _, s := range []string{
		"Authenticate with a GitHub token (classic) or a fine-grained token; see GITHUB_PERSONAL_ACCESS_TOKEN.",
		"Pass a Bearer token in the Authorization header.",
		"Authorization: Bearer <token>",
		"Password: the account's password, never logged.",
		"Set token=<your token> and page=2 in the query.",
		"password: ${DB_PASSWORD}",
		`{"api_key": "YOUR_API_KEY_HERE"}`,
		"Call with ?access_token=ACCESS_TOKEN&page=1.",
		"Authorization: Bearer ${GITHUB_TOKEN}",
		"Authorization: Bearer YOUR_ACCESS_TOKEN_GOES_HERE_12",
		"Authorization: Bearer {{ secrets.API_TOKEN_2024 }}",
		"OpenAI keys start with sk- and Anthropic keys with sk-ant-; never paste them here.",
		"Models compatible with sk-learn-style-estimators-and-serialization-formats work.",
		"Run the risk-assessment-for-production-deployment-pipelines-2024 check first.",
		"Connection string, e.g. postgresql://user:password@localhost:5432/db",
		"Use https://user:{password}@example.com or https://${USER}:${PASS}@example.com.",
		"mysql://root:<password>@127.0.0.1/db and amqp://guest:guest@localhost:5672/",
		"redis://:mysecretpassword@localhost:6379 and ftp://anonymous:anonymous@ftp.example.org",
		"https://x-access-token:$GITHUB_TOKEN@github.com/owner/repo.git",
		"git@github.com:owner/repo.git, ssh://git@github.com/owner/repo, mailto:someone@example.com",
		"https://docs.github.com/rest?email=someone@example.com",
		"Use @octocat to mention; see https://github.com/orgs/acme/teams for team@acme.",
		"-----BEGIN RSA PRIVATE KEY-----\n...\n-----END RSA PRIVATE KEY-----",
		"Paste a PEM key beginning with -----BEGIN OPENSSH PRIVATE KEY----- into the secret store.",
		"-----BEGIN PRIVATE KEY-----\n" + strings.Repeat("A", 64) + "\n-----END PRIVATE KEY-----",
		`{"private_key": "-----BEGIN PRIVATE KEY-----\n...\n-----END PRIVATE KEY-----\n"}`,
		"-----BEGIN PUBLIC KEY-----\n" + base64.StdEncoding.EncodeToString(fakecred.Bytes("pub", 200)) + "\n-----END PUBLIC KEY-----",
		"-----BEGIN CERTIFICATE-----\n" + base64.StdEncoding.EncodeToString(fakecred.Bytes("cert", 200)) + "\n-----END CERTIFICATE-----",
		"AK" + "IAXXXXXXXXXXXXXXXX is a placeholder access key id",
		"AKIA keys identify long-term credentials; ASIA keys are temporary.",
		"gh" + "p_" + strings.Repeat("x", 36),
		"gh" + "p_" + strings.Repeat("A", 36) + " and gh" + "p_abcdefghijklmnopqrstuvwxyzabcdefghij",
		"Basic authentication is supported; basic information about the repository is returned.",
		"Use basic auth, or Basic dXNlcjpwYXNzd29yZA== (user:password) for testing.",
		"Tokens look like eyJhbGciOiJIUzI1NiJ9.payload.signature",
		"eyJust-kidding.not-a-token.at-all-really-not",
		"xo" + "xb-your-token-here and xoxp-1234",
		"The aws_secret_access_key setting holds the key; set it with aws configure.",
		"aws_secret_access_key = " + strings.Repeat("x", 40),
		"AccountKey=<your key> or AccountKey=" + strings.Repeat("A", 86) + "==",
		"sk" + "_live_... and sk_test_... keys are both accepted",
		"np" + "m_ tokens and glpat- tokens are rotated monthly",
		"Returns token_count, max_tokens and token_type for the prompt.",
		"get_workflow_run_logs_url download_workflow_run_artifact list_code_scanning_alerts",
		"See https://docs.github.com/en/rest/actions/workflow-runs#get-a-workflow-run for details.",
		"A string of at least 32 characters such as 0123456789abcdef0123456789abcdef.",
	} {
		if got := Find(s); got != nil {
			t.Errorf("Find(%q) = %v, want none", s, got)
		}
	}
}

func TestFindSecretsStructure(t *testing.T) {
	tests := []struct {
		name string
		in   any
		want []Finding
	}{
		{"nil", nil, nil},
		{"scalars", []any{json.Number("12345678901234567890"), true, false, nil, "short"}, nil},
		{"pointer escaping", map[string]any{"a/b": map[string]any{"c~d": []any{"x", fakeGitHub}}},
			[]Finding{{"/a~1b/c~0d/1", "looks like a GitHub token (ghp_…)"}}},
		{"nested arrays", []any{[]any{[]any{"x", []any{fakeNPM}}}},
			[]Finding{{"/0/0/1/0", "looks like an npm access token (npm_…)"}}},
		{"key and value", map[string]any{"config": map[string]any{fakeGitHub: fakeAWSID}},
			[]Finding{
				{"/config/" + fakeGitHub, "looks like an AWS access key id (AKIA…)"},
				{"/config/" + fakeGitHub, "object key looks like a GitHub token (ghp_…)"},
			}},
		{"sorted by pointer", map[string]any{
			"b": fakeStripe, "a": []any{fakeNPM}, "a~": fakeAWSID, "": fakeGitLab,
			"list": []any{"", "", fakeSlack, "", "", "", "", "", "", "", fakeGoogle},
		}, []Finding{
			{"/", "looks like a GitLab personal access token (glpa…)"},
			{"/a/0", "looks like an npm access token (npm_…)"},
			{"/a~0", "looks like an AWS access key id (AKIA…)"},
			{"/b", "looks like a Stripe live secret key (sk_l…)"},
			{"/list/10", "looks like a Google API key (AIza…)"},
			{"/list/2", "looks like a Slack token (xoxb…)"},
		}},
		{"secret-named members", map[string]any{
			"api_key": fakeGenericAPI, "clientSecret": fakeGenericAPI, "password": "Tr0ub4dor-and-3",
			"headers": map[string]any{"X-Api-Key": fakeGenericAPI, "Authorization": "Bearer " + fakeBearer},
		}, []Finding{
			{"/api_key", `value of member "api_key" looks like a credential`},
			{"/clientSecret", `value of member "clientSecret" looks like a credential`},
			{"/headers/Authorization", "contains an HTTP Bearer credential (" + hint(fakeBearer) + ")"},
			{"/headers/X-Api-Key", `value of member "X-Api-Key" looks like a credential`},
			{"/password", `value of member "password" looks like a credential`},
		}},
		{"secret-named members with harmless values", map[string]any{
			"password": "********", "token": "${{ secrets.GITHUB_TOKEN }}", "api_key": "env:OPENAI_API_KEY",
			"secret": "The password for the database", "credentials": "/var/run/creds/db2", "private_key": "./keys/id_ed25519",
			"token_type": "bearer2024", "secret_name": "db-creds-2024", "max_tokens": "4096", "password_policy": "min12chars",
			"auth_token": "", "apiKey": "sk-1", "access_token": "https://example.com/t0ken",
		}, nil},
		{"tool object", map[string]any{
			"name":        "deploy",
			"description": "Deploys with " + fakeAWSID,
			"inputSchema": map[string]any{"type": "object", "properties": map[string]any{
				"region": map[string]any{"type": "string", "examples": []any{"us-east-1", fakeGoogle}},
			}},
		}, []Finding{
			{"/description", "contains an AWS access key id (AKIA…)"},
			{"/inputSchema/properties/region/examples/1", "looks like a Google API key (AIza…)"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, Find(tt.in)); diff != "" {
				t.Errorf("Find mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestIsSecretName(t *testing.T) {
	secret := []string{
		"password", "Password", "PASSWORD", "passwd", "passphrase", "ssh_passphrase", "secret", "client_secret", "clientSecret",
		"CLIENT_SECRET", "webhook-secret", "token", "access_token", "accessToken", "refresh_token", "RefreshToken", "id_token",
		"api_key", "apiKey", "apikey", "APIKey", "API_KEY", "x-api-key", "Api-Key", "private_key", "privateKey", "access_key",
		"secret_access_key", "AWS_SECRET_ACCESS_KEY", "secretKey", "credential", "credentials", "Credentials", "auth_token",
		"authToken", "session_key", "sessionKey", "github_token", "GITHUB_PERSONAL_ACCESS_TOKEN", "password2", "new-password",
		"db.password", "password_confirmation", "secret_value", "tokenSecret", "oauth2_token", "bearer_token", "sas_token",
		"account_key", "signing_key", "encryption_key", "passcode", "master_key", "client_key", "auth_key", "shared_key",
	}
	notSecret := []string{
		"", "name", "key", "keys", "token_count", "max_tokens", "maxTokens", "max_output_tokens", "tokens", "token_type",
		"tokenType", "tokenizer", "tokenize", "token_limit", "token_url", "tokenEndpoint", "secret_name", "secretName",
		"secret_type", "secrets", "secretRef", "secretKeyRef", "password_policy", "passwordPolicy", "password_length",
		"passwordless", "password_reset_url", "page_token", "pageToken", "nextPageToken", "next_token", "continuationToken",
		"cursor_token", "eos_token", "bos_token", "pad_token", "stop_token", "special_tokens", "public_key", "publicKey",
		"primary_key", "sort_key", "partition_key", "idempotency_key", "hotkey", "access_key_id", "AccessKeyId",
		"private_key_id", "private_key_path", "privateKeyFile", "credential_id", "credentials_file", "credentialType",
		"private", "author", "value", "confirm", "keyboard", "monkey", "api_version",
	}
	for _, n := range secret {
		if !Named(n) {
			t.Errorf("isSecretName(%q) = false, want true", n)
		}
	}
	for _, n := range notSecret {
		if Named(n) {
			t.Errorf("isSecretName(%q) = true, want false", n)
		}
	}
}

// schemaJSON decodes a schema written in a test.
func schemaJSON(t testing.TB, s string) any {
	t.Helper()
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatalf("bad test schema %s: %v", s, err)
	}
	return v
}

func TestFindSchemaSecrets(t *testing.T) {
	tests := []struct {
		name   string
		schema string
		want   []Finding
	}{
		{"default on password", `{"type":"object","properties":{"password":{"type":"string","default":"hunter2hunter2"}}}`,
			[]Finding{{"/properties/password/default", `default value on secret property "password"`}}},
		{"const enum examples example", `{"properties":{
			"apiKey":{"const":"k1"},
			"client_secret":{"enum":["one","","two"]},
			"access_token":{"examples":["abc",{"nested":"def"}]},
			"x-api-key":{"example":"ghi"}}}`,
			[]Finding{
				{"/properties/access_token/examples/0", `examples value on secret property "access_token"`},
				{"/properties/access_token/examples/1/nested", `examples value on secret property "access_token"`},
				{"/properties/apiKey/const", `const value on secret property "apiKey"`},
				{"/properties/client_secret/enum/0", `enum value on secret property "client_secret"`},
				{"/properties/client_secret/enum/2", `enum value on secret property "client_secret"`},
				{"/properties/x-api-key/example", `example value on secret property "x-api-key"`},
			}},
		{"empty and non-string values", `{"properties":{"password":{"default":""},"token":{"default":12345},"secret":{"enum":[true,null]}}}`, nil},
		{"format password", `{"properties":{"pin":{"type":"string","format":"password","default":"0000"}}}`,
			[]Finding{{"/properties/pin/default", `default value on property "pin" with format: password`}}},
		{"writeOnly", `{"properties":{"hook":{"type":"string","writeOnly":true,"examples":["whsec"]}}}`,
			[]Finding{{"/properties/hook/examples/0", `examples value on property "hook" with writeOnly: true`}}},
		{"format password in a branch", `{"properties":{"pin":{"anyOf":[{"type":"null"},{"type":"string","format":"password"}],"default":"0000"}}}`,
			[]Finding{{"/properties/pin/default", `default value on property "pin" with format: password`}}},
		{"root format password", `{"type":"string","format":"password","default":"x"}`,
			[]Finding{{"/default", `default value on schema with format: password`}}},
		{"in $defs", `{"$defs":{"Creds":{"type":"object","properties":{"client_secret":{"type":"string","default":"s3cr3t"}}}}}`,
			[]Finding{{"/$defs/Creds/properties/client_secret/default", `default value on secret property "client_secret"`}}},
		{"definition named like a secret", `{"definitions":{"ApiToken":{"type":"string","examples":["t-1"]}}}`,
			[]Finding{{"/definitions/ApiToken/examples/0", `examples value on secret definition "ApiToken"`}}},
		{"in anyOf branch", `{"properties":{"token":{"anyOf":[{"type":"string","default":"abc"},{"type":"null"}]}}}`,
			[]Finding{{"/properties/token/anyOf/0/default", `default value on secret property "token"`}}},
		{"in items", `{"properties":{"credentials":{"type":"array","items":{"type":"string","examples":["c1"]}}}}`,
			[]Finding{{"/properties/credentials/items/examples/0", `examples value on secret property "credentials"`}}},
		{"deep", `{"$defs":{"A":{"properties":{"list":{"items":{"oneOf":[{"properties":{"auth":{"properties":{"session_key":{"allOf":[{"if":{"const":"k"}}]}}}}}]}}}}}}`,
			[]Finding{{"/$defs/A/properties/list/items/oneOf/0/properties/auth/properties/session_key/allOf/0/if/const", `const value on secret property "session_key"`}}},
		{"every applicator", `{"properties":{"secret":{
			"not":{"default":"a"},"then":{"default":"b"},"else":{"default":"c"},
			"prefixItems":[{"default":"d"}],"contains":{"default":"e"},"additionalProperties":{"default":"f"},
			"unevaluatedProperties":{"default":"g"},"unevaluatedItems":{"default":"h"},"additionalItems":{"default":"i"},
			"dependentSchemas":{"other":{"default":"j"}},"patternProperties":{"^x$":{"default":"k"}},
			"dependencies":{"other":{"default":"l"},"names":["a","b"]},"items":[{"default":"m"}],"contentSchema":{"default":"n"}}}}`,
			[]Finding{
				{"/properties/secret/additionalItems/default", `default value on secret property "secret"`},
				{"/properties/secret/additionalProperties/default", `default value on secret property "secret"`},
				{"/properties/secret/contains/default", `default value on secret property "secret"`},
				{"/properties/secret/contentSchema/default", `default value on secret property "secret"`},
				{"/properties/secret/dependencies/other/default", `default value on secret property "secret"`},
				{"/properties/secret/dependentSchemas/other/default", `default value on secret property "secret"`},
				{"/properties/secret/else/default", `default value on secret property "secret"`},
				{"/properties/secret/items/0/default", `default value on secret property "secret"`},
				{"/properties/secret/not/default", `default value on secret property "secret"`},
				{"/properties/secret/patternProperties/^x$/default", `default value on secret property "secret"`},
				{"/properties/secret/prefixItems/0/default", `default value on secret property "secret"`},
				{"/properties/secret/then/default", `default value on secret property "secret"`},
				{"/properties/secret/unevaluatedItems/default", `default value on secret property "secret"`},
				{"/properties/secret/unevaluatedProperties/default", `default value on secret property "secret"`},
			}},
		{"pattern property named like a secret", `{"patternProperties":{"_token$":{"default":"t"}}}`,
			[]Finding{{"/patternProperties/_token$/default", `default value on secret pattern property "_token$"`}}},
		{"properties of a secret object judged by name", `{"properties":{"credentials":{"properties":{"username":{"default":"admin"},"password":{"default":"pw"}}}}}`,
			[]Finding{{"/properties/credentials/properties/password/default", `default value on secret property "password"`}}},
		{"default object on a secret", `{"properties":{"credentials":{"type":"object","default":{"user":"u","pass":"p","port":5432}}}}`,
			[]Finding{
				{"/properties/credentials/default/pass", `default value on secret property "credentials"`},
				{"/properties/credentials/default/user", `default value on secret property "credentials"`},
			}},
		{"propertyNames not inherited", `{"properties":{"credentials":{"propertyNames":{"enum":["user","password"]}}}}`, nil},
		{"ref followed", `{"properties":{"password":{"$ref":"#/$defs/Str"}},"$defs":{"Str":{"type":"string","default":"abc"}}}`,
			[]Finding{{"/$defs/Str/default", `default value on secret property "password"`}}},
		{"ref with escapes and percent-encoding", `{"properties":{"token":{"$ref":"#/$defs/a~1b%25c"}},"$defs":{"a/b%c":{"enum":["x"]}}}`,
			[]Finding{{"/$defs/a~1b%c/enum/0", `enum value on secret property "token"`}}},
		{"ref into array", `{"properties":{"token":{"$ref":"#/allOf/1"}},"allOf":[{},{"default":"z"}]}`,
			[]Finding{{"/allOf/1/default", `default value on secret property "token"`}}},
		{"ref cycle", `{"$defs":{"A":{"$ref":"#/$defs/B"},"B":{"anyOf":[{"$ref":"#/$defs/A"},{"$ref":"#"}]}},"properties":{"token":{"$ref":"#/$defs/A"}}}`, nil},
		{"ref to root", `{"default":"r","properties":{"secret":{"$ref":"#"}}}`,
			[]Finding{{"/default", `default value on secret property "secret"`}}},
		{"refs that go nowhere", `{"properties":{"token":{"anyOf":[{"$ref":"other.json#/x"},{"$ref":"#anchor"},{"$ref":"#/missing/path"},{"$ref":"#/properties/0"},{"$ref":"#/allOf/01"}]}},"allOf":[{"default":"q"},{"default":"q"}]}`, nil},
		{"pointer escaping", `{"properties":{"db/password":{"default":"x"},"~token":{"default":"y"}}}`,
			[]Finding{
				{"/properties/db~1password/default", `default value on secret property "db/password"`},
				{"/properties/~0token/default", `default value on secret property "~token"`},
			}},
		{"booleans", `{"properties":{"password":true,"token":false},"items":true,"not":false}`, nil},
		{"root boolean", `true`, nil},
		{"not a schema", `["password"]`, nil},
		{"keyword values are not schemas", `{"properties":{"x":{"default":{"properties":{"password":{"default":"abc"}}}}},"x-extra":{"properties":{"password":{"default":"abc"}}}}`, nil},
		{"false-positive names", `{"properties":{
			"token_count":{"default":"1"},"max_tokens":{"default":"1"},"token_type":{"default":"bearer","enum":["bearer","mac"]},
			"tokenizer":{"default":"cl100k_base"},"secret_name":{"default":"db-creds"},"password_policy":{"default":"strict"},
			"page_token":{"examples":["CAESBggB"]},"nextPageToken":{"default":"a"},"eos_token":{"default":"</s>"},
			"secret_type":{"enum":["generic"]},"public_key":{"default":"ssh-ed25519 AAAA"},"access_key_id":{"default":"x"},
			"private_key_path":{"default":"~/.ssh/id_ed25519"},"primary_key":{"default":"id"},"private":{"default":"yes"}}}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, FindInSchema(schemaJSON(t, tt.schema))); diff != "" {
				t.Errorf("FindInSchema mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// The same shared definition reached from several secret properties is
// reported once, under the same reason every time.
func TestFindSchemaSecretsDeterministic(t *testing.T) {
	s := schemaJSON(t, `{"properties":{"password":{"$ref":"#/$defs/S"},"token":{"$ref":"#/$defs/S"},"api_key":{"$ref":"#/$defs/S"}},
		"$defs":{"S":{"type":"string","default":"d","anyOf":[{"$ref":"#/$defs/S"}]}}}`)
	want := []Finding{{"/$defs/S/default", `default value on secret property "api_key"`}}
	for range 50 {
		if diff := cmp.Diff(want, FindInSchema(s)); diff != "" {
			t.Fatalf("FindInSchema mismatch (-want +got):\n%s", diff)
		}
	}
}

// resolveSecretPointer follows an RFC 6901 pointer into v.
func resolveSecretPointer(v any, p string) bool {
	if p == "" {
		return true
	}
	if p[0] != '/' {
		return false
	}
	for _, seg := range strings.Split(p[1:], "/") {
		seg = strings.ReplaceAll(strings.ReplaceAll(seg, "~1", "/"), "~0", "~")
		switch x := v.(type) {
		case map[string]any:
			next, ok := x[seg]
			if !ok {
				return false
			}
			v = next
		case []any:
			i, err := strconv.Atoi(seg)
			if err != nil || i < 0 || i >= len(x) {
				return false
			}
			v = x[i]
		default:
			return false
		}
	}
	return true
}

func checkSecretFindings(t *testing.T, v any, got []Finding) {
	t.Helper()
	if !slices.IsSortedFunc(got, func(a, b Finding) int { return strings.Compare(a.Pointer, b.Pointer) }) {
		t.Errorf("findings not sorted: %v", got)
	}
	for _, f := range got {
		if !resolveSecretPointer(v, f.Pointer) {
			t.Errorf("pointer %q does not resolve", f.Pointer)
		}
		if f.Reason == "" || strings.ContainsAny(f.Reason, "\n\r") {
			t.Errorf("reason %q is not one line", f.Reason)
		}
	}
}

func FuzzFindSecrets(f *testing.F) {
	for _, s := range []string{
		`{"a":"b"}`, `[1,2,{"x/y~":"z"}]`, `"` + fakeGitHub + `"`, fakeRSAKey, fakeServiceAcct, fakeJWTValue,
		"postgres://u:" + fakePassword + "@h:1/x", "Authorization: Basic " + fakeBasicCreds, "Bearer " + fakeBearer,
		`{"properties":{"password":{"default":"x","$ref":"#/$defs/A"}},"$defs":{"A":{"anyOf":[{"$ref":"#"}],"enum":["q"]}}}`,
		"a://b:c@d", "https://u:%zz@h", "sk-" + strings.Repeat("aB3", 12), "basic ====", "xoxb-123456-" + fakeBearer,
	} {
		f.Add([]byte(s))
	}
	for _, k := range fakecred.Kinds() {
		f.Add([]byte(k.Value))
		f.Add([]byte(fakecred.RegexLiteral(k.Value)))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		d := json.NewDecoder(bytes.NewReader(data))
		d.UseNumber()
		var v any
		if err := d.Decode(&v); err != nil {
			v = string(data)
		}
		checkSecretFindings(t, v, Find(v))
		checkSecretFindings(t, v, FindInSchema(v))
		s := string(data)
		checkSecretFindings(t, s, Find(s))
		m := map[string]any{s: s, "token": s}
		checkSecretFindings(t, m, Find(m))
		Named(s)
	})
}

// benchDescriptor is a realistic published tool descriptor of about 3 KB
// that talks about tokens without containing any.
const benchDescriptor = `{
 "toolId": "create_pull_request_review",
 "title": "Create a pull request review",
 "description": "Create a review on a pull request in a GitHub repository. The review can approve the change, request changes, or leave a comment, and may carry line comments. Authenticate with a GitHub token (classic or fine-grained) that has the pull_requests: write permission; the host passes it as a Bearer token in the Authorization header, so never put it in the arguments. Use get_pull_request_diff first to see the lines you can comment on, and list_pull_request_reviews to avoid duplicate reviews. Large diffs are truncated: see https://docs.github.com/en/rest/pulls/reviews#create-a-review-for-a-pull-request for the limits. Keys that start with sk- or ghp_ pasted into a comment are redacted by the server.",
 "server": "com.example/github",
 "source": "mcp",
 "safetyTier": "write",
 "replayPolicy": "unsafe",
 "egress": "internet",
 "annotations": {"destructiveHint": true, "idempotentHint": false, "openWorldHint": true, "readOnlyHint": false},
 "inputSchema": {
  "type": "object",
  "properties": {
   "owner": {"type": "string", "description": "Repository owner (user or organization login)"},
   "repo": {"type": "string", "description": "Repository name"},
   "pullNumber": {"type": "number", "description": "Pull request number", "minimum": 1},
   "body": {"type": "string", "description": "Review comment text, in GitHub-flavored Markdown"},
   "event": {"type": "string", "description": "Review action to perform", "enum": ["APPROVE", "REQUEST_CHANGES", "COMMENT"]},
   "commitID": {"type": "string", "description": "SHA of the commit to review; defaults to the head of the pull request"},
   "comments": {
    "type": "array",
    "description": "Line-specific comments on the diff, each anchored to a path and a line",
    "items": {
     "type": "object",
     "properties": {
      "path": {"type": "string", "description": "Path of the file, relative to the repository root"},
      "line": {"type": "number", "description": "Line number in the file for a single-line comment"},
      "side": {"type": "string", "enum": ["LEFT", "RIGHT"], "description": "Side of the diff: LEFT for deletions, RIGHT for additions"},
      "start_line": {"type": "number", "description": "First line of a multi-line comment"},
      "start_side": {"type": "string", "enum": ["LEFT", "RIGHT"], "description": "Side of the diff for start_line"},
      "body": {"type": "string", "description": "Comment text"}
     },
     "required": ["path", "body"],
     "additionalProperties": false
    }
   },
   "token_budget": {"anyOf": [{"type": "integer", "minimum": 0}, {"type": "null"}], "description": "Maximum number of tokens of diff context to include; null means the server default", "default": null}
  },
  "required": ["owner", "repo", "pullNumber", "event"],
  "additionalProperties": false
 }
}`

func BenchmarkFindSecrets(b *testing.B) {
	v := schemaJSON(b, benchDescriptor)
	if got := Find(v); got != nil {
		b.Fatalf("findings on the benchmark descriptor: %v", got)
	}
	b.SetBytes(int64(len(benchDescriptor)))
	b.ReportAllocs()
	for b.Loop() {
		Find(v)
	}
}

func BenchmarkFindSchemaSecrets(b *testing.B) {
	s := schemaJSON(b, benchDescriptor).(map[string]any)["inputSchema"]
	b.ReportAllocs()
	for b.Loop() {
		FindInSchema(s)
	}
}
