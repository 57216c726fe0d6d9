// Package export writes the policies that let an organization's MCP
// clients run the servers a site publishes, and nothing else, from the
// same declarations as the site (build.Catalog.SiteServers):
//
//   - ManagedSettings, the allowedMcpServers of GitHub Copilot's
//     managed-settings.json (Copilot CLI, VS Code, JetBrains and the other
//     Copilot clients): a remote by its serverUrl, exact or with the
//     wildcards GitHub's matching accepts, a package by the command a
//     client runs it with (serverCommand), and a server that neither can
//     allow by its serverName;
//   - Cline, the MCP part of Cline's remote configuration: every server's
//     name in allowedMCPServers, each remote server in remoteMCPServers
//     with a URL a client can connect to, and personal remote servers
//     blocked.
//
// Each returns a Document: the JSON, two-space indented with its keys
// sorted, the same bytes for the same declarations; what allows each
// server; and notes of what the policy cannot say. What the formats are,
// and what of GitHub's and Cline's documentation they rest on, is in
// docs/policy.md.
package export
