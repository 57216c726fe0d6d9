package build

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/signpost-dev/signpost/internal/catalogtest"
	"github.com/signpost-dev/signpost/internal/fakecred"
)

// The probes below plant one fake credential in one place of a small
// catalog each and check that Load refuses it, at the file that holds it,
// without repeating it. The credentials are assembled at run time from
// pieces and hashed filler, so that this file holds nothing a secret
// scanner would flag; none is real.

const probeHex = fakecred.Digits + "abcdef"

var (
	probeGitHub     = "gh" + "p_" + fakecred.Chars("ghp", 36, fakecred.Alnum)
	probeGitHubPAT  = "github" + "_pat_" + "11" + fakecred.Chars("pat1", 20, fakecred.Upper+fakecred.Digits) + "_" + fakecred.Chars("pat2", 59, fakecred.Alnum)
	probeGitLab     = "gl" + "pat-" + fakecred.Chars("glpat", 20, fakecred.Alnum)
	probeAWSID      = "AK" + "IA" + fakecred.Chars("aws-id", 16, fakecred.Upper+fakecred.Digits)
	probeAWSSecret  = fakecred.Chars("aws-secret", 40, fakecred.Alnum+"/+")
	probeSlack      = "xo" + "xb-" + fakecred.Chars("s1", 12, fakecred.Digits) + "-" + fakecred.Chars("s2", 13, fakecred.Digits) + "-" + fakecred.Chars("s3", 24, fakecred.Alnum)
	probeStripe     = "sk" + "_live_" + fakecred.Chars("stripe", 24, fakecred.Alnum)
	probeOpenAI     = "sk" + "-proj-" + fakecred.Chars("openai", 64, fakecred.Alnum+"_-")
	probeAnthropic  = "sk" + "-ant-api03-" + fakecred.Chars("anthropic", 93, fakecred.Alnum+"_-") + "AA"
	probeGoogle     = "AI" + "za" + fakecred.Chars("google", 35, fakecred.Alnum+"_-")
	probeGoogleOA   = "GOC" + "SPX-" + fakecred.Chars("gocspx", 28, fakecred.Alnum+"_-")
	probeTwilio     = "S" + "K" + fakecred.Chars("twilio", 32, probeHex)
	probeSendGrid   = "S" + "G." + fakecred.Chars("sg1", 22, fakecred.Alnum+"_-") + "." + fakecred.Chars("sg2", 43, fakecred.Alnum+"_-")
	probeHF         = "hf" + "_" + fakecred.Chars("hf", 34, fakecred.Alnum)
	probeDO         = "dop" + "_v1_" + fakecred.Chars("do", 64, probeHex)
	probeNPM        = "np" + "m_" + fakecred.Chars("npm", 36, fakecred.Alnum)
	probePyPI       = "py" + "pi-" + "AgEIcHlwaS5vcmc" + fakecred.Chars("pypi", 70, fakecred.Alnum+"_-")
	probeTelegram   = fakecred.Chars("tg-id", 9, "123456789") + ":" + "AA" + fakecred.Chars("tg", 33, fakecred.Alnum+"_-")
	probeWebhookKey = fakecred.Chars("ws", 24, fakecred.Alnum)
	probeWebhook    = "https://hooks." + "slack.com/services/T" + fakecred.Chars("wt", 10, fakecred.Upper+fakecred.Digits) + "/B" + fakecred.Chars("wb", 10, fakecred.Upper+fakecred.Digits) + "/" + probeWebhookKey
	probeJWT        = base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"HS256","typ":"JWT"}`)) + "." +
		base64.RawURLEncoding.EncodeToString([]byte(`{"sub":"42","iat":1700000000}`)) + "." +
		base64.RawURLEncoding.EncodeToString(fakecred.Bytes("jwt", 32))
	probePEMBody   = base64.StdEncoding.EncodeToString(fakecred.Bytes("pem", 300))
	probePEM       = "-----BEGIN RSA PRIVATE " + "KEY-----\n" + probePEMBody[:64] + "\n" + probePEMBody[64:128] + "\n" + probePEMBody[128:] + "\n-----END RSA PRIVATE " + "KEY-----\n"
	probeAzureKey  = base64.StdEncoding.EncodeToString(fakecred.Bytes("azure", 64))
	probeSAS       = strings.NewReplacer("+", "%2B", "/", "%2F", "=", "%3D").Replace(base64.StdEncoding.EncodeToString(fakecred.Bytes("sas", 32)))
	probeAmzSig    = fakecred.Chars("amz-sig", 64, probeHex)
	probeGeneric   = fakecred.Chars("generic", 28, fakecred.Alnum)
	probePassword  = fakecred.Chars("password", 18, fakecred.Alnum)
	probeHexKey    = fakecred.Chars("hex-key", 64, probeHex)
	probeHexKey32  = fakecred.Chars("hex-key-32", 32, probeHex)
	probeB64Key    = base64.StdEncoding.EncodeToString(fakecred.Bytes("b64-key", 32))
	probeBasic     = base64.StdEncoding.EncodeToString([]byte("deploy:" + probePassword))
	probeGitSHA    = fakecred.Chars("commit", 40, probeHex)
	probeSHA256    = fakecred.Chars("digest", 64, probeHex)
	probeUUID      = "3f2b8c1e-9d4a-4e7b-8c21-6a5f0d9e7b43"
	probeTraceID   = fakecred.Chars("trace", 32, probeHex)
	probeProseB64  = base64.StdEncoding.EncodeToString([]byte("The weather is fine today!!!"))
	probeCamelCase = "listRepositoryCollaboratorInvitations2"
)

// yq quotes s as a YAML double-quoted scalar.
func yq(s string) string { return strconv.Quote(s) }

// probeTools is a declaration file of one tool with fields replaced or
// added (see tool).
func probeTools(fields ...string) map[string]string {
	return map[string]string{"signpost.yaml": testConfig, "tools/t.yaml": "tools:\n" + toolDecl(fields...)}
}

// probeServer is a declaration file of one server with extra lines (each
// indented four spaces) added to a valid item.
func probeServer(lines ...string) map[string]string {
	var b strings.Builder
	b.WriteString("servers:\n  - name: com.example/weather\n    version: 1.0.0\n")
	described := false
	for _, l := range lines {
		described = described || strings.HasPrefix(l, "description:")
		b.WriteString("    " + l + "\n")
	}
	if !described {
		b.WriteString("    description: Forecasts.\n")
	}
	return map[string]string{"signpost.yaml": testConfig, "servers.yaml": b.String()}
}

// probeCrossHost is a server whose card another host serves.
func probeCrossHost(cardURL string) map[string]string {
	return map[string]string{"signpost.yaml": testConfig,
		"servers.yaml": "servers:\n  - name: com.example/weather\n    cardUrl: " + yq(cardURL) + "\n"}
}

// probeConfig is a catalog whose signpost.yaml is config.
func probeConfig(config string) map[string]string {
	return map[string]string{"signpost.yaml": config, "tools/t.yaml": "tools:\n" + toolDecl()}
}

// probeSchema is a tool whose inputSchema (JSON, inline) is schema.
func probeSchema(field, schema string) map[string]string {
	return probeTools(field, schema)
}

// probeRecorded is an mcp: import of one recorded tool: the fields of
// patch replace those of a valid tool (a nil value removes one). classify
// is added to the import as YAML lines indented four spaces.
func probeRecorded(t *testing.T, patch map[string]any, classify ...string) map[string]string {
	tl := map[string]any{
		"name": "getForecast", "description": "Seven-day forecast.",
		"inputSchema": map[string]any{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}},
	}
	for k, v := range patch {
		if v == nil {
			delete(tl, k)
		} else {
			tl[k] = v
		}
	}
	rec, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "result": map[string]any{"tools": []any{tl}}})
	if err != nil {
		t.Fatal(err)
	}
	imp := "mcp:\n  from: rec.json\n  toolIdPrefix: wx\n"
	if len(classify) > 0 {
		imp += "  classify:\n    getForecast:\n"
		for _, l := range classify {
			imp += "      " + l + "\n"
		}
	}
	return map[string]string{"signpost.yaml": testConfig, "imports/wx.yaml": imp, "imports/rec.json": string(rec)}
}

// secretProbe is one planted credential, or a negative control.
type secretProbe struct {
	name  string
	files map[string]string
	// file is where a diagnostic must point: the file that holds the
	// credential. "" marks a negative control, which must load cleanly.
	file string
	// secret is what no diagnostic may repeat, beyond its first four
	// characters.
	secret string
}

func secretProbes(t *testing.T) []secretProbe {
	obj := func(s string) map[string]any {
		var v map[string]any
		if err := json.Unmarshal([]byte(s), &v); err != nil {
			t.Fatalf("probe JSON %s: %v", s, err)
		}
		return v
	}
	desc := func(s string) map[string]string { return probeTools("description", yq(s)) }
	const tf, sf, cf = "tools/t.yaml", "servers.yaml", "signpost.yaml"
	const rf, imf = "imports/rec.json", "imports/wx.yaml"
	prop := func(name, keyword, value string) string {
		return `{"type": "object", "properties": {"` + name + `": {"type": "string", "` + keyword + `": ` + value + `}}}`
	}
	return []secretProbe{
		// signpost.yaml.
		{"site displayName", probeConfig("site: {origin: https://example.com, publisher: example.com, displayName: " + yq("Example "+probeGitHub) + "}\n"), cf, probeGitHub},
		{"site publisher", probeConfig("site: {origin: https://example.com, publisher: " + yq(probeGitHub) + "}\n"), cf, probeGitHub},
		{"site origin user-info", probeConfig("site: {origin: " + yq("https://deploy:"+probePassword+"@example.com") + ", publisher: example.com}\n"), cf, probePassword},
		{"tenant id", probeConfig(testConfig + "tenants: [acme, " + yq(probeGitHub) + "]\n"), cf, probeGitHub},
		{"target s3 endpoint user-info", probeConfig(testConfig + "targets:\n  prod:\n    s3: {bucket: docs-site, endpoint: " + yq("https://"+probeAWSID+":"+probePassword+"@s3.example.net") + "}\n"), cf, probePassword},
		{"target s3 prefix", probeConfig(testConfig + "targets:\n  prod:\n    s3: {bucket: docs-site, prefix: " + yq(probeGitHub) + "}\n"), cf, probeGitHub},
		{"target cloudfront distributionId", probeConfig(testConfig + "targets:\n  prod:\n    s3: {bucket: docs-site}\n    cloudfront: {distributionId: " + probeAWSID + "}\n"), cf, probeAWSID},
		{"target cloudfront functionName", probeConfig(testConfig + "targets:\n  prod:\n    s3: {bucket: docs-site}\n    cloudfront: {distributionId: E2ABCDEF, functionName: " + yq(probeGitLab) + "}\n"), cf, probeGitLab},
		{"target unknown field", probeConfig(testConfig + "targets:\n  prod:\n    s3: {bucket: docs-site, secretAccessKey: " + yq(probeAWSSecret) + "}\n"), cf, probeAWSSecret},

		// Tool fields.
		{"tool description github", desc("Lists issues. " + probeGitHub), tf, probeGitHub},
		{"tool title slack", probeTools("title", yq("Forecast "+probeSlack)), tf, probeSlack},
		{"tool name stripe", probeTools("source", "mcp", "name", yq(probeStripe)), tf, probeStripe},
		{"tool toolId github", probeTools("toolId", yq(probeGitHub)), tf, probeGitHub},
		{"tool server field", probeTools("server", yq("com.example/"+probeGitHub)), tf, probeGitHub},
		{"tool tenants", map[string]string{"signpost.yaml": testConfig + "tenants: [acme]\n", tf: "tools:\n" + toolDecl("tenants", "["+yq(probeGitHub)+"]")}, tf, probeGitHub},
		{"description api_key=", desc("Call it with api_key=" + probeGeneric + " in the query."), tf, probeGeneric},
		{"description password:", desc("Log in as admin, password: " + probePassword + ", then change it."), tf, probePassword},
		{"description url ?access_token=", desc("Fetch https://api.example.com/v1/forecast?city=Oslo&access_token=" + probeGeneric + " daily."), tf, probeGeneric},
		{"description url ?token=", desc("See https://status.example.com/feed?token=" + probeGeneric), tf, probeGeneric},
		{"description url ?apikey=", desc("GET https://api.example.com/v2?apikey=" + probeGeneric + "&units=metric"), tf, probeGeneric},
		{"description url ?key=", desc("Maps at https://maps.example.com/embed?key=" + probeGeneric + "&q=Oslo"), tf, probeGeneric},
		{"description url ?sig= (Azure SAS)", desc("Download https://acme.blob.core.windows.net/data/f.csv?sv=2022-11-02&se=2030-01-01&sr=b&sp=r&sig=" + probeSAS), tf, probeSAS},
		{"description url X-Amz-Signature", desc("Download https://bucket.s3.amazonaws.com/f.csv?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Date=20240101T000000Z&X-Amz-Expires=3600&X-Amz-Signature=" + probeAmzSig), tf, probeAmzSig},
		{"description url ?signature=", desc("Open https://cdn.example.com/file?expires=1700000000&signature=" + probeGeneric), tf, probeGeneric},
		{"description url ?client_secret=", desc("POST https://auth.example.com/token?client_id=app&client_secret=" + probeGeneric), tf, probeGeneric},
		{"description url ?password=", desc("Legacy login: https://old.example.com/login?user=ops&password=" + probePassword), tf, probePassword},
		{"description bare AWS secret", desc("Use key " + probeAWSID[:4] + " with secret " + probeAWSSecret + " for uploads."), tf, probeAWSSecret},
		{"description telegram", desc("Bot " + probeTelegram + " posts alerts."), tf, probeTelegram},
		{"description jwt", desc("Authorization: Bearer " + probeJWT), tf, probeJWT},
		{"description pem", desc("Key:\n" + probePEM), tf, probePEMBody[:120]},
		{"description basic auth", desc("Send Authorization: Basic " + probeBasic), tf, probeBasic},
		{"description bearer", desc("Send Authorization: Bearer " + probeGeneric), tf, probeGeneric},

		// Vendor formats in a description.
		{"vendor github fine-grained", desc(probeGitHubPAT), tf, probeGitHubPAT},
		{"vendor gitlab", desc("GitLab " + probeGitLab), tf, probeGitLab},
		{"vendor aws key id", desc("AWS " + probeAWSID), tf, probeAWSID},
		{"vendor aws labelled secret", desc("aws_secret_access_key = " + probeAWSSecret), tf, probeAWSSecret},
		{"vendor slack", desc(probeSlack), tf, probeSlack},
		{"vendor stripe", desc(probeStripe), tf, probeStripe},
		{"vendor openai", desc("OPENAI " + probeOpenAI), tf, probeOpenAI},
		{"vendor anthropic", desc(probeAnthropic), tf, probeAnthropic},
		{"vendor google api key", desc("Maps " + probeGoogle), tf, probeGoogle},
		{"vendor google oauth", desc("client " + probeGoogleOA), tf, probeGoogleOA},
		{"vendor twilio", desc("Twilio " + probeTwilio), tf, probeTwilio},
		{"vendor sendgrid", desc(probeSendGrid), tf, probeSendGrid},
		{"vendor hugging face", desc("HF " + probeHF), tf, probeHF},
		{"vendor digitalocean", desc(probeDO), tf, probeDO},
		{"vendor npm", desc("npm " + probeNPM), tf, probeNPM},
		{"vendor pypi", desc("Upload with " + probePyPI), tf, probePyPI},
		{"vendor slack webhook", desc("POST " + probeWebhook), tf, probeWebhookKey},
		{"vendor azure connection string", desc("DefaultEndpointsProtocol=https;AccountName=acme;Account" + "Key=" + probeAzureKey + ";EndpointSuffix=core.windows.net"), tf, probeAzureKey},

		// Schemas.
		{"schema password default", probeSchema("inputSchema", prop("password", "default", yq(probeGeneric))), tf, probeGeneric},
		{"schema config default hex key", probeSchema("inputSchema", prop("config", "default", yq(probeHexKey))), tf, probeHexKey},
		{"schema config default 32-hex key", probeSchema("inputSchema", prop("config", "default", yq(probeHexKey32))), tf, probeHexKey32},
		{"schema const base64 key", probeSchema("inputSchema", prop("mode", "const", yq(probeB64Key))), tf, probeB64Key},
		{"schema enum hex key", probeSchema("inputSchema", prop("profile", "enum", "[standard, "+yq(probeHexKey)+"]")), tf, probeHexKey},
		{"schema examples hex key", probeSchema("inputSchema", prop("seed", "examples", "["+yq(probeHexKey)+"]")), tf, probeHexKey},
		{"schema default bare AWS secret", probeSchema("inputSchema", prop("settings", "default", yq(probeAWSSecret))), tf, probeAWSSecret},
		{"schema default github", probeSchema("inputSchema", prop("repo", "default", yq(probeGitHub))), tf, probeGitHub},
		{"schema default url ?sig=", probeSchema("inputSchema", prop("source", "default", yq("https://acme.blob.core.windows.net/c/f?sv=2022-11-02&sig="+probeSAS))), tf, probeSAS},
		{"schema description token", probeSchema("inputSchema", `{"type": "object", "description": `+yq("Uses "+probeSlack)+`}`), tf, probeSlack},
		{"schema property name", probeSchema("inputSchema", `{"type": "object", "properties": {`+yq(probeGitHub)+`: {"type": "string"}}}`), tf, probeGitHub},
		{"schema $defs default", probeSchema("inputSchema", `{"type": "object", "$defs": {"Auth": {"type": "string", "default": `+yq(probeStripe)+`}}}`), tf, probeStripe},
		{"schema $defs name", probeSchema("inputSchema", `{"type": "object", "$defs": {`+yq(probeGitHub)+`: {"type": "string"}}}`), tf, probeGitHub},
		{"schema extension keyword", probeSchema("inputSchema", `{"type": "object", "x-api-key": `+yq(probeGeneric)+`}`), tf, probeGeneric},
		{"outputSchema examples jwt", probeSchema("outputSchema", prop("session", "examples", "["+yq(probeJWT)+"]")), tf, probeJWT},
		{"outputSchema default telegram", probeSchema("outputSchema", prop("bot", "default", yq(probeTelegram))), tf, probeTelegram},
		{"schema file default", map[string]string{"signpost.yaml": testConfig, tf: "tools:\n" + toolDecl("inputSchema", "{file: in.json}"),
			"tools/in.json": prop("config", "default", yq(probeHexKey))}, "tools/in.json", probeHexKey},

		// A recorded tools/list.
		{"recorded description", probeRecorded(t, map[string]any{"description": "Forecast. " + probeGitHub}), rf, probeGitHub},
		{"recorded title", probeRecorded(t, map[string]any{"title": "Forecast " + probeHF}), rf, probeHF},
		{"recorded name", probeRecorded(t, map[string]any{"name": probeStripe}), rf, probeStripe},
		{"recorded inputSchema default", probeRecorded(t, map[string]any{"inputSchema": obj(prop("token", "default", yq(probeGeneric)))}), rf, probeGeneric},
		{"recorded inputSchema hex default", probeRecorded(t, map[string]any{"inputSchema": obj(prop("config", "default", yq(probeHexKey)))}), rf, probeHexKey},
		{"recorded outputSchema telegram", probeRecorded(t, map[string]any{"outputSchema": obj(`{"type": "object", "description": "Bot ` + probeTelegram + `"}`)}), rf, probeTelegram},
		{"recorded property url ?sig=", probeRecorded(t, map[string]any{"inputSchema": obj(prop("blob", "default", yq("https://a.blob.core.windows.net/c?sv=1&sig="+probeSAS)))}), rf, probeSAS},
		{"classify description", probeRecorded(t, nil, "description: "+yq("Forecast "+probeGitHub)), imf, probeGitHub},
		{"classify title", probeRecorded(t, nil, "title: "+yq("Forecast "+probeNPM)), imf, probeNPM},

		// Servers.
		{"server name", map[string]string{"signpost.yaml": testConfig,
			sf: "servers:\n  - name: " + yq("com.example/"+probeGitHub) + "\n    version: 1.0.0\n    description: Forecasts.\n"}, sf, probeGitHub},
		{"server description", probeServer("description: " + yq("Forecasts "+probeGitHub)), sf, probeGitHub},
		{"server description telegram", probeServer("description: " + yq("Alerts via "+probeTelegram)), sf, probeTelegram},
		{"server title password:", probeServer("title: " + yq("password: "+probePassword)), sf, probePassword},
		{"server websiteUrl ?token=", probeServer("websiteUrl: " + yq("https://example.com/dev?token="+probeGeneric)), sf, probeGeneric},
		{"server icon ?sig=", probeServer("icons:", "  - {src: "+yq("https://acme.blob.core.windows.net/icons/w.png?sv=2022-11-02&sr=b&sp=r&sig="+probeSAS)+", mimeType: image/png}"), sf, probeSAS},
		{"server icon X-Amz-Signature", probeServer("icons:", "  - {src: "+yq("https://b.s3.amazonaws.com/w.png?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Signature="+probeAmzSig)+", mimeType: image/png}"), sf, probeAmzSig},
		{"server remote ?access_token=", probeServer("remotes:", "  - {type: streamable-http, url: "+yq("https://mcp.example.com/wx?access_token="+probeGeneric)+"}"), sf, probeGeneric},
		{"server remote ?api_key=", probeServer("remotes:", "  - {type: streamable-http, url: "+yq("https://mcp.example.com/wx?api_key="+probeGeneric)+"}"), sf, probeGeneric},
		{"server remote ?sig=", probeServer("remotes:", "  - {type: sse, url: "+yq("https://mcp.example.com/sse?sig="+probeSAS)+"}"), sf, probeSAS},
		{"server remote ?key=", probeServer("remotes:", "  - {type: sse, url: "+yq("https://mcp.example.com/sse?key="+probeGeneric)+"}"), sf, probeGeneric},
		{"server remote user-info", probeServer("remotes:", "  - {type: sse, url: "+yq("https://ops:"+probePassword+"@mcp.example.com/sse")+"}"), sf, probePassword},
		{"server remote github in path", probeServer("remotes:", "  - {type: sse, url: "+yq("https://mcp.example.com/"+probeGitHub+"/sse")+"}"), sf, probeGitHub},
		{"server header literal bearer", probeServer("remotes:", "  - type: sse", "    url: https://mcp.example.com/sse", "    headers:", "      - {name: Authorization, value: "+yq("Bearer "+probeGeneric)+"}"), sf, probeGeneric},
		{"server header X-API-Key value", probeServer("remotes:", "  - type: sse", "    url: https://mcp.example.com/sse", "    headers:", "      - {name: X-API-Key, value: "+yq(probeGeneric)+"}"), sf, probeGeneric},
		{"server header default", probeServer("remotes:", "  - type: sse", "    url: https://mcp.example.com/sse", "    headers:", "      - {name: X-Region, description: Region, default: "+yq(probeTelegram)+"}"), sf, probeTelegram},
		{"server variable default", probeServer("remotes:", "  - type: sse", "    url: https://{tenant}.mcp.example.com/sse", "    variables:", "      tenant: {description: Tenant, default: "+yq(probeHF)+"}"), sf, probeHF},
		{"server repository user-info", probeServer("repository: {url: " + yq("https://x-access-token:"+probeGitHub+"@github.com/acme/wx") + ", source: github}"), sf, probeGitHub},
		{"server _meta value", probeServer("_meta: {com.example/owner: " + yq(probeOpenAI) + "}"), sf, probeOpenAI},
		{"server _meta secret-named member", probeServer("_meta: {com.example/api_key: " + yq(probeGeneric) + "}"), sf, probeGeneric},
		{"server _meta bare AWS secret", probeServer("_meta: {com.example/build: " + yq(probeAWSSecret) + "}"), sf, probeAWSSecret},
		{"cardUrl ?token=", probeCrossHost("https://cards.example.net/wx.json?token=" + probeGeneric), sf, probeGeneric},
		{"cardUrl ?sig=", probeCrossHost("https://cards.blob.core.windows.net/c/wx.json?sv=2022-11-02&sig=" + probeSAS), sf, probeSAS},
		{"cardUrl user-info", probeCrossHost("https://cards:" + probePassword + "@cards.example.net/wx.json"), sf, probePassword},

		// Negative controls: they talk about credentials, or hold values
		// that resemble them, and must load cleanly.
		{"negative prose about tokens", desc("Authenticate with a GitHub token (ghp_…) or an OpenAI key (sk-…); pass it as a Bearer token, never as api_key in the query."), "", ""},
		{"negative git SHA in prose", desc("Pinned to commit " + probeGitSHA + " of the upstream repository."), "", ""},
		{"negative git SHA default", probeSchema("inputSchema", prop("commit", "default", yq(probeGitSHA))), "", ""},
		{"negative sha256 digest default", probeSchema("inputSchema", prop("digest", "default", yq("sha256:"+probeSHA256))), "", ""},
		{"negative checksum default", probeSchema("inputSchema", `{"type": "object", "properties": {"expected": {"type": "string", "description": "SHA-256 checksum of the file", "default": `+yq(probeSHA256)+`}}}`), "", ""},
		{"negative UUID default", probeSchema("inputSchema", prop("config", "default", yq(probeUUID))), "", ""},
		{"negative UUID enum", probeSchema("inputSchema", prop("workspace", "enum", "["+yq(probeUUID)+"]")), "", ""},
		{"negative color default", probeSchema("inputSchema", prop("theme", "default", yq("#1a2b3c"))), "", ""},
		{"negative trace id in prose", desc("Errors carry a trace id such as " + probeTraceID + "."), "", ""},
		{"negative placeholder <your-token>", desc("Call https://api.example.com/v1?access_token=<your-token>&city=Oslo."), "", ""},
		{"negative placeholder ${API_KEY}", desc("export API_KEY=${API_KEY}; then call with ?api_key=${API_KEY}."), "", ""},
		{"negative sig placeholder", desc("A SAS URL looks like https://acme.blob.core.windows.net/c/f?sv=2022-11-02&sig=<signature>."), "", ""},
		{"negative innocent query", probeServer("icons:", "  - {src: "+yq("https://example.com/w.png?v=3&size=48&key=light")+", mimeType: image/png}"), "", ""},
		{"negative path of 40 characters", desc("Edit src/components/navigation/HeaderMenus.tsx to change it."), "", ""},
		{"negative base64 of prose", desc("The payload " + probeProseB64 + " decodes to a greeting."), "", ""},
		{"negative camelCase enum", probeSchema("inputSchema", prop("operation", "enum", "["+yq(probeCamelCase)+", listRepositories]")), "", ""},
		{"negative token-named facts", probeSchema("inputSchema", `{"type": "object", "properties": {"max_tokens": {"type": "integer", "default": 1024}, "token_type": {"type": "string", "default": "bearer"}, "page_token": {"type": "string", "examples": ["CAESBggB"]}}}`), "", ""},
		{"negative header template", probeServer("remotes:", "  - type: sse", "    url: https://mcp.example.com/sse", "    headers:", "      - {name: Authorization, value: \"Bearer {token}\", isSecret: true, variables: {token: {description: Token, isSecret: true}}}"), "", ""},
	}
}

// probeLeaks reports whether msg repeats six or more consecutive
// characters of secret: a reason may show at most its first four.
func probeLeaks(msg, secret string) bool {
	for i := 0; i+6 <= len(secret); i++ {
		if strings.Contains(msg, secret[i:i+6]) {
			return true
		}
	}
	return false
}

// TestSecretProbes loads each probe catalog: a planted credential must fail
// the load with a diagnostic in the file that holds it, and no diagnostic
// may repeat it; a negative control must load without errors.
func TestSecretProbes(t *testing.T) {
	probes := secretProbes(t)
	var cases, caught, leaked, echoed, falsePositives int
	for _, p := range probes {
		cases++
		t.Run(p.name, func(t *testing.T) {
			dir := catalogtest.Write(t, p.files)
			_, diags := Load(context.Background(), dir)
			var errs []string
			atFile := false
			for _, d := range diags {
				if d.Severity != Error {
					continue
				}
				errs = append(errs, strings.ReplaceAll(d.String(), dir+"/", ""))
				if strings.HasSuffix(d.File, "/"+p.file) {
					atFile = true
				}
				if p.secret != "" && probeLeaks(d.Message, p.secret) {
					echoed++
					t.Errorf("diagnostic repeats the secret: %s", strings.ReplaceAll(d.String(), dir+"/", ""))
				}
			}
			switch {
			case p.file == "" && len(errs) > 0:
				falsePositives++
				t.Errorf("negative control reported:\n%s", strings.Join(errs, "\n"))
			case p.file != "" && !atFile:
				leaked++
				t.Errorf("credential not caught in %s; errors:\n%s", p.file, strings.Join(errs, "\n"))
			case p.file != "":
				caught++
			}
		})
	}
	negatives := 0
	for _, p := range probes {
		if p.file == "" {
			negatives++
		}
	}
	t.Logf("secret probes: %d cases (%d planted, %d negative): %d caught, %d leaked, %d false positives, %d diagnostics repeating a secret",
		cases, cases-negatives, negatives, caught, leaked, falsePositives, echoed)
}
