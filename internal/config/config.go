// Package config reads and checks the gateway's configuration: Worker
// variables and secrets, or environment variables natively.
package config

import (
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/seal"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/uri"
)

// Config is the checked configuration.
type Config struct {
	MemosURL       *uri.URL // base URL of the Memos instance, without a trailing slash
	MemosService   string   // name of a service binding used instead of the network
	AllowedOrigins []string // browser origins allowed besides the request's own host
	AllowedHosts   []string // host names the gateway answers to (DNS-rebinding guard); empty = any
	MaxBodyBytes   int      // request body cap
	MaxRespBytes   int      // upstream response body cap
	Timeout        time.Duration
	// Timezone is the IANA time zone of the days and times the finding
	// tools show when a call names none; "" is UTC. Whether the runtime
	// knows it is checked where the zones are (main).
	Timezone string
	// Lockdown (LOCKDOWN) leaves other users' memos out of every result.
	Lockdown bool
	// Cards (CARDS, default true) shows memo cards to the clients that
	// declare MCP Apps (internal/cards); false serves none.
	Cards bool
	// Cloudflare Access service token sent with every upstream request, for
	// an instance behind Access (Worker secrets). Both set or both empty.
	AccessClientID     string
	AccessClientSecret string
	// OAuth: when OAuthSecret is set (Worker secret), the gateway is the
	// authorization server of its own /mcp. OAuthSecretPrevious still opens
	// what the previous secret sealed, for rotation.
	OAuthSecret, OAuthSecretPrevious string
	OAuthAcceptMemosTokens           bool // plain Memos tokens keep working at /mcp
	OAuthAllowLoopbackClients        bool // client documents on loopback http (tests, development)
}

// Defaults for the optional settings.
const (
	DefaultMaxBodyBytes = 1 << 20
	DefaultMaxRespBytes = 8 << 20
	DefaultTimeout      = 15 * time.Second
)

// Load reads the configuration through getenv. hasBinding reports whether the
// Worker has a service binding of a given name. The returned error lists every
// problem found; the Config is still usable for what was valid.
func Load(getenv func(string) string, hasBinding func(string) bool) (Config, error) {
	c := Config{
		MemosService:        strings.TrimSpace(getenv("MEMOS_SERVICE")),
		AllowedOrigins:      list(getenv("ALLOWED_ORIGINS")),
		AccessClientID:      strings.TrimSpace(getenv("CF_ACCESS_CLIENT_ID")),
		AccessClientSecret:  strings.TrimSpace(getenv("CF_ACCESS_CLIENT_SECRET")),
		OAuthSecret:         strings.TrimSpace(getenv("OAUTH_SECRET")),
		OAuthSecretPrevious: strings.TrimSpace(getenv("OAUTH_SECRET_PREVIOUS")),
		Timezone:            strings.TrimSpace(getenv("TIMEZONE")),
	}
	var errs []error
	var err error
	if c.AllowedHosts, err = AllowedHosts(getenv("ALLOWED_HOSTS")); err != nil {
		errs = append(errs, err)
	}
	if c.MemosURL, err = memosURL(getenv("MEMOS_URL"), getenv("MEMOS_ALLOW_HTTP") == "true"); err != nil {
		errs = append(errs, err)
	}
	if c.MemosService != "" && !hasBinding(c.MemosService) {
		errs = append(errs, errors.New("MEMOS_SERVICE names "+strconv.Quote(c.MemosService)+", but the Worker has no service binding of that name"))
	}
	if c.MemosURL == nil && c.MemosService == "" && err == nil {
		errs = append(errs, errors.New("MEMOS_URL is not set: set it to your Memos instance's URL, e.g. https://memos.example.com"))
	}
	if (c.AccessClientID == "") != (c.AccessClientSecret == "") {
		// Never quote the values: one of them is a secret.
		errs = append(errs, errors.New("CF_ACCESS_CLIENT_ID and CF_ACCESS_CLIENT_SECRET must be set together (a Cloudflare Access service token's id and secret)"))
		c.AccessClientID, c.AccessClientSecret = "", ""
	}
	if c.MaxBodyBytes, err = positive(getenv, "MAX_BODY_BYTES", DefaultMaxBodyBytes); err != nil {
		errs = append(errs, err)
	}
	if c.MaxRespBytes, err = positive(getenv, "MAX_RESPONSE_BYTES", DefaultMaxRespBytes); err != nil {
		errs = append(errs, err)
	}
	ms, err := positive(getenv, "UPSTREAM_TIMEOUT_MS", int(DefaultTimeout/time.Millisecond))
	if err != nil {
		errs = append(errs, err)
	}
	c.Timeout = time.Duration(ms) * time.Millisecond
	if c.Lockdown, err = boolean(getenv, "LOCKDOWN", false); err != nil {
		errs = append(errs, err)
	}
	if c.Cards, err = boolean(getenv, "CARDS", true); err != nil {
		errs = append(errs, err)
	}
	if err := c.loadOAuth(getenv); err != nil {
		errs = append(errs, err)
	}
	return c, errors.Join(errs...)
}

