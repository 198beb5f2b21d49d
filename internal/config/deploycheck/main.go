// Command deploycheck is the last step of the build that wrangler runs
// before a deploy (wrangler.toml's [build]): it reads the [vars] table of
// wrangler.toml and warns when a Worker deployed with it would answer every
// request with an error, by the checks /healthz makes (config.Load and the
// tool choice) and one more: ALLOWED_HOSTS left at the loopback names that
// the shipped file keeps for a hand-run wrangler dev. It only warns, and
// exits 0: secrets and settings made elsewhere are out of its sight.
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/config"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/registry"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/uri"
)

func main() {
	path := "wrangler.toml"
	if len(os.Args) > 1 {
		path = os.Args[1]
	}
	f, err := os.Open(path)
	if err != nil {
		fmt.Fprintf(os.Stderr, "deploycheck: %v\n", err)
		return
	}
	defer f.Close()
	if problems := check(vars(f)); len(problems) > 0 {
		fmt.Fprintf(os.Stderr, "\nWarning: a Worker deployed with %s answers every request with an error:\n", path)
		for _, p := range problems {
			fmt.Fprintln(os.Stderr, "  - "+p)
		}
		fmt.Fprintln(os.Stderr, "Set them in "+path+" before you deploy (README, \"Deploy to Cloudflare\"); wrangler dev on loopback is fine as it is.")
		fmt.Fprintln(os.Stderr)
	}
}

// vars reads the string values of the [vars] table, one `NAME = "value"`
// a line, as wrangler.toml writes them; other lines are skipped.
func vars(r io.Reader) map[string]string {
	out := map[string]string{}
	in := false
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "[") {
			in = line == "[vars]"
			continue
		}
		name, value, ok := strings.Cut(line, "=")
		if !in || !ok || strings.HasPrefix(line, "#") {
			continue
		}
		var s string
		if json.Unmarshal([]byte(strings.TrimSpace(value)), &s) == nil {
			out[strings.TrimSpace(name)] = s
		}
	}
	return out
}

// check returns what makes a Worker with these variables refuse every
// request: a configuration problem (/mcp answers 503), or only loopback
// host names allowed (every path answers 403).
func check(vars map[string]string) []string {
	getenv := func(name string) string { return vars[name] }
	// Bindings and secrets are not in [vars]: assume they are there.
	cfg, err := config.Load(getenv, func(string) bool { return true })
	choice, choiceErr := config.LoadToolChoice(getenv)
	_, selectErr := registry.Select(choice.ReadOnly, choice.Entries)
	var problems []string
	if err := errors.Join(err, choiceErr, selectErr); err != nil {
		for _, line := range strings.Split(err.Error(), "\n") {
			problems = append(problems, line+" (/mcp answers 503)")
		}
	}
	loopback := len(cfg.AllowedHosts) > 0
	for _, h := range cfg.AllowedHosts {
		loopback = loopback && uri.ResolvesToLoopback(h)
	}
	if loopback {
		problems = append(problems, "ALLOWED_HOSTS lists only loopback names: every path answers 403; set it to the host names you serve, e.g. mcp.example.com")
	}
	return problems
}
