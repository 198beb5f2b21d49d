// Command memos-mcp-edge is an MCP server for a Memos instance. Built with
// GOOS=js GOARCH=wasm it runs as a Cloudflare Worker; built natively it
// serves the same handler on a loopback port.
package main

import (
	"errors"
	"syscall"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/bridge"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/caller"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/cards"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/config"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/finder"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/grants"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/lease"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/logline"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/mcp"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/memos"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/oauth"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/prompts"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/registry"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/resources"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/seal"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/server"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/tools"
)

// version is the gateway's release, reported as serverInfo.version.
const version = "0.1.0"

func main() {
	logline.SetOutput(bridge.LogWriter())
	cfg, cfgErr := config.Load(bridge.Getenv, bridge.HasBinding)
	// The owner's choice of tools (READ_ONLY, TOOLS); a bad entry is a
	// configuration problem like any other.
	choice, choiceErr := config.LoadToolChoice(bridge.Getenv)
	selection, selectErr := registry.Select(choice.ReadOnly, choice.Entries)
	cfgErr = errors.Join(cfgErr, choiceErr, selectErr, finder.CheckZone(cfg.Timezone, bridge.ZoneOffset))
	if cfgErr != nil {
		logline.Print("configuration: ", cfgErr.Error())
	}
	if len(cfg.AllowedHosts) == 0 {
		cfg.AllowedHosts = bridge.DefaultHosts()
	}
	instance := memos.New(memosOptions(cfg), bridge.Fetcher{Binding: cfg.MemosService, MaxBytes: cfg.MaxRespBytes})
	// Writes take a lock per memo (memoLocks); without the Durable Objects
	// that hold the locks they are refused, which /healthz reports when the
	// deployment serves any write.
	locks, locksErr := memoLocks()
	tools := tools.New(instance, finder.Finder{Offsets: bridge.ZoneOffset, Zone: cfg.Timezone, Locks: locks})
	// The deployment's selection for every caller, in the release the
	// instance runs; a read-only grant gets its read-only part (the
	// stricter of the two wins).
	mcpOpts := mcp.Options{
		Name: "memos-mcp-edge", Version: version, Tools: tools.Within(selection, false), AllowedOrigins: cfg.AllowedOrigins,
		MaxBodyBytes: cfg.MaxBodyBytes, MaxResponseBytes: cfg.MaxRespBytes,
		ReadOnlyTools: tools.Within(selection, true),
		Instructions:  registry.Instructions,
		// Memos as resources and the prompts are reads: every caller gets
		// them; a prompt that needs a withheld tool is not listed.
		Resources: resources.New(instance, cfg.MaxRespBytes).InZone(cfg.Timezone, bridge.ZoneOffset),
		Prompts:   prompts.New(instance),
	}
	if cfg.Cards {
		mcpOpts.Apps = cards.New(bridge.Fetcher{Binding: cards.Binding, MaxBytes: cards.MaxBytes}, instance.WebURL())
	}
	// A caller's Memos token goes upstream (with the Access service token)
	// only once Memos has accepted it.
	callers := caller.New(instance.CurrentUser, caller.Options{})
	// Whose a memo is, in results, is told from the caller check's answer.
	instance.KnowCallers(callers.Verify)
	var authServer server.Router
	store, storeErr := grantStore()
	if cfg.OAuthSecret != "" && storeErr != nil {
		cfgErr = errors.Join(cfgErr, storeErr)
		logline.Print("configuration: ", storeErr.Error())
	}
	if cfg.OAuthSecret != "" && storeErr == nil {
		keys, err := seal.New(cfg.OAuthSecret, cfg.OAuthSecretPrevious)
		if err != nil {
			fatal(err) // config.Load checked the secrets already
		}
		o := oauth.New(oauth.Options{
			Keys: keys, Memos: instance, Store: store, Callers: callers, Fetch: bridge.Fetcher{MaxBytes: oauth.DocumentMaxBytes}, SHA256: bridge.SHA256,
			Instance: instance.InstanceName(), AcceptMemosTokens: cfg.OAuthAcceptMemosTokens,
			AllowLoopbackClients: cfg.OAuthAllowLoopbackClients,
		})
		authServer, mcpOpts.Authorize, mcpOpts.ScopeChallenge, mcpOpts.Revoked = o, o.Authorize, o.ScopeChallenge, o.Revoked
	} else {
		mcpOpts.Authorize, mcpOpts.Revoked = callers.Authorize, callers.Revoked
		// A caller back from a pause reads beside the check of its token,
		// where those reads carry nothing of the gateway's own: without
		// the Access service token.
		if cfg.AccessClientID == "" {
			mcpOpts.Ahead = callers.Ahead
		}
	}
	if !selection.Writes() {
		locksErr = nil
	}
	if locksErr != nil {
		logline.Print("configuration: ", locksErr.Error())
	}
	h := server.New(server.Options{
		Config:       cfg,
		ConfigErr:    cfgErr,
		WritesErr:    locksErr,
		MCP:          mcp.NewHandler(mcpOpts),
		OAuth:        authServer,
		MemosVersion: registry.MemosVersion(),
		ToolCount: func(release string) int {
			if r := registry.For(release); r != nil {
				return selection.In(r).Full().Len()
			}
			return selection.Full().Len()
		},
		Probe:           instance.Health,
		StartupMillis:   bridge.StartupMillis,
		WasmMemoryBytes: bridge.WasmMemoryBytes,
		AccessLog:       bridge.LogWriter(),
	})
	fatal(bridge.Serve(h, cfg.MaxBodyBytes))
}

