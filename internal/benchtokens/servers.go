package main

// server is one MCP server of the corpus: an npm package, pinned, that
// starts over stdio and answers tools/list without a credential or the
// network. env holds the dummy values a server only checks the presence
// of (never a real credential); args and env may name {dir}, a scratch
// folder of the run.
type server struct {
	name    string // the declaration file's and the group's name
	pkg     string // the npm package
	version string // its pinned version
	bin     string // the package's bin entry, "" when it has one
	prefix  string // the toolIdPrefix, when not the name in snake case
	args    []string
	env     []string
}

// corpus is the hold-out corpus: of the public MCP servers on npm tried
// (the reference servers, and the most downloaded vendors' servers), the
// 16 most downloaded that list their tools without a credential or the
// network. Those that could not are in docs/performance.md, with why.
var corpus = []server{
	{name: "playwright", pkg: "@playwright/mcp", version: "0.0.83"},
	{name: "chrome-devtools", pkg: "chrome-devtools-mcp", version: "1.11.0", bin: "chrome-devtools-mcp"},
	{name: "context7", pkg: "@upstash/context7-mcp", version: "4.1.1"},
	{name: "filesystem", pkg: "@modelcontextprotocol/server-filesystem", version: "2026.8.31", args: []string{"{dir}"}},
	{name: "sequential-thinking", pkg: "@modelcontextprotocol/server-sequential-thinking", version: "2026.8.31", prefix: "thinking"},
	{name: "github", pkg: "@modelcontextprotocol/server-github", version: "2025.4.8", env: []string{"GITHUB_PERSONAL_ACCESS_TOKEN=dummy"}},
	{name: "memory", pkg: "@modelcontextprotocol/server-memory", version: "2026.8.31", env: []string{"MEMORY_FILE_PATH={dir}/memory.jsonl"}},
	{name: "postgres", pkg: "@modelcontextprotocol/server-postgres", version: "0.6.2", args: []string{"postgresql://127.0.0.1:1/none"}},
	{name: "everything", pkg: "@modelcontextprotocol/server-everything", version: "2026.8.31", args: []string{"stdio"}},
	{name: "notion", pkg: "@notionhq/notion-mcp-server", version: "2.5.2", env: []string{"NOTION_TOKEN=dummy"}},
	{name: "google-maps", pkg: "@modelcontextprotocol/server-google-maps", version: "0.6.2", env: []string{"GOOGLE_MAPS_API_KEY=dummy"}},
	{name: "tavily", pkg: "tavily-mcp", version: "0.2.22", env: []string{"TAVILY_API_KEY=dummy"}},
	{name: "slack", pkg: "@modelcontextprotocol/server-slack", version: "2025.4.25", env: []string{"SLACK_BOT_TOKEN=dummy", "SLACK_TEAM_ID=T0"}},
	{name: "firecrawl", pkg: "firecrawl-mcp", version: "3.26.0", env: []string{"FIRECRAWL_API_KEY=fc-dummy"}},
	{name: "brave-search", pkg: "@modelcontextprotocol/server-brave-search", version: "0.6.2", env: []string{"BRAVE_API_KEY=dummy"}},
	{name: "sentry", pkg: "@sentry/mcp-server", version: "0.39.0", env: []string{"SENTRY_ACCESS_TOKEN=dummy"}},
}
