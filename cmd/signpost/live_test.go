package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rogpeppe/go-internal/testscript"

	"github.com/signpost-dev/signpost/internal/s3test"
)

// liveCmds are the script commands of the scripts that read running MCP
// servers.
var liveCmds = map[string]func(ts *testscript.TestScript, neg bool, args []string){
	"mcpgo":      mcpGoServer,
	"everything": everythingServer,
}

// goServerTools are the tools of the Go server of mcpgo, before and after
// "mcpgo change": the change makes every kind of drift once.
func goServerTools(changed bool) []*mcp.Tool {
	obj := func(s string) json.RawMessage { return json.RawMessage(s) }
	yes, no := true, false
	tools := []*mcp.Tool{
		{Name: "get_forecast", Title: "Forecast", Description: "The forecast for a place.",
			InputSchema:  obj(`{"type":"object","properties":{"place":{"type":"string"},"days":{"type":"integer","minimum":1}},"required":["place"]}`),
			OutputSchema: obj(`{"type":"object","properties":{"summary":{"type":"string"}},"required":["summary"]}`),
			Annotations:  &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: &yes}},
		{Name: "get_alerts", Description: "Weather alerts for a region.",
			InputSchema: obj(`{"type":"object","properties":{"region":{"type":"string"}},"required":["region"]}`),
			Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		{Name: "list_stations", Description: "The weather stations of a country.",
			InputSchema: obj(`{"type":"object","properties":{"country":{"type":"string"}}}`)},
		{Name: "set_units", Description: "Choose metric or imperial units.",
			InputSchema: obj(`{"type":"object","properties":{"units":{"enum":["metric","imperial"]}},"required":["units"]}`),
			Annotations: &mcp.ToolAnnotations{DestructiveHint: &no, IdempotentHint: true}},
		{Name: "delete_station", Description: "Delete a weather station.",
			InputSchema: obj(`{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}`)},
		{Name: "get_history", Description: "Past weather of a place.",
			InputSchema: obj(`{"type":"object","properties":{"place":{"type":"string"}},"required":["place"]}`)},
	}
	if !changed {
		return tools
	}
	// get_forecast: a breaking input change (days now required) and a
	// compatible output change (a new property).
	tools[0].InputSchema = obj(`{"type":"object","properties":{"place":{"type":"string"},"days":{"type":"integer","minimum":1}},"required":["place","days"]}`)
	tools[0].OutputSchema = obj(`{"type":"object","properties":{"summary":{"type":"string"},"wind":{"type":"number"}},"required":["summary"]}`)
	// get_alerts: a compatible input change (an optional property).
	tools[1].InputSchema = obj(`{"type":"object","properties":{"region":{"type":"string"},"severity":{"type":"string"}},"required":["region"]}`)
	// list_stations: its description.
	tools[2].Description = "The weather stations of a country, with their height."
	// set_units: its annotations.
	tools[3].Annotations = &mcp.ToolAnnotations{DestructiveHint: &yes, IdempotentHint: true}
	// delete_station: removed; get_history: renamed; get_radar: added.
	tools[5].Name = "get_past_weather"
	return append(tools[:4], tools[5],
		&mcp.Tool{Name: "get_radar", Description: "The radar image of a region.",
			InputSchema: obj(`{"type":"object","properties":{"region":{"type":"string"}},"required":["region"]}`)})
}

// newGoServer is the MCP server of mcpgo, written with the Go SDK: the
// tools of goServerTools, two to a page of tools/list.
func newGoServer(changed bool) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "weather", Title: "Weather", Version: "1.2.0"},
		&mcp.ServerOptions{Instructions: "Ask for a place first.", PageSize: 2})
	for _, t := range goServerTools(changed) {
		s.AddTool(t, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{}, nil
		})
	}
	return s
}

// secretHeader is the Authorization header the Go server of mcpgo wants
// when started with "mcpgo auth": a value that looks like no credential,
// so that only the command's own care keeps it out of a message.
const secretHeader = "Bearer plain-words-opensesame"

// mcpGoServer is the script command "mcpgo start [auth]" or "mcpgo
// change": start starts the Go SDK server of newGoServer on a free port of
// 127.0.0.1 for the rest of the script and sets $MCPGO_URL to its
// endpoint and $MCPGO_PORT to its port; with auth it refuses a request
// without Authorization: secretHeader, echoing the header it got, as a
// careless server does. change switches it to the changed tools.
func mcpGoServer(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 {
		ts.Fatalf("usage: mcpgo start [auth] | mcpgo change")
	}
	if args[0] == "change" {
		v, ok := ts.Value("mcpgo").(*atomic.Bool)
		if !ok {
			ts.Fatalf("no mcpgo state: the script's Setup makes it")
		}
		v.Store(true)
		return
	}
	changed, ok := ts.Value("mcpgo").(*atomic.Bool)
	if !ok {
		ts.Fatalf("no mcpgo state: the script's Setup makes it")
	}
	handler := http.Handler(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server {
		return newGoServer(changed.Load())
	}, &mcp.StreamableHTTPOptions{Stateless: true}))
	if len(args) > 1 && args[1] == "auth" {
		next := handler
		handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if got := r.Header.Get("Authorization"); got != secretHeader {
				// A JSON-RPC error, which the SDK's client quotes.
				var req struct{ ID json.RawMessage }
				_ = json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&req)
				resp, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": req.ID,
					"error": map[string]any{"code": -32001, "message": "unauthorized: " + got + " is not a token of this server"}})
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusUnauthorized)
				_, _ = w.Write(resp)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	ts.Check(err)
	srv := &http.Server{Handler: handler, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(l) }()
	ts.Defer(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
	})
	ts.Setenv("MCPGO_URL", "http://"+l.Addr().String()+"/mcp")
	ts.Setenv("MCPGO_PORT", strings.TrimPrefix(l.Addr().String(), "127.0.0.1:"))
}