// memosOptions is what the Memos client takes of the configuration.
func memosOptions(cfg config.Config) memos.Options {
	o := memos.Options{
		AccessClientID: cfg.AccessClientID, AccessClientSecret: cfg.AccessClientSecret,
		Timeout: cfg.Timeout, MaxResponseBytes: cfg.MaxRespBytes, Releases: tools.Releases(),
		Differs: registry.Differs, Lockdown: cfg.Lockdown,
	}
	if u := cfg.MemosURL; u != nil {
		o.URL, o.Host, o.Path = u.String(), u.Host, u.Path
	}
	return o
}

// grantsBinding is the Durable Object namespace that holds the OAuth
// server's memory (wrangler.toml).
const grantsBinding = "GRANTS"

// grantStore returns where the OAuth server keeps what it must remember:
// Durable Objects in the Worker, memory in the native process. Without
// either it refuses, rather than let codes and refresh tokens be replayed.
func grantStore() (grants.Store, error) {
	switch {
	case bridge.Native:
		return grants.NewMemory(nil), nil
	case bridge.HasObjects(grantsBinding):
		return grants.Remote{Doer: bridge.Fetcher{Binding: "objects:" + grantsBinding, MaxBytes: grants.MaxAnswerBytes}}, nil
	}
	return nil, errors.New("OAUTH_SECRET is set, but the Worker has no " + grantsBinding +
		" Durable Object binding to remember grants in: keep the [[durable_objects.bindings]] and [[migrations]] entries of the shipped wrangler.toml")
}

// locksBinding is the Durable Object namespace that holds the memo locks
// of writes (wrangler.toml).
const locksBinding = "MEMO_LOCKS"

// memoLocks returns the lock per memo that every write takes: Durable
// Objects in the Worker, so that two isolates cannot interleave their
// writes of one memo, and memory in the native process. Without the
// binding it returns a Locker that refuses every lock, and the problem.
func memoLocks() (lease.Locker, error) {
	switch {
	case bridge.Native:
		return &lease.Memory{}, nil
	case bridge.HasObjects(locksBinding):
		return lease.Remote{Doer: bridge.Fetcher{Binding: "objects:" + locksBinding, MaxBytes: lease.MaxAnswerBytes}}, nil
	}
	err := errors.New("writes are refused: the Worker has no " + locksBinding +
		" Durable Object binding for the memo locks: keep the [[durable_objects.bindings]] and [[migrations]] entries of the shipped wrangler.toml")
	return lease.Refusing{Err: err}, err
}

// fatal logs err and ends the program, as log.Fatal would.
func fatal(err error) {
	logline.Print(logline.Value(err))
	syscall.Exit(1)
}