// memosURL checks the instance URL. With a service binding the URL may name
// any host: only its path prefix matters, and it may be left unset. The
// messages never quote the value: they reach /healthz, and an instance's
// private address is not for every caller to read.
func memosURL(raw string, allowHTTP bool) (*uri.URL, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return nil, nil
	}
	u, err := uri.Parse(raw)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return nil, errors.New("MEMOS_URL is not an absolute http(s) URL: give the base URL of your instance, with https")
	}
	// An empty query or fragment ("…/?", "…#") counts too: the tools'
	// paths would be appended after it.
	if u.HasUser || strings.ContainsAny(raw, "?#") {
		return nil, errors.New("MEMOS_URL must not carry credentials, a query or a fragment")
	}
	if u.Scheme == "http" && !allowHTTP && !uri.ResolvesToLoopback(u.Hostname()) {
		return nil, errors.New("MEMOS_URL uses plain http to a non-loopback host: use https, or set MEMOS_ALLOW_HTTP=true for development")
	}
	u.Path = strings.TrimRight(u.Path, "/")
	return &u, nil
}

// loadOAuth checks the OAuth settings. The secrets are never quoted.
func (c *Config) loadOAuth(getenv func(string) string) error {
	var err error
	if c.OAuthAcceptMemosTokens, err = boolean(getenv, "OAUTH_ACCEPT_MEMOS_TOKENS", true); err != nil {
		return err
	}
	if c.OAuthAllowLoopbackClients, err = boolean(getenv, "OAUTH_ALLOW_LOOPBACK_CLIENTS", false); err != nil {
		return err
	}
	if c.OAuthSecret == "" && c.OAuthSecretPrevious != "" {
		c.OAuthSecretPrevious = ""
		return errors.New("OAUTH_SECRET_PREVIOUS is set without OAUTH_SECRET: set the new secret too")
	}
	for _, s := range [...]struct{ name, value string }{{"OAUTH_SECRET", c.OAuthSecret}, {"OAUTH_SECRET_PREVIOUS", c.OAuthSecretPrevious}} {
		if s.value == "" {
			continue
		}
		if err := seal.CheckSecret(s.value); err != nil {
			c.OAuthSecret, c.OAuthSecretPrevious = "", ""
			return errors.New(s.name + " is refused: " + err.Error() + "; it must be at least 32 random bytes in base64 or hex: generate one with openssl rand -base64 32")
		}
	}
	return nil
}

func boolean(getenv func(string) string, name string, def bool) (bool, error) {
	switch strings.ToLower(strings.TrimSpace(getenv(name))) {
	case "":
		return def, nil
	case "true", "1", "yes":
		return true, nil
	case "false", "0", "no":
		return false, nil
	}
	return def, errors.New(name + " must be true or false")
}

func positive(getenv func(string) string, name string, def int) (int, error) {
	raw := strings.TrimSpace(getenv(name))
	if raw == "" {
		return def, nil
	}
	n, err := strconv.Atoi(raw)
	if err != nil || n <= 0 {
		return def, errors.New(name + " " + strconv.Quote(raw) + " is not a positive integer")
	}
	return n, nil
}

// list splits a comma-separated setting, dropping blanks.
func list(raw string) []string {
	var out []string
	for item := range strings.SplitSeq(raw, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}

// ToolChoice is the owner's choice of the tools to serve: READ_ONLY and
// TOOLS. Which tools the entries match is for the registry to say.
type ToolChoice struct {
	ReadOnly bool     // READ_ONLY=true: serve only read-only tools
	Entries  []string // TOOLS: names or prefixes; "-" removes
}

// LoadToolChoice reads READ_ONLY and TOOLS through getenv.
func LoadToolChoice(getenv func(string) string) (ToolChoice, error) {
	c := ToolChoice{Entries: list(getenv("TOOLS"))}
	raw := strings.TrimSpace(getenv("READ_ONLY"))
	if raw == "" {
		return c, nil
	}
	readOnly, err := strconv.ParseBool(raw)
	if err != nil {
		return c, errors.New("READ_ONLY " + strconv.Quote(raw) + " is not true or false")
	}
	c.ReadOnly = readOnly
	return c, nil
}