// everythingVersion is the version of @modelcontextprotocol/server-everything
// that make tools installs (MCP_EVERYTHING_VERSION of the Makefile).
const everythingVersion = "2026.8.31"

// everythingModules is the node_modules folder make tools installs
// server-everything and its Node.js in, or the one
// $SIGNPOST_MCP_EVERYTHING_MODULES names (an install elsewhere).
func everythingModules() (string, error) {
	if dir := os.Getenv("SIGNPOST_MCP_EVERYTHING_MODULES"); dir != "" {
		return filepath.Abs(dir)
	}
	return filepath.Abs(filepath.Join("..", "..", "bin", "npm-mcp-everything", "node_modules"))
}

// everythingInstalled says why server-everything cannot run, "" when it
// can.
func everythingInstalled() string {
	modules, err := everythingModules()
	if err != nil {
		return err.Error()
	}
	pkg, err := os.ReadFile(filepath.Join(modules, "@modelcontextprotocol", "server-everything", "package.json"))
	if err != nil {
		return "@modelcontextprotocol/server-everything is not installed in bin/npm-mcp-everything (make tools installs it)"
	}
	var v struct{ Version string }
	if json.Unmarshal(pkg, &v) != nil || v.Version != everythingVersion {
		return "bin/npm-mcp-everything holds @modelcontextprotocol/server-everything " + v.Version + ", not " + everythingVersion + " (make tools installs it)"
	}
	if nodes, _ := filepath.Glob(filepath.Join(modules, "node-*", "bin", "node")); len(nodes) != 1 {
		return "no Node.js beside @modelcontextprotocol/server-everything in bin/npm-mcp-everything (make tools installs it)"
	}
	return ""
}

// loopbackPreload makes a Node.js server listen on 127.0.0.1 only:
// server-everything listens on every address of its PORT otherwise.
const loopbackPreload = `const net = require('net');
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  if (typeof args[0] === 'number' || typeof args[0] === 'string') {
    return listen.call(this, {port: Number(args[0]), host: '127.0.0.1'}, ...args.slice(1).filter(a => typeof a === 'function'));
  }
  return listen.apply(this, args);
};
`

// everythingServer is the script command "everything": it sets
// $EVERYTHING_NODE and $EVERYTHING_JS, to run server-everything over
// stdio, and starts it over Streamable HTTP on a free port of 127.0.0.1
// for the rest of the script, with $EVERYTHING_URL its endpoint.
func everythingServer(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: everything")
	}
	if why := everythingInstalled(); why != "" {
		ts.Fatalf("%s", why)
	}
	modules, _ := everythingModules()
	nodes, _ := filepath.Glob(filepath.Join(modules, "node-*", "bin", "node"))
	js := filepath.Join(modules, "@modelcontextprotocol", "server-everything", "dist", "index.js")
	preload := ts.MkAbs("loopback.cjs")
	ts.Check(os.WriteFile(preload, []byte(loopbackPreload), 0o644))
	ts.Setenv("EVERYTHING_NODE", nodes[0])
	ts.Setenv("EVERYTHING_JS", js)
	port, err := s3test.FreePort()
	ts.Check(err)
	cmd := exec.Command(nodes[0], "--require", preload, js, "streamableHttp")
	cmd.Env = append(os.Environ(), "PORT="+port, "NO_UPDATE_NOTIFIER=1")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	ts.Check(cmd.Start())
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	ts.Defer(func() {
		_ = cmd.Process.Kill()
		<-exited
	})
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		select {
		case <-exited:
			ts.Fatalf("server-everything exited:\n%s", out.String())
		default:
		}
		if c, err := net.DialTimeout("tcp", "127.0.0.1:"+port, time.Second); err == nil {
			c.Close()
			ts.Setenv("EVERYTHING_URL", "http://127.0.0.1:"+port+"/mcp")
			return
		}
	}
	ts.Fatalf("server-everything did not listen on 127.0.0.1:%s within 30 s:\n%s", port, out.String())
}

// everythingCondition is the script condition [everything]: whether
// server-everything can run. Not in -short mode, which installs nothing;
// with CI set it is always true, so that a missing server fails the
// everything command rather than skipping the script.
func everythingCondition() bool {
	return !testing.Short() && (everythingInstalled() == "" || os.Getenv("CI") != "")
}

// TestEverythingPinned holds the test's version of server-everything to
// the Makefile's.
func TestEverythingPinned(t *testing.T) {
	mk, err := os.ReadFile(filepath.Join("..", "..", "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "MCP_EVERYTHING_VERSION := " + everythingVersion + "\n"; !bytes.Contains(mk, []byte(want)) {
		t.Errorf("the Makefile has no %q: the tests run the version it installs", strings.TrimSpace(want))
	}
}
